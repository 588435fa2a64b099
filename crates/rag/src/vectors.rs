//! Nearest-neighbour search over embeddings held in memory. Every vector is normalised once,
//! when it is added, and all of them live in one row-major `Vec<f32>`, with an `i8` copy
//! (each component times 127). A query scans the `i8` rows (a quarter of the memory traffic,
//! which is what bounds a scan of 100,000 rows) with a tight loop the compiler turns into SIMD,
//! keeps a shortlist of `max(8k, 64)` rows in a small heap, and scores that shortlist exactly
//! with `f32` dot products: the returned similarities are exact cosines. No row is read from
//! SQLite at query time (docker-agent decodes and scores every stored row per query).

use std::cmp::{Ordering, Reverse};
use std::collections::BinaryHeap;

/// Vectors of one length, row `i` at `data[i*dims..(i+1)*dims]`.
#[derive(Debug, Clone, Default)]
pub struct VectorIndex {
    dims: usize,
    data: Vec<f32>,
    quantised: Vec<i8>,
}

impl VectorIndex {
    pub fn new(dims: usize) -> Self {
        Self {
            dims,
            data: Vec::new(),
            quantised: Vec::new(),
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
        let row = &self.data[start..];
        self.quantised.extend(row.iter().map(|x| quantise(*x)));
        true
    }

    /// The `k` rows most similar to `query` (cosine), best first, with their similarity.
    pub fn top_k(&self, query: &[f32], k: usize, threshold: f32) -> Vec<(usize, f32)> {
        if query.len() != self.dims || k == 0 || self.dims == 0 {
            return Vec::new();
        }
        let mut q = query.to_vec();
        normalise(&mut q);
        let qq: Vec<i8> = q.iter().map(|x| quantise(*x)).collect();
        let shortlist = k.saturating_mul(8).max(64);
        let candidates = self.shortlist(&qq, shortlist);
        let mut out: Vec<(usize, f32)> = candidates
            .into_iter()
            .map(|i| {
                let row = &self.data[i * self.dims..(i + 1) * self.dims];
                (i, dot(row, &q))
            })
            .filter(|(_, s)| *s >= threshold && !s.is_nan())
            .collect();
        out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        out.truncate(k);
        out
    }
}

impl VectorIndex {
    /// The rows of the `n` best quantised scores. Large indexes are scanned by one thread per
    /// core (the scan is bound by memory bandwidth, which one core does not saturate).
    fn shortlist(&self, qq: &[i8], n: usize) -> Vec<usize> {
        let rows = self.len();
        let threads = if rows >= PARALLEL_ROWS {
            std::thread::available_parallelism().map_or(1, |n| n.get().min(8))
        } else {
            1
        };
        let per = rows.div_ceil(threads).max(1);
        let mut all: Vec<(i32, usize)> = if threads == 1 {
            scan(&self.quantised, 0, self.dims, qq, n)
        } else {
            std::thread::scope(|s| {
                let handles: Vec<_> = self
                    .quantised
                    .chunks(per * self.dims)
                    .enumerate()
                    .map(|(t, part)| s.spawn(move || scan(part, t * per, self.dims, qq, n)))
                    .collect();
                let mut all = Vec::with_capacity(n * handles.len());
                for h in handles {
                    // A scan cannot panic; were it to, its rows are left out, not the query.
                    all.extend(h.join().unwrap_or_default());
                }
                all
            })
        };
        all.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        all.truncate(n);
        all.into_iter().map(|(_, i)| i).collect()
    }
}

/// Below this many rows a second thread costs more than it saves.
const PARALLEL_ROWS: usize = 16_384;

/// The `n` best `(score, row)` of `rows` (rows numbered from `first`), unordered.
fn scan(rows: &[i8], first: usize, dims: usize, qq: &[i8], n: usize) -> Vec<(i32, usize)> {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2, checked just above.
        #[allow(unsafe_code)]
        return unsafe { scan_avx2(rows, first, dims, qq, n) };
    }
    scan_portable(rows, first, dims, qq, n)
}

