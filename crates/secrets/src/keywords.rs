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
        let mut hits = Vec::new();
        self.hits_in(text, 0, text.len(), &mut LaneHits::default(), &mut hits);
        hits
    }

    /// Appends to `out` the occurrences that end in `(from, to]` (overlapping ones included,
    /// and ones that start before `from`), ordered by end position: disjoint ranges split one
    /// search exactly, so a caller walks a long text in blocks and handles each block's hits
    /// while that part of the text is still in cache. `lanes` is scratch space.
    pub(crate) fn hits_in(
        &self,
        text: &str,
        from: usize,
        to: usize,
        lanes: &mut LaneHits,
        out: &mut Vec<Hit>,
    ) {
        let bytes = &text.as_bytes()[..to];
        if to - from < MIN_SPLIT_LEN {
            self.walk(bytes, from, self.warmed(bytes, from), out);
            return;
        }
        let lane_len = (to - from) / LANES;
        let starts: [usize; LANES] = std::array::from_fn(|lane| from + lane * lane_len);
        for lane in &mut lanes.0 {
            lane.clear();
        }
        let [s0, s1, s2, s3] = starts.map(|at| &bytes[at..at + lane_len]);
        let [mut q0, mut q1, mut q2, mut q3] = starts.map(|at| self.warmed(bytes, at));
        // Four independent walks in lockstep: the loop keeps only the four states and the four
        // positions live (in registers), and leaves at once to the out-of-line report when a
        // lane reaches a match state.
        let lockstep = s0.iter().zip(s1).zip(s2).zip(s3).enumerate();
        for (step, (((&b0, &b1), &b2), &b3)) in lockstep {
            q0 = self.dfa.next_state(Anchored::No, q0, b0);
            q1 = self.dfa.next_state(Anchored::No, q1, b1);
            q2 = self.dfa.next_state(Anchored::No, q2, b2);
            q3 = self.dfa.next_state(Anchored::No, q3, b3);
            if self.dfa.is_special(q0)
                | self.dfa.is_special(q1)
                | self.dfa.is_special(q2)
                | self.dfa.is_special(q3)
            {
                self.report_lanes([q0, q1, q2, q3], starts.map(|at| at + step + 1), lanes);
            }
        }
        // The last lane also owns the remainder of the division.
        let last = LANES - 1;
        self.walk(bytes, starts[last] + lane_len, q3, &mut lanes.0[last]);
        out.reserve(lanes.0.iter().map(Vec::len).sum());
        for lane in &lanes.0 {
            out.extend_from_slice(lane);
        }
    }

    /// The state a walk from the start of the text is in at `at`: the bytes before it (at most
    /// the longest keyword) are replayed, not reported.
    fn warmed(&self, bytes: &[u8], at: usize) -> StateID {
        bytes[at.saturating_sub(self.dfa.max_pattern_len())..at]
            .iter()
            .fold(self.start, |sid, &byte| {
                self.dfa.next_state(Anchored::No, sid, byte)
            })
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

    /// [`Self::report`] for each lane.
    #[inline(never)]
    fn report_lanes(&self, sids: [StateID; LANES], ends: [usize; LANES], lanes: &mut LaneHits) {
        for ((sid, end), out) in sids.into_iter().zip(ends).zip(&mut lanes.0) {
            self.report(sid, end, out);
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

/// Per-lane hit buffers, kept by the caller across blocks so that a walk does not allocate.
#[derive(Debug, Default)]
pub(crate) struct LaneHits([Vec<Hit>; LANES]);

#[cfg(test)]
#[path = "keywords_tests.rs"]
mod tests;
