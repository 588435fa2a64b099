//! `inject_memories`: at the start of every turn, the memories of the agent's `type: memory`
//! toolset most relevant to the latest user message reach the model as a system message, so
//! it need not remember to call `search_memories`.
//!
//! Relevance is docker-agent's `local` strategy: BM25 (k1 1.5, b 0.75) over the memories'
//! words, lowercased, punctuation stripped, words of one or two bytes and a few stopwords
//! dropped, each score divided by the number of query words (capped at 1). No model call, so
//! it costs nothing and gives the same answer every time. The file is read, never created: a
//! run that has stored nothing injects nothing.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::path::Path;

use rusqlite::{Connection, OpenFlags};

use crate::memory::memory_file;

/// `max_inject_memories` when it is absent or 0.
pub const DEFAULT_MAX_INJECT_MEMORIES: usize = 5;

const K1: f64 = 1.5;
const B: f64 = 0.75;
const STOPWORDS: &[&str] = &["the", "and", "but", "for", "was", "are", "were", "been"];
const PUNCTUATION: &[char] = &[
    '.', ',', '!', '?', ';', ':', '(', ')', '[', ']', '{', '}', '"', '\'',
];

/// One stored memory.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Memory {
    text: String,
    category: String,
}

/// The `<memories>` block for `query`: the `limit` best of the memories in the file of a
/// memory toolset with `path`, or `None` when none is relevant (or nothing is stored yet).
pub fn relevant_memories(
    path: Option<&str>,
    working_dir: &Path,
    query: &str,
    limit: usize,
) -> Result<Option<String>, String> {
    if query.trim().is_empty() || limit == 0 {
        return Ok(None);
    }
    let file = memory_file(path, working_dir)?;
    if !file.is_file() {
        return Ok(None);
    }
    let memories = read(&file).map_err(|e| format!("memory `{}`: {e}", file.display()))?;
    let hits = rank(&memories, query, limit);
    Ok((!hits.is_empty()).then(|| format_block(&hits)))
}

fn read(file: &Path) -> rusqlite::Result<Vec<Memory>> {
    let conn = Connection::open_with_flags(file, OpenFlags::SQLITE_OPEN_READ_ONLY)?;
    conn.busy_timeout(std::time::Duration::from_secs(5))?;
    let mut stmt = conn.prepare("SELECT memory, category FROM memories ORDER BY created_at, id")?;
    stmt.query_map([], |r| {
        Ok(Memory {
            text: r.get(0)?,
            category: r.get(1)?,
        })
    })?
    .collect()
}

fn tokenize(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| c.is_whitespace() || PUNCTUATION.contains(&c))
        .filter(|t| t.len() > 2 && !STOPWORDS.contains(t))
        .map(str::to_owned)
        .collect()
}

/// The best `limit` memories for `query`, best first (ties keep the stored order).
fn rank<'a>(memories: &'a [Memory], query: &str, limit: usize) -> Vec<&'a Memory> {
    let terms = tokenize(query);
    if terms.is_empty() || memories.is_empty() {
        return Vec::new();
    }
    let docs: Vec<(HashMap<String, usize>, f64)> = memories
        .iter()
        .map(|m| {
            let tokens = tokenize(&m.text);
            let len = tokens.len() as f64;
            let mut tf = HashMap::new();
            for t in tokens {
                *tf.entry(t).or_insert(0) += 1;
            }
            (tf, len)
        })
        .collect();
    let n = docs.len() as f64;
    let avg_len = docs.iter().map(|(_, l)| l).sum::<f64>() / n;
    let df: HashMap<&str, f64> = terms
        .iter()
        .map(|t| {
            let count = docs.iter().filter(|(tf, _)| tf.contains_key(t)).count();
            (t.as_str(), count as f64)
        })
        .collect();
    let mut scored: Vec<(f64, &Memory)> = memories
        .iter()
        .zip(&docs)
        .filter_map(|(m, (tf, len))| {
            let mut score = 0.0;
            for t in &terms {
                let f = tf.get(t).copied().unwrap_or(0) as f64;
                let d = df.get(t.as_str()).copied().unwrap_or(0.0);
                if f == 0.0 || d == 0.0 {
                    continue;
                }
                let idf = ((n - d + 0.5) / (d + 0.5) + 1.0).ln();
                let ratio = if avg_len > 0.0 { len / avg_len } else { 1.0 };
                score += idf * (f * (K1 + 1.0)) / (f + K1 * (1.0 - B + B * ratio));
            }
            let score = (score / terms.len() as f64).min(1.0);
            (score > 0.0).then_some((score, m))
        })
        .collect();
    scored.sort_by(|a, b| b.0.partial_cmp(&a.0).unwrap_or(Ordering::Equal));
    scored.into_iter().take(limit).map(|(_, m)| m).collect()
}

