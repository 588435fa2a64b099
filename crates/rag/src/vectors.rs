//! Exact nearest-neighbour search over embeddings held in memory. Every vector is normalised
//! once, when it is added, and all of them live in one row-major `Vec<f32>`: a query is then a
//! dot product per row, a tight loop over 16 lanes the compiler turns into SIMD, with the best
//! `k` kept in a small heap. No row is read from SQLite at query time (docker-agent decodes
//! and scores every stored row per query).

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

/// Vectors of one length, row `i` at `data[i*dims..(i+1)*dims]`.
#[derive(Debug, Clone, Default)]
pub struct VectorIndex {
    dims: usize,
    data: Vec<f32>,
}

impl VectorIndex {
    pub fn new(dims: usize) -> Self {
        Self {
            dims,
            data: Vec::new(),
        }
    }

    pub fn dims(&self) -> usize {
        self.dims
    }

    pub fn len(&self) -> usize {
        self.data.len().checked_div(self.dims).unwrap_or(0)
    }

    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// Adds `v` (normalised here) as the next row; `false` when its length is wrong.
    pub fn push(&mut self, v: &[f32]) -> bool {
        if v.len() != self.dims || self.dims == 0 {
            return false;
        }
        let start = self.data.len();
        self.data.extend_from_slice(v);
        normalise(&mut self.data[start..]);
        true
    }

    /// The `k` rows most similar to `query` (cosine), best first, with their similarity.
    pub fn top_k(&self, query: &[f32], k: usize, threshold: f32) -> Vec<(usize, f32)> {
        if query.len() != self.dims || k == 0 || self.dims == 0 {
            return Vec::new();
        }
        let mut q = query.to_vec();
        normalise(&mut q);
        let mut heap: BinaryHeap<Reverse<Scored>> = BinaryHeap::with_capacity(k + 1);
        for (i, row) in self.data.chunks_exact(self.dims).enumerate() {
            let s = dot(row, &q);
            if s < threshold || s.is_nan() {
                continue;
            }
            if heap.len() < k {
                heap.push(Reverse(Scored(s, i)));
            } else if heap.peek().is_some_and(|Reverse(min)| s > min.0) {
                heap.pop();
                heap.push(Reverse(Scored(s, i)));
            }
        }
        let mut out: Vec<(usize, f32)> = heap.into_iter().map(|Reverse(s)| (s.1, s.0)).collect();
        out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        out
    }
}

/// A score and its row, ordered by score.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Scored(pub(crate) f32, pub(crate) usize);

impl Eq for Scored {}

impl PartialOrd for Scored {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Scored {
    fn cmp(&self, other: &Self) -> Ordering {
        self.0.total_cmp(&other.0).then(other.1.cmp(&self.1))
    }
}

/// `a · b` with 16 independent accumulators (no loop-carried dependency, so it vectorises).
#[inline]
pub fn dot(a: &[f32], b: &[f32]) -> f32 {
    const LANES: usize = 16;
    let mut acc = [0.0f32; LANES];
    let (a16, a_rest) = a.split_at(a.len() - a.len() % LANES);
    let (b16, b_rest) = b.split_at(b.len() - b.len() % LANES);
    for (x, y) in a16.chunks_exact(LANES).zip(b16.chunks_exact(LANES)) {
        for l in 0..LANES {
            acc[l] += x[l] * y[l];
        }
    }
    let tail: f32 = a_rest.iter().zip(b_rest).map(|(x, y)| x * y).sum();
    acc.iter().sum::<f32>() + tail
}

pub fn normalise(v: &mut [f32]) {
    let norm = dot(v, v).sqrt();
    if norm > 0.0 {
        v.iter_mut().for_each(|x| *x /= norm);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn the_nearest_rows_come_first() {
        let mut idx = VectorIndex::new(3);
        assert!(idx.push(&[1.0, 0.0, 0.0]));
        assert!(idx.push(&[0.0, 2.0, 0.0]));
        assert!(idx.push(&[1.0, 1.0, 0.0]));
        assert!(!idx.push(&[1.0, 0.0]));
        let got: Vec<usize> = idx
            .top_k(&[0.0, 1.0, 0.0], 2, 0.0)
            .iter()
            .map(|r| r.0)
            .collect();
        assert_eq!(got, [1, 2]);
        assert_eq!(idx.top_k(&[0.0, 1.0, 0.0], 5, 0.9).len(), 1);
    }

    #[test]
    fn dot_matches_the_plain_sum_for_any_length() {
        let a: Vec<f32> = (0..37).map(|i| i as f32 * 0.5).collect();
        let b: Vec<f32> = (0..37).map(|i| 1.0 - i as f32 * 0.01).collect();
        let plain: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        assert!((dot(&a, &b) - plain).abs() < 1e-3);
    }
}
