//! `results.prefetch`: final results kept per query (lower-cased, spaces collapsed), at most
//! `max_entries`, oldest dropped first, all forgotten whenever re-indexing changed anything.
//! With `max_candidates`, a query also warms follow-ups in the background (docker-agent's
//! adaptive prefetch): the query plus the words of a well-scoring result's file name that it
//! lacks, fetched only while queries look alike (their drift under `drift_threshold`); a
//! miss may then be served by a cached query sharing a result's file-name word and a quarter
//! of its words.

use std::collections::{HashMap, HashSet, VecDeque};
use std::path::Path;
use std::sync::Mutex;

use tether_config::Prefetch;

use crate::Hit;

#[derive(Debug)]
pub(crate) struct Cache {
    cfg: Prefetch,
    state: Mutex<State>,
}

#[derive(Debug, Default)]
struct State {
    entries: HashMap<String, Entry>,
    order: VecDeque<String>,
    inflight: HashSet<String>,
    drift: Drift,
}

#[derive(Debug)]
struct Entry {
    hits: Vec<Hit>,
    /// File-name words of the results (three letters or more).
    anchors: Vec<String>,
}

impl Cache {
    pub(crate) fn new(cfg: Prefetch) -> Self {
        Self {
            cfg,
            state: Mutex::new(State::default()),
        }
    }

    fn state(&self) -> std::sync::MutexGuard<'_, State> {
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(crate) fn get(&self, query: &str) -> Option<Vec<Hit>> {
        let key = normalise(query);
        if key.is_empty() {
            return None;
        }
        let st = self.state();
        if let Some(e) = st.entries.get(&key) {
            return Some(e.hits.clone());
        }
        if self.cfg.max_candidates == 0 || !st.drift.stable(self.cfg.drift_threshold) {
            return None;
        }
        let asked = words(&key);
        st.order.iter().rev().find_map(|k| {
            let e = st.entries.get(k)?;
            let anchored = e.anchors.iter().any(|a| asked.contains(a.as_str()));
            (anchored && jaccard(&words(k), &asked) >= 0.25).then(|| e.hits.clone())
        })
    }

    /// Keeps `hits` for `query`; `observed`: a query the user asked (not a follow-up).
    pub(crate) fn put(&self, query: &str, hits: &[Hit], observed: bool) {
        let key = normalise(query);
        let mut st = self.state();
        if observed {
            st.drift.observe(&key, hits);
        }
        if key.is_empty() || hits.is_empty() {
            return;
        }
        if !st.entries.contains_key(&key) {
            st.order.push_back(key.clone());
        }
        let anchors = anchors(hits);
        st.entries.insert(
            key,
            Entry {
                hits: hits.to_vec(),
                anchors,
            },
        );
        while st.order.len() > self.cfg.max_entries {
            if let Some(old) = st.order.pop_front() {
                st.entries.remove(&old);
            }
        }
    }

    pub(crate) fn clear(&self) {
        let mut st = self.state();
        st.entries.clear();
        st.order.clear();
        st.inflight.clear();
    }

    /// Follow-up queries worth warming after `query` answered `hits`, each marked in flight
    /// (the caller runs them and calls [`Cache::done`]).
    pub(crate) fn candidates(&self, query: &str, hits: &[Hit]) -> Vec<String> {
        let mut st = self.state();
        if self.cfg.max_candidates == 0 || !st.drift.stable(self.cfg.drift_threshold) {
            return Vec::new();
        }
        let base = normalise(query);
        let seen = words(&base);
        let mut out: Vec<String> = Vec::new();
        for hit in hits {
            if out.len() >= self.cfg.max_candidates {
                break;
            }
            if hit.score < self.cfg.min_similarity {
                continue;
            }
            let novel: Vec<String> = stem_words(&hit.path)
                .into_iter()
                .filter(|w| !seen.contains(w.as_str()))
                .collect();
            if novel.is_empty() {
                continue;
            }
            let candidate = format!("{base} {}", novel.join(" "));
            if out.contains(&candidate)
                || st.entries.contains_key(&candidate)
                || st.inflight.contains(&candidate)
            {
                continue;
            }
            st.inflight.insert(candidate.clone());
            out.push(candidate);
        }
        out
    }

