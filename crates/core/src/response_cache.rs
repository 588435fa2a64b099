//! An agent's response cache (`cache:`): the final answer of a run that started with a user
//! question, replayed when the same question comes again. Optionally kept in a JSON file
//! (an object from question to answer) that is rewritten whole on each store, mode 0600.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Mutex;

use tether_config::ResponseCache as Config;

#[derive(Debug)]
pub(crate) struct ResponseCache {
    config: Config,
    answers: Mutex<BTreeMap<String, String>>,
}

impl ResponseCache {
    /// The cache, with the answers its file holds; a file that cannot be read is a warning.
    pub(crate) fn open(config: &Config, warnings: &mut Vec<String>) -> Self {
        let mut answers = BTreeMap::new();
        if let Some(path) = &config.path {
            // Answers are private (see `put`); one an older Tether left readable is tightened.
            if let Err(e) = tether_exec::private::tighten(path) {
                warnings.push(format!(
                    "cannot make the response cache {} private: {e}",
                    path.display()
                ));
            }
            match std::fs::read_to_string(path) {
                Ok(text) => match serde_json::from_str(&text) {
                    Ok(map) => answers = map,
                    Err(e) => warnings.push(format!(
                        "response cache {} is not a JSON object of answers ({e}); starting empty",
                        path.display()
                    )),
                },
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => warnings.push(format!(
                    "cannot read the response cache {}: {e}; starting empty",
                    path.display()
                )),
            }
        }
        Self {
            config: config.clone(),
            answers: Mutex::new(answers),
        }
    }

    fn key(&self, question: &str) -> String {
        let q = if self.config.trim_spaces {
            question.trim()
        } else {
            question
        };
        if self.config.case_sensitive {
            q.to_owned()
        } else {
            q.to_lowercase()
        }
    }

    pub(crate) fn get(&self, question: &str) -> Option<String> {
        let key = self.key(question);
        self.answers.lock().ok()?.get(&key).cloned()
    }

    /// Stores an answer; `Err` says why the file could not be written (the answer stays in
    /// memory).
    pub(crate) fn put(&self, question: &str, answer: &str) -> Result<(), String> {
        let key = self.key(question);
        let snapshot = {
            let Ok(mut answers) = self.answers.lock() else {
                return Ok(());
            };
            if answers.get(&key).map(String::as_str) == Some(answer) {
                return Ok(());
            }
            answers.insert(key, answer.to_owned());
            self.config.path.as_ref().map(|_| answers.clone())
        };
        match (&self.config.path, snapshot) {
            (Some(path), Some(answers)) => write(path, &answers),
            _ => Ok(()),
        }
    }
}

fn write(path: &Path, answers: &BTreeMap<String, String>) -> Result<(), String> {
    let text = serde_json::to_string_pretty(answers).unwrap_or_default();
    // Inside the data directory, the directories down to the file are Tether's: private too.
    path.parent()
        .map_or(Ok(()), |dir| {
            tether_exec::private::create_dir(&tether_config::data_dir(), dir)
        })
        .and_then(|()| tether_exec::private::write_whole(path, text.as_bytes()))
        .map_err(|e| format!("cannot write the response cache {}: {e}", path.display()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn questions_match_as_configured() {
        let mut warnings = Vec::new();
        let loose = ResponseCache::open(
            &Config {
                case_sensitive: false,
                trim_spaces: true,
                path: None,
            },
            &mut warnings,
        );
        loose.put("  What is 2+2? ", "4").unwrap();
        assert_eq!(loose.get("what is 2+2?").as_deref(), Some("4"));
        let strict = ResponseCache::open(
            &Config {
                case_sensitive: true,
                ..Config::default()
            },
            &mut warnings,
        );
        strict.put("What is 2+2?", "4").unwrap();
        assert_eq!(strict.get("what is 2+2?"), None);
        assert_eq!(strict.get(" What is 2+2?"), None);
        assert!(warnings.is_empty());
    }

    #[test]
    fn a_broken_file_is_a_warning_and_a_put_rewrites_it() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("c/answers.json");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, "not json").unwrap();
        let config = Config {
            path: Some(path),
            ..Config::default()
        };
        let mut warnings = Vec::new();
        let cache = ResponseCache::open(&config, &mut warnings);
        assert!(warnings[0].contains("is not a JSON object"), "{warnings:?}");
        cache.put("q", "a").unwrap();
        let again = ResponseCache::open(&config, &mut Vec::new());
        assert_eq!(again.get("Q").as_deref(), Some("a"));
    }

    #[test]
    fn the_cache_file_is_private_and_a_wide_one_is_tightened_on_open() {
        use std::os::unix::fs::PermissionsExt;
        let mode = |p: &Path| std::fs::metadata(p).unwrap().permissions().mode() & 0o777;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("new/answers.json");
        let config = Config {
            path: Some(path.clone()),
            ..Config::default()
        };
        let mut warnings = Vec::new();
        ResponseCache::open(&config, &mut warnings)
            .put("q", "ghp_secret")
            .unwrap();
        assert_eq!(mode(&path), 0o600);
        assert_eq!(mode(&dir.path().join("new")), 0o700);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        let again = ResponseCache::open(&config, &mut warnings);
        assert_eq!(mode(&path), 0o600);
        assert_eq!(again.get("q").as_deref(), Some("ghp_secret"));
        assert!(warnings.is_empty(), "{warnings:?}");
    }
}
