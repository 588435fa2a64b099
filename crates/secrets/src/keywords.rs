//! Keyword occurrences: the aho-corasick DFA, walked over four interleaved lanes.
//!
//! Walking a DFA is a chain of dependent table loads (about 2 ns per byte on the machines we
//! measured), so on keyword-dense text a single overlapping search costs more than all the
//! regexes the engine runs afterwards. Walking four slices of the text in lockstep lets the CPU
//! overlap those loads. Each lane first replays the `max_pattern_len` bytes before its slice,
//! so its state is exact when the slice starts, and reports only occurrences that end inside
//! its slice: together the lanes report exactly what one overlapping search reports, in the
//! same order (by end position).

use aho_corasick::automaton::{Automaton, StateID};
use aho_corasick::dfa::DFA;
use aho_corasick::{Anchored, MatchKind, StartKind};

use crate::SecretsError;

/// Texts shorter than this are walked in one lane (the split is not worth its overhead).
const MIN_SPLIT_LEN: usize = 4 * 1024;
const LANES: usize = 4;

/// The keyword automaton.
#[derive(Debug)]
pub(crate) struct Keywords {
    dfa: DFA,
    start: StateID,
    /// Length in bytes of each keyword, by pattern index.
    lens: Vec<usize>,
}

/// One keyword occurrence: which keyword, and the byte offset one past its end.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Hit {
    pub(crate) pattern: usize,
    pub(crate) end: usize,
}

impl Keywords {
    /// Builds a case-insensitive (ASCII) automaton over `patterns`.
    pub(crate) fn new(patterns: &[String]) -> Result<Self, SecretsError> {
        let dfa = DFA::builder()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .start_kind(StartKind::Unanchored)
            .prefilter(false)
            .build(patterns)?;
        // `StartKind::Unanchored` guarantees this state exists.
        let start = dfa
            .start_state(Anchored::No)
            .map_err(|_| SecretsError::PrefilterStart)?;
        let lens = patterns.iter().map(String::len).collect();
        Ok(Self { dfa, start, lens })
    }

    /// Byte offset where keyword occurrence `hit` starts.
    pub(crate) fn start_of(&self, hit: Hit) -> usize {
        hit.end - self.lens[hit.pattern]
    }

    /// Every occurrence of every keyword (overlapping ones included), ordered by end position.
    #[cfg(test)]
    pub(crate) fn hits(&self, text: &str) -> Vec<Hit> {
        self.hits_in(text, 0, text.len())
    }

    /// The occurrences that end in `(from, to]` (overlapping ones included, and ones that start
    /// before `from`), ordered by end position: disjoint ranges split one search exactly.
    pub(crate) fn hits_in(&self, text: &str, from: usize, to: usize) -> Vec<Hit> {
        let bytes = &text.as_bytes()[..to];
        let mut hits = Vec::new();
        let warm = self.dfa.max_pattern_len();
        // Replay the bytes before a slice (not reported) so a walk starts in the exact state a
        // single walk from the start of the text would be in there.
        let warmed = |at: usize| {
            bytes[at.saturating_sub(warm)..at]
                .iter()
                .fold(self.start, |sid, &byte| {
                    self.dfa.next_state(Anchored::No, sid, byte)
                })
        };
        if to - from < MIN_SPLIT_LEN {
            self.walk(bytes, from, warmed(from), &mut hits);
            return hits;
        }
        let lane_len = (to - from) / LANES;
        let starts: [usize; LANES] = std::array::from_fn(|lane| from + lane * lane_len);
        let mut lanes: [Vec<Hit>; LANES] = Default::default();
        let mut sid: [StateID; LANES] = starts.map(warmed);
        // Four independent walks in lockstep; separate slices keep the loop free of bounds
        // checks and the states in registers.
        let [s0, s1, s2, s3] = starts.map(|at| &bytes[at..at + lane_len]);
        let lockstep = s0.iter().zip(s1).zip(s2).zip(s3).enumerate();
        for (step, (((&b0, &b1), &b2), &b3)) in lockstep {
            sid[0] = self.dfa.next_state(Anchored::No, sid[0], b0);
            sid[1] = self.dfa.next_state(Anchored::No, sid[1], b1);
            sid[2] = self.dfa.next_state(Anchored::No, sid[2], b2);
            sid[3] = self.dfa.next_state(Anchored::No, sid[3], b3);
            if self.dfa.is_special(sid[0])
                || self.dfa.is_special(sid[1])
                || self.dfa.is_special(sid[2])
                || self.dfa.is_special(sid[3])
            {
                for (lane, out) in lanes.iter_mut().enumerate() {
                    self.report(sid[lane], starts[lane] + step + 1, out);
                }
            }
        }
        // The last lane also owns the remainder of the division.
        let last = LANES - 1;
        self.walk(bytes, starts[last] + lane_len, sid[last], &mut lanes[last]);
        hits.reserve(lanes.iter().map(Vec::len).sum());
        for lane in lanes {
            hits.extend(lane);
        }
        hits
    }

    /// One walk over `bytes[from..]`, starting in state `sid`.
    fn walk(&self, bytes: &[u8], from: usize, mut sid: StateID, out: &mut Vec<Hit>) {
        for (offset, &byte) in bytes[from..].iter().enumerate() {
            sid = self.dfa.next_state(Anchored::No, sid, byte);
            if self.dfa.is_special(sid) {
                self.report(sid, from + offset + 1, out);
            }
        }
    }

    /// Records every keyword ending at `end` in state `sid` (a match state lists all of them,
    /// suffixes included, under `MatchKind::Standard`).
    fn report(&self, sid: StateID, end: usize, out: &mut Vec<Hit>) {
        if !self.dfa.is_match(sid) {
            return;
        }
        for index in 0..self.dfa.match_len(sid) {
            out.push(Hit {
                pattern: self.dfa.match_pattern(sid, index).as_usize(),
                end,
            });
        }
    }
}

#[cfg(test)]
#[path = "keywords_tests.rs"]
mod tests;
