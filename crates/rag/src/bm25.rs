//! Okapi BM25 over an inverted index of our own (a term's postings: the chunks holding it
//! and how often). Scores follow docker-agent's: the sum over query terms of
//! `idf * tf*(k1+1) / (tf + k1*(1 - b + b*len/avglen))`, divided by the number of query
//! terms and capped at 1, so a `threshold` means the same thing in both.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashMap};

use crate::vectors::Scored;

/// Lowercase alphanumeric words (and `_`), as both indexing and queries see text.
pub(crate) fn tokens(text: &str) -> impl Iterator<Item = String> + '_ {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_'))
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
}

#[derive(Debug, Clone, Default)]
pub struct Bm25Index {
    postings: HashMap<String, Vec<(u32, u32)>>,
    lengths: Vec<u32>,
    total_len: u64,
}

impl Bm25Index {
    pub fn len(&self) -> usize {
        self.lengths.len()
    }

    pub fn is_empty(&self) -> bool {
        self.lengths.is_empty()
    }

    /// Adds `text` as the next document.
    pub fn push(&mut self, text: &str) {
        let Ok(id) = u32::try_from(self.lengths.len()) else {
            return;
        };
        let mut counts: HashMap<String, u32> = HashMap::new();
        let mut len = 0u32;
        for t in tokens(text) {
            *counts.entry(t).or_default() += 1;
            len += 1;
        }
        for (term, tf) in counts {
            self.postings.entry(term).or_default().push((id, tf));
        }
        self.lengths.push(len);
        self.total_len += u64::from(len);
    }

    /// The `k` best documents for `query`, best first, with their score.
    pub fn top_k(
        &self,
        query: &str,
        k: usize,
        k1: f32,
        b: f32,
        threshold: f32,
    ) -> Vec<(usize, f32)> {
        let mut terms: Vec<String> = tokens(query).collect();
        terms.sort();
        terms.dedup();
        if terms.is_empty() || self.is_empty() || k == 0 {
            return Vec::new();
        }
        let n = self.lengths.len() as f32;
        let avg = self.total_len as f32 / n;
        // Dense accumulators: one add per posting, no hashing in the hot loop.
        let mut scores = vec![0.0f32; self.lengths.len()];
        let mut touched: Vec<u32> = Vec::new();
        for term in &terms {
            let Some(list) = self.postings.get(term) else {
                continue;
            };
            let df = list.len() as f32;
            let idf = ((n - df + 0.5) / (df + 0.5) + 1.0).ln();
            for &(doc, tf) in list {
                let tf = tf as f32;
                let len = self.lengths[doc as usize] as f32;
                let s = idf * tf * (k1 + 1.0) / (tf + k1 * (1.0 - b + b * len / avg.max(1.0)));
                let slot = &mut scores[doc as usize];
                if *slot == 0.0 {
                    touched.push(doc);
                }
                *slot += s;
            }
        }
        let q = terms.len() as f32;
        let mut heap: BinaryHeap<Reverse<Scored>> = BinaryHeap::with_capacity(k + 1);
        for doc in touched {
            let s = (scores[doc as usize] / q).min(1.0);
            if s < threshold {
                continue;
            }
            let item = Scored(s, doc as usize);
            if heap.len() < k {
                heap.push(Reverse(item));
            } else if heap.peek().is_some_and(|Reverse(min)| item > *min) {
                heap.pop();
                heap.push(Reverse(item));
            }
        }
        let mut out: Vec<(usize, f32)> = heap.into_iter().map(|Reverse(s)| (s.1, s.0)).collect();
        out.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    #[test]
    fn rarer_matching_terms_rank_higher() {
        let mut idx = Bm25Index::default();
        idx.push("the cat sat on the mat");
        idx.push("the dog chased the cat");
        idx.push("a bird sang");
        let got: Vec<usize> = idx
            .top_k("dog cat", 3, 1.5, 0.75, 0.0)
            .iter()
            .map(|r| r.0)
            .collect();
        assert_eq!(got, [1, 0]);
        assert!(idx.top_k("zebra", 3, 1.5, 0.75, 0.0).is_empty());
    }
}