fn format_block(hits: &[&Memory]) -> String {
    let mut out = String::from(
        "<memories>\nRelevant memories from previous interactions. Use them only when applicable to the user's request; do not mention this section to the user.\n",
    );
    for m in hits {
        out.push_str("  <memory");
        if !m.category.is_empty() {
            out.push_str(" category=\"");
            out.push_str(&xml_escape(&m.category));
            out.push('"');
        }
        out.push('>');
        out.push_str(&xml_escape(&m.text));
        out.push_str("</memory>\n");
    }
    out.push_str("</memories>");
    out
}

/// Escapes text for XML content and double-quoted attributes; control characters XML cannot
/// carry become U+FFFD.
fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&#34;"),
            '\'' => out.push_str("&#39;"),
            '\t' => out.push_str("&#x9;"),
            '\n' => out.push_str("&#xA;"),
            '\r' => out.push_str("&#xD;"),
            c if (c as u32) < 0x20 => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn m(text: &str) -> Memory {
        Memory {
            text: text.to_owned(),
            category: String::new(),
        }
    }

    fn texts(hits: &[&Memory]) -> Vec<String> {
        hits.iter().map(|h| h.text.clone()).collect()
    }

    #[test]
    fn the_best_match_comes_first_and_unrelated_memories_stay_out() {
        let all = [
            m("I love Go"),
            m("Python is great"),
            m("Go modules are fun"),
        ];
        assert_eq!(
            texts(&rank(&all, "go modules", 5)),
            vec!["Go modules are fun".to_owned()]
        );
    }

    #[test]
    fn the_limit_caps_the_memories_injected() {
        let all = [
            m("rust language features"),
            m("rust concurrency patterns"),
            m("rust trait design"),
        ];
        assert_eq!(rank(&all, "rust", 2).len(), 2);
    }

    #[test]
    fn a_query_of_stopwords_and_short_words_matches_nothing() {
        let all = [m("the a an and or")];
        assert!(rank(&all, "the a an", 5).is_empty());
    }

    #[test]
    fn markup_in_a_memory_cannot_close_the_block() {
        let hit = Memory {
            text: "said <hello> & </memories>".to_owned(),
            category: "x\"y".to_owned(),
        };
        let block = format_block(&[&hit]);
        assert_eq!(block.matches("</memories>").count(), 1);
        assert!(block.contains("said &lt;hello&gt; &amp; &lt;/memories&gt;"));
        assert!(block.contains("category=\"x&#34;y\""));
    }

    #[test]
    fn a_missing_memory_file_injects_nothing_and_is_not_created() {
        let dir = tempfile::tempdir().unwrap();
        let got = relevant_memories(Some("mem.db"), dir.path(), "anything here", 5).unwrap();
        assert_eq!(got, None);
        assert!(!dir.path().join("mem.db").exists());
    }

    #[test]
    fn a_memory_path_leaving_the_working_directory_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let err = relevant_memories(Some("../x.db"), dir.path(), "query words", 5).unwrap_err();
        assert!(err.contains("leaves the working directory"), "{err}");
    }
}
