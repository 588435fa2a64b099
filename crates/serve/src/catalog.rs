//! The agent files a server offers: one file, or every `*.yaml`/`*.yml` in a directory.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use tether_config::AgentFile;

use crate::factory::Factory;

/// One agent file.
#[derive(Debug, Clone)]
pub struct CatalogEntry {
    /// The file's name without its extension (`pirate` for `pirate.yaml`): how clients name it.
    pub id: String,
    pub path: PathBuf,
    pub file: Arc<AgentFile>,
}

impl CatalogEntry {
    /// The agent a run starts with when the client names none: `root`, else the first.
    pub fn default_agent(&self) -> Option<String> {
        let names = self.file.agent_names();
        names
            .iter()
            .find(|n| **n == "root")
            .or_else(|| names.first())
            .map(|n| (*n).to_owned())
    }

    /// The description of the agent a run starts with.
    pub fn description(&self) -> String {
        self.default_agent()
            .and_then(|n| self.file.agent(&n).map(|a| a.description.clone()))
            .unwrap_or_default()
    }

    /// More than one agent (a team).
    pub fn multi(&self) -> bool {
        self.file.agent_names().len() > 1
    }
}

/// The agent files, loaded once at start.
#[derive(Debug, Clone, Default)]
pub struct Catalog {
    entries: Vec<CatalogEntry>,
    /// Files of a directory that did not load (the rest are served).
    pub warnings: Vec<String>,
}

impl Catalog {
    /// Loads `source`: an agent file (an error if it does not load), or a directory whose
    /// files that do not load are skipped with a warning.
    pub fn load(source: &Path, factory: &dyn Factory) -> Result<Self, String> {
        let mut catalog = Self::default();
        if !source.is_dir() {
            let file = factory.load(source)?;
            catalog.entries.push(entry(source, file));
            return Ok(catalog);
        }
        let read = std::fs::read_dir(source)
            .map_err(|e| format!("cannot read `{}`: {e}", source.display()))?;
        let mut paths: Vec<PathBuf> = read
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| {
                p.is_file()
                    && p.extension().is_some_and(|x| {
                        x.eq_ignore_ascii_case("yaml") || x.eq_ignore_ascii_case("yml")
                    })
            })
            .collect();
        paths.sort();
        for path in paths {
            match factory.load(&path) {
                Ok(file) => catalog.entries.push(entry(&path, file)),
                Err(e) => catalog
                    .warnings
                    .push(format!("skipping `{}`: {e}", path.display())),
            }
        }
        Ok(catalog)
    }

    pub fn entries(&self) -> &[CatalogEntry] {
        &self.entries
    }

    /// The entry named `id` (the file name with or without its extension).
    pub fn get(&self, id: &str) -> Option<&CatalogEntry> {
        self.entries.iter().find(|e| {
            e.id == id
                || e.path
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy() == id)
        })
    }

    /// The only entry, or the first (one-file servers).
    pub fn first(&self) -> Option<&CatalogEntry> {
        self.entries.first()
    }
}

fn entry(path: &Path, file: AgentFile) -> CatalogEntry {
    let id = path
        .file_stem()
        .map_or_else(|| "agent".to_owned(), |s| s.to_string_lossy().into_owned());
    CatalogEntry {
        id,
        path: path.to_path_buf(),
        file: Arc::new(file),
    }
}
