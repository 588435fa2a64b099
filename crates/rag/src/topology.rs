//! `results.topology_prior`: a small boost (at most `weight`) for results whose path shares
//! words with the query (70%) and with the paths of recent results (30%), so near-ties go to
//! the part of the tree the conversation is about. Recent paths are forgotten on re-index.

use std::collections::{HashSet, VecDeque};
use std::sync::Mutex;

use tether_config::TopologyPrior;

use crate::Hit;

#[derive(Debug)]
pub(crate) struct Prior {
    cfg: TopologyPrior,
    recent: Mutex<VecDeque<String>>,
}

impl Prior {
    pub(crate) fn new(cfg: TopologyPrior) -> Self {
        Self {
            cfg,
            recent: Mutex::new(VecDeque::new()),
        }
    }

    fn recent(&self) -> std::sync::MutexGuard<'_, VecDeque<String>> {
        self.recent
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub(crate) fn apply(&self, query: &str, mut hits: Vec<Hit>) -> Vec<Hit> {
        if hits.is_empty() {
            return hits;
        }
        let history: Vec<String> = self.recent().iter().cloned().collect();
        let history: Vec<HashSet<String>> = history.iter().map(|p| tokens(p)).collect();
        let q = tokens(query);
        for h in &mut hits {
            let t = tokens(&h.path);
            let near = history.iter().map(|p| jaccard(&t, p)).fold(0.0, f64::max);
            h.score += self.cfg.weight * (0.7 * jaccard(&q, &t) + 0.3 * near);
        }
        hits.sort_by(|a, b| b.score.total_cmp(&a.score));
        hits
    }

    /// Remembers the paths of a query's results.
    pub(crate) fn observe(&self, hits: &[Hit]) {
        let mut recent = self.recent();
        for h in hits {
            if !h.path.is_empty() && !recent.contains(&h.path) {
                recent.push_back(h.path.clone());
            }
        }
        while recent.len() > self.cfg.max_source_history {
            recent.pop_front();
        }
    }

    pub(crate) fn clear(&self) {
        self.recent().clear();
    }
}

fn tokens(text: &str) -> HashSet<String> {
    text.to_lowercase()
        .split(['/', '\\', '.', '-', '_', ' '])
        .filter(|t| t.len() >= 2)
        .map(str::to_owned)
        .collect()
}

fn jaccard(a: &HashSet<String>, b: &HashSet<String>) -> f64 {
    if a.is_empty() || b.is_empty() {
        return 0.0;
    }
    let common = a.intersection(b).count();
    common as f64 / (a.len() + b.len() - common) as f64
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn a_path_naming_the_query_breaks_a_tie() {
        let prior = Prior::new(TopologyPrior {
            weight: 0.05,
            max_source_history: 4,
        });
        let hit = |p: &str| Hit {
            path: p.to_owned(),
            index: 0,
            content: String::new(),
            score: 0.5,
        };
        let got = prior.apply(
            "blork diet",
            vec![hit("docs/other.md"), hit("docs/diet.md")],
        );
        assert_eq!(got[0].path, "docs/diet.md");
        assert!(got[0].score > 0.5 && got[0].score <= 0.55, "{got:?}");
        assert_eq!(got[1].score, 0.5);
    }
}
