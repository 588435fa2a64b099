//! Combining the ranked results of several strategies. A chunk is identified by its file
//! and position; RRF sums `1/(k + rank)`, weighted sums `weight * score`, max keeps the best
//! score. A single strategy's results pass through unchanged, as docker-agent does.

use std::collections::HashMap;

use tether_config::Fusion;

use crate::Hit;

/// `per_strategy`: each strategy's type name and its hits, best first.
pub fn fuse(fusion: &Fusion, per_strategy: Vec<(&str, Vec<Hit>)>) -> Vec<Hit> {
    if per_strategy.len() == 1 {
        return per_strategy.into_iter().flat_map(|(_, h)| h).collect();
    }
    let mut order: Vec<(String, usize)> = Vec::new();
    let mut fused: HashMap<(String, usize), Hit> = HashMap::new();
    for (name, hits) in per_strategy {
        let weight = match fusion {
            Fusion::Weighted { weights } => weights
                .iter()
                .find(|(n, _)| n == name)
                .map_or(0.0, |(_, w)| *w),
            _ => 1.0,
        };
        for (rank, hit) in hits.into_iter().enumerate() {
            let score = match fusion {
                Fusion::Rrf { k } => 1.0 / (f64::from(*k) + rank as f64 + 1.0),
                Fusion::Weighted { .. } => hit.score * weight,
                Fusion::Max => hit.score,
            };
            let key = (hit.path.clone(), hit.index);
            match fused.get_mut(&key) {
                Some(h) => match fusion {
                    Fusion::Max => h.score = h.score.max(score),
                    _ => h.score += score,
                },
                None => {
                    order.push(key.clone());
                    fused.insert(key, Hit { score, ..hit });
                }
            }
        }
    }
    let mut out: Vec<Hit> = order.into_iter().filter_map(|k| fused.remove(&k)).collect();
    // Stable: ties keep the order strategies listed them in.
    out.sort_by(|a, b| b.score.total_cmp(&a.score));
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn hit(path: &str, score: f64) -> Hit {
        Hit {
            path: path.to_owned(),
            index: 0,
            content: path.to_owned(),
            score,
        }
    }

    fn ranked(fusion: &Fusion) -> Vec<(String, f64)> {
        let vector = vec![hit("a", 0.9), hit("b", 0.8), hit("c", 0.1)];
        let bm25 = vec![hit("c", 1.0), hit("b", 0.5)];
        fuse(fusion, vec![("chunked-embeddings", vector), ("bm25", bm25)])
            .into_iter()
            .map(|h| (h.path, (h.score * 1000.0).round() / 1000.0))
            .collect()
    }

    #[test]
    fn rrf_rewards_chunks_both_strategies_found() {
        // c: 1/63 + 1/61 = 0.032266 edges out b: 2/62 = 0.032258; a: 1/61 alone.
        let got: Vec<String> = ranked(&Fusion::Rrf { k: 60 })
            .into_iter()
            .map(|r| r.0)
            .collect();
        assert_eq!(got, ["c", "b", "a"]);
    }

    #[test]
    fn weighted_fusion_scales_each_strategy() {
        let weights = vec![
            ("chunked-embeddings".to_owned(), 0.2),
            ("bm25".to_owned(), 0.8),
        ];
        assert_eq!(
            ranked(&Fusion::Weighted { weights }),
            [
                ("c".to_owned(), 0.82),
                ("b".to_owned(), 0.56),
                ("a".to_owned(), 0.18)
            ]
        );
    }

    #[test]
    fn max_fusion_keeps_the_best_score() {
        assert_eq!(
            ranked(&Fusion::Max),
            [
                ("c".to_owned(), 1.0),
                ("a".to_owned(), 0.9),
                ("b".to_owned(), 0.8)
            ]
        );
    }

    #[test]
    fn one_strategy_passes_through() {
        let got = fuse(
            &Fusion::Max,
            vec![("bm25", vec![hit("x", 0.2), hit("y", 0.9)])],
        );
        assert_eq!(
            got.iter().map(|h| h.path.as_str()).collect::<Vec<_>>(),
            ["x", "y"]
        );
    }
}