/// [`scan_portable`] compiled for AVX2 (16-bit multiply-adds 16 lanes wide).
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
#[allow(unsafe_code)]
unsafe fn scan_avx2(
    rows: &[i8],
    first: usize,
    dims: usize,
    qq: &[i8],
    n: usize,
) -> Vec<(i32, usize)> {
    scan_portable(rows, first, dims, qq, n)
}

#[inline(always)]
fn scan_portable(rows: &[i8], first: usize, dims: usize, qq: &[i8], n: usize) -> Vec<(i32, usize)> {
    let mut heap: BinaryHeap<Reverse<(i32, Reverse<usize>)>> = BinaryHeap::with_capacity(n + 1);
    for (i, row) in rows.chunks_exact(dims).enumerate() {
        let s = dot_i8(row, qq);
        if heap.len() < n {
            heap.push(Reverse((s, Reverse(first + i))));
        } else if heap.peek().is_some_and(|Reverse(min)| s > min.0) {
            heap.pop();
            heap.push(Reverse((s, Reverse(first + i))));
        }
    }
    heap.into_iter()
        .map(|Reverse((s, Reverse(i)))| (s, i))
        .collect()
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

/// `a · b` of quantised rows, widened to `i32` (384 products of at most 127² fit easily).
#[inline(always)]
fn dot_i8(a: &[i8], b: &[i8]) -> i32 {
    const LANES: usize = 32;
    let mut acc = [0i32; LANES];
    let (a32, a_rest) = a.split_at(a.len() - a.len() % LANES);
    let (b32, b_rest) = b.split_at(b.len() - b.len() % LANES);
    for (x, y) in a32.chunks_exact(LANES).zip(b32.chunks_exact(LANES)) {
        for l in 0..LANES {
            // 127 * 127 fits an i16: a 16-bit multiply (SSE2 has one) then a widening add.
            acc[l] += i32::from(i16::from(x[l]) * i16::from(y[l]));
        }
    }
    let tail: i32 = a_rest
        .iter()
        .zip(b_rest)
        .map(|(x, y)| i32::from(*x) * i32::from(*y))
        .sum();
    acc.iter().sum::<i32>() + tail
}

/// A normalised component (in -1..=1) as an `i8`.
#[inline]
#[expect(
    clippy::cast_possible_truncation,
    reason = "clamped to the i8 range first"
)]
fn quantise(x: f32) -> i8 {
    (x * 127.0).round().clamp(-127.0, 127.0) as i8
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
    fn the_shortlist_finds_the_exact_best_among_many_rows() {
        // 5,000 pseudo-random rows: the int8 pass must not lose the true best ten.
        let dims = 48;
        let mut seed = 7u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 33) as f32 / (1u64 << 31) as f32) - 0.5
        };
        let rows: Vec<Vec<f32>> = (0..5000)
            .map(|_| (0..dims).map(|_| next()).collect())
            .collect();
        let mut idx = VectorIndex::new(dims);
        for r in &rows {
            assert!(idx.push(r));
        }
        let q: Vec<f32> = (0..dims).map(|_| next()).collect();
        let mut exact: Vec<(usize, f32)> = rows
            .iter()
            .enumerate()
            .map(|(i, r)| {
                let mut r = r.clone();
                let mut qn = q.clone();
                normalise(&mut r);
                normalise(&mut qn);
                (i, dot(&r, &qn))
            })
            .collect();
        exact.sort_by(|a, b| b.1.total_cmp(&a.1));
        let got: Vec<usize> = idx.top_k(&q, 10, -1.0).iter().map(|r| r.0).collect();
        let want: Vec<usize> = exact[..10].iter().map(|r| r.0).collect();
        assert_eq!(got, want);
    }

    #[test]
    fn dot_matches_the_plain_sum_for_any_length() {
        let a: Vec<f32> = (0..37).map(|i| i as f32 * 0.5).collect();
        let b: Vec<f32> = (0..37).map(|i| 1.0 - i as f32 * 0.01).collect();
        let plain: f32 = a.iter().zip(&b).map(|(x, y)| x * y).sum();
        assert!((dot(&a, &b) - plain).abs() < 1e-3);
    }
}