    pub(crate) fn done(&self, candidate: &str) {
        self.state().inflight.remove(candidate);
    }

    pub(crate) fn timeout(&self) -> std::time::Duration {
        self.cfg.timeout
    }
}

/// How far each query lands from the recent ones: a point of (length, words, results, mean
/// score), compared with a moving centre.
#[derive(Debug, Default)]
struct Drift {
    seen: usize,
    centre: [f64; 4],
    last: f64,
}

impl Drift {
    fn observe(&mut self, query: &str, hits: &[Hit]) {
        let mean = if hits.is_empty() {
            0.0
        } else {
            hits.iter().map(|h| h.score).sum::<f64>() / hits.len() as f64
        };
        let point = [
            query.len() as f64 / 256.0,
            query.split_whitespace().count() as f64 / 32.0,
            hits.len() as f64 / 32.0,
            mean,
        ];
        self.seen += 1;
        if self.seen == 1 {
            self.centre = point;
            return;
        }
        self.last = point
            .iter()
            .zip(&self.centre)
            .map(|(p, c)| (p - c) * (p - c))
            .sum();
        for (c, p) in self.centre.iter_mut().zip(point) {
            *c += (p - *c) * 0.35;
        }
    }

    fn stable(&self, threshold: f64) -> bool {
        self.seen < 2 || self.last <= threshold
    }
}

pub(crate) fn normalise(query: &str) -> String {
    query
        .to_lowercase()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

fn words(s: &str) -> HashSet<&str> {
    s.split_whitespace().collect()
}

/// The words of a file's name without its extension (`rate_limit.go`: `rate`, `limit`).
fn stem_words(path: &str) -> Vec<String> {
    let stem = Path::new(path)
        .file_stem()
        .map(|s| s.to_string_lossy().to_lowercase())
        .unwrap_or_default();
    stem.split(['_', '-', '.'])
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect()
}

fn anchors(hits: &[Hit]) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for w in hits.iter().flat_map(|h| stem_words(&h.path)) {
        if w.len() >= 3 && !out.contains(&w) {
            out.push(w);
        }
    }
    out
}

fn jaccard(a: &HashSet<&str>, b: &HashSet<&str>) -> f64 {
    let common = a.intersection(b).count();
    let union = a.len() + b.len() - common;
    if union == 0 {
        0.0
    } else {
        common as f64 / union as f64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn hit(path: &str, score: f64) -> Hit {
        Hit {
            path: path.to_owned(),
            index: 0,
            content: String::new(),
            score,
        }
    }

    fn cfg(max_entries: usize, max_candidates: usize) -> Prefetch {
        Prefetch {
            max_entries,
            max_candidates,
            min_similarity: 0.5,
            drift_threshold: 0.8,
            timeout: std::time::Duration::from_secs(1),
        }
    }

    #[test]
    fn repeats_hit_whatever_their_case_and_spacing_and_the_oldest_goes_first() {
        let c = Cache::new(cfg(2, 0));
        c.put("Blork  habitat", &[hit("a.md", 1.0)], true);
        c.put("two", &[hit("b.md", 1.0)], true);
        assert_eq!(c.get(" blork HABITAT ").map(|h| h.len()), Some(1));
        c.put("three", &[hit("c.md", 1.0)], true);
        assert_eq!(c.get("blork habitat"), None);
        assert!(c.get("three").is_some());
        c.clear();
        assert_eq!(c.get("three"), None);
    }

    #[test]
    fn follow_ups_add_the_words_of_well_scoring_file_names() {
        let c = Cache::new(cfg(8, 2));
        let hits = [
            hit("docs/rate_limit.md", 0.9),
            hit("docs/blork-diet.md", 0.7),
            hit("docs/low.md", 0.1),
        ];
        assert_eq!(
            c.candidates("Blork limits", &hits),
            ["blork limits rate limit", "blork limits diet"]
        );
        // In flight: not proposed twice.
        assert_eq!(c.candidates("blork limits", &hits), Vec::<String>::new());
    }
}
