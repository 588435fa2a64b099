//! The compiled rule set and the per-call search.
//!
//! Compiled once in a `LazyLock`, each rule when a text first wakes it (or all at once, ahead of
//! time, with `prepare`). A call makes one pass of the keyword automaton over the text (see
//! `keywords.rs`), 64 KiB at a time so that the text around each block's keyword occurrences is
//! still in cache when they are handled; for each occurrence and each rule owning the keyword:
//!
//! - [`Anchor::Window`] rules (vendor tokens, rare keywords) whose every match starts with one
//!   of their keywords after at most a few characters (`lead`, derived from the pattern:
//!   typically a boundary character before `ghp_`) try one anchored match at each of those few
//!   positions.
//!   Other windowed rules get a window of `reach` bytes on both sides, `reach` being the longest
//!   text the regex can match, so every match containing the occurrence fits inside; a rule's
//!   windows are merged and its regex scans only them.
//! - Anchored rules (key-name rules on common words such as `token`) try a single match at one
//!   position derived from the occurrence, and assignment rules first check in a few bytes that
//!   the name is followed by `:` or `=`. On ordinary code most occurrences stop there, which is
//!   what keeps keyword-dense text fast.
//!
//! Why a window never changes a verdict: every match contains a keyword occurrence and is at
//! most `reach` long, so it lies inside that occurrence's window; and a search cut off at the
//! window's end cannot invent a match there (`$`), since that match would be longer than `reach`.

use std::sync::{LazyLock, OnceLock};

use regex_automata::util::captures::Captures;
use regex_automata::{Anchored, Input};

use crate::assignment::assigned_value;
use crate::compile::{CompiledRule, compile};
use crate::keywords::{Hit, Keywords, LaneHits};
use crate::value;
use crate::{Anchor, Assignment, Finding, Rule, SecretsError, rules};

/// Furthest a [`Anchor::LineStart`] rule's line may start before its keyword.
const LINE_LEAD: usize = 128;
/// Furthest a [`Anchor::WordStart`] rule's word may start before its keyword.
const WORD_LEAD: usize = 96;
/// Longest lead (in characters) for which a windowed rule tries anchored matches instead of
/// scanning a window.
pub(crate) const MAX_TRIED_LEAD: usize = 16;

static ENGINE: LazyLock<Engine> = LazyLock::new(|| Engine::new(rules::RULES));

/// The process-wide engine, compiled on first use.
pub(crate) fn engine() -> &'static Engine {
    &ENGINE
}

/// Texts at least this long are searched in parts on several threads.
const PARALLEL_PART: usize = 1 << 20;
/// At most this many parts.
const MAX_PARTS: usize = 8;
/// A part's keyword occurrences are found and handled this many bytes at a time, so the text
/// around them is still in cache and the hit list stays small.
const BLOCK: usize = 64 * 1024;

/// Threads worth using for one search (asked once: it may read cgroup files).
static CORES: LazyLock<usize> =
    LazyLock::new(|| std::thread::available_parallelism().map_or(1, usize::from));

/// A rule of the table, compiled on first use: most texts wake only a few rules, and compiling
/// all of them costs more than scanning megabytes.
#[derive(Debug)]
struct LazyRule {
    rule: &'static Rule,
    index: usize,
    compiled: OnceLock<Result<CompiledRule, SecretsError>>,
}

impl LazyRule {
    /// The compiled rule; `None` when it does not compile (reported by `problems`).
    fn get(&self) -> Option<&CompiledRule> {
        self.compiled
            .get_or_init(|| compile(self.rule, self.index))
            .as_ref()
            .ok()
    }
}

/// All compiled rules plus the keyword automaton that selects them.
#[derive(Debug)]
pub(crate) struct Engine {
    rules: Vec<LazyRule>,
    /// `None` only if the automaton failed to build; then every rule scans the whole text.
    keywords: Option<Keywords>,
    /// For each automaton pattern, the positions in `rules` that own that keyword.
    owners: Vec<Vec<usize>>,
    /// Why the automaton could not be built.
    prefilter_problem: Option<SecretsError>,
    /// Every rule's compile error, then the automaton's (compiles every rule when first asked).
    problems: OnceLock<Vec<SecretsError>>,
}

/// A finding before overlaps are merged: keeps the rule's table position for tie-breaks.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    start: usize,
    end: usize,
    rule: usize,
    rule_id: &'static str,
}

/// Per-call scratch space for one rule.
#[derive(Debug, Default)]
struct RuleState {
    /// Merged windows, for windowed rules.
    windows: Vec<(usize, usize)>,
    /// Last position tried, for anchored rules (occurrences of several keywords often map to
    /// the same anchor).
    last_anchor: Option<usize>,
    /// Positions already tried by a windowed rule with a lead (`lo..hi`).
    tried: (usize, usize),
    locs: Option<Captures>,
}

impl Engine {
    fn new(table: &'static [Rule]) -> Self {
        let rules: Vec<LazyRule> = table
            .iter()
            .enumerate()
            .map(|(index, rule)| LazyRule {
                rule,
                index,
                compiled: OnceLock::new(),
            })
            .collect();

        // One automaton pattern per distinct (lower-cased) keyword, shared by its owners.
        let mut patterns: Vec<String> = Vec::new();
        let mut owners: Vec<Vec<usize>> = Vec::new();
        for (position, lazy) in rules.iter().enumerate() {
            for keyword in lazy.rule.keywords {
                let keyword = keyword.to_ascii_lowercase();
                let slot = match patterns.iter().position(|p| *p == keyword) {
                    Some(slot) => slot,
                    None => {
                        patterns.push(keyword);
                        owners.push(Vec::new());
                        owners.len() - 1
                    }
                };
                if !owners[slot].contains(&position) {
                    owners[slot].push(position);
                }
            }
        }
        let (keywords, prefilter_problem) = match Keywords::new(&patterns) {
            Ok(keywords) => (Some(keywords), None),
            Err(problem) => (None, Some(problem)),
        };

        Self {
            rules,
            keywords,
            owners,
            prefilter_problem,
            problems: OnceLock::new(),
        }
    }

    /// Compiles every rule that is not compiled yet.
    pub(crate) fn compile_all(&self) {
        for lazy in &self.rules {
            lazy.get();
        }
    }

    pub(crate) fn problems(&self) -> &[SecretsError] {
        self.problems.get_or_init(|| {
            let mut problems: Vec<SecretsError> = self
                .rules
                .iter()
                .filter_map(|lazy| {
                    lazy.compiled
                        .get_or_init(|| compile(lazy.rule, lazy.index))
                        .as_ref()
                        .err()
                        .cloned()
                })
                .collect();
            problems.extend(self.prefilter_problem.clone());
            problems
        })
    }

    /// Every rule that compiles, compiling them all.
    #[cfg(test)]
    fn compiled_rules(&self) -> impl Iterator<Item = &CompiledRule> {
        self.rules.iter().filter_map(LazyRule::get)
    }

    pub(crate) fn find(&self, text: &str) -> Vec<Finding> {
        if text.is_empty() {
            return Vec::new();
        }
        let mut candidates = Vec::new();
        match &self.keywords {
            Some(keywords) => self.search_parts(keywords, text, &mut candidates),
            None => {
                for compiled in self.rules.iter().filter_map(LazyRule::get) {
                    let mut locs = compiled.regex.create_captures();
                    if compiled.rule.anchor == Anchor::Window {
                        scan(compiled, text, 0, text.len(), &mut locs, &mut candidates);
                    } else {
                        for (at, _) in text.char_indices() {
                            anchored(compiled, text, at, &mut locs, &mut candidates);
                        }
                    }
                }
            }
        }
        collapse(candidates)
    }

    /// Splits a long text into parts searched on several threads. Each part takes the keyword
    /// occurrences that end inside it and reads the text around them freely, so the union of
    /// the parts' candidates is what one search finds (duplicates from windows that straddle
    /// a cut merge in `collapse`).
    fn search_parts(&self, keywords: &Keywords, text: &str, out: &mut Vec<Candidate>) {
        let parts = (text.len() / PARALLEL_PART).min(*CORES).min(MAX_PARTS);
        if parts <= 1 {
            self.search(keywords, text, 0, text.len(), out);
            return;
        }
        let size = text.len() / parts;
        let cuts: Vec<usize> = (0..=parts)
            .map(|part| {
                if part == parts {
                    text.len()
                } else {
                    part * size
                }
            })
            .collect();
        std::thread::scope(|scope| {
            let mut others = Vec::with_capacity(parts - 1);
            for w in cuts[1..].windows(2) {
                let (from, to) = (w[0], w[1]);
                let spawned = std::thread::Builder::new().spawn_scoped(scope, move || {
                    let mut found = Vec::new();
                    self.search(keywords, text, from, to, &mut found);
                    found
                });
                match spawned {
                    Ok(handle) => others.push(handle),
                    // No thread to be had: search that part here.
                    Err(_) => self.search(keywords, text, from, to, out),
                }
            }
            self.search(keywords, text, cuts[0], cuts[1], out);
            for handle in others {
                match handle.join() {
                    Ok(found) => out.extend(found),
                    Err(panic) => std::panic::resume_unwind(panic),
                }
            }
        });
    }

    /// Handles the keyword occurrences ending in `(from, to]`.
    fn search(
        &self,
        keywords: &Keywords,
        text: &str,
        from: usize,
        to: usize,
        out: &mut Vec<Candidate>,
    ) {
        let mut states: Vec<RuleState> = Vec::new();
        let mut lanes = LaneHits::default();
        let mut hits = Vec::new();
        let mut block_from = from;
        while block_from < to {
            let block_to = to.min(block_from.saturating_add(BLOCK));
            hits.clear();
            keywords.hits_in(text, block_from, block_to, &mut lanes, &mut hits);
            block_from = block_to;
            if hits.is_empty() {
                continue;
            }
            if states.is_empty() {
                states.resize_with(self.rules.len(), RuleState::default);
            }
            self.handle_hits(keywords, text, &hits, &mut states, out);
        }
        for (lazy, state) in self.rules.iter().zip(&mut states) {
            // Only rules with windows: `get` compiles the rule.
            if state.windows.is_empty() {
                continue;
            }
            let Some(compiled) = lazy.get() else {
                continue;
            };
            for &(lo, hi) in &state.windows {
                let locs = state
                    .locs
                    .get_or_insert_with(|| compiled.regex.create_captures());
                scan(compiled, text, lo, hi, locs, out);
            }
        }
    }

    /// Runs the anchored and lead rules of each keyword occurrence and adds the windows of the
    /// windowed ones to their rule's state.
    fn handle_hits(
        &self,
        keywords: &Keywords,
        text: &str,
        hits: &[Hit],
        states: &mut [RuleState],
        out: &mut Vec<Candidate>,
    ) {
        for &hit in hits {
            let start = keywords.start_of(hit);
            // The same for every owner of the keyword: computed for the first that asks.
            let mut separator = None;
            for &position in &self.owners[hit.pattern] {
                let Some(compiled) = self.rules[position].get() else {
                    continue;
                };
                if compiled.rule.assignment != Assignment::NotRequired {
                    let found = *separator.get_or_insert_with(|| assigned_value(text, hit.end));
                    if !found.is_some_and(|s| s.allows(compiled.rule.assignment)) {
                        continue;
                    }
                }
                let state = &mut states[position];
                let at = match (compiled.rule.anchor, compiled.lead) {
                    (Anchor::Window, Some(lead)) => {
                        try_lead(compiled, state, text, start, lead, out);
                        continue;
                    }
                    (Anchor::Window, None) => {
                        add_window(state, text, start, hit.end, compiled.reach);
                        continue;
                    }
                    (Anchor::Keyword, _) => Some(start),
                    (Anchor::LineStart, _) => line_start(text, start),
                    (Anchor::WordStart, _) => word_start(text, start),
                };
                let Some(at) = at else { continue };
                if state.last_anchor == Some(at)
                    || !starts_with(&text.as_bytes()[at..], &compiled.prefix)
                {
                    continue;
                }
                state.last_anchor = Some(at);
                let locs = state
                    .locs
                    .get_or_insert_with(|| compiled.regex.create_captures());
                anchored(compiled, text, at, locs, out);
            }
        }
    }
}

/// `haystack.starts_with(prefix)` for the few bytes of a rule's prefix, without a `memcmp` call.
fn starts_with(haystack: &[u8], prefix: &[u8]) -> bool {
    haystack.len() >= prefix.len() && haystack.iter().zip(prefix).all(|(a, b)| a == b)
}

/// Tries the anchored matches a windowed rule with a lead can have around a keyword occurrence
/// starting at `start` (`min..=max` characters before it), skipping positions the previous
/// occurrence already tried.
fn try_lead(
    compiled: &CompiledRule,
    state: &mut RuleState,
    text: &str,
    start: usize,
    (min, max): (usize, usize),
    out: &mut Vec<Candidate>,
) {
    let Some(hi) = chars_back(text, start, min).map(|hi| hi + 1) else {
        return;
    };
    // The start of the text when it has fewer than `max` characters before `start`.
    let lo = chars_back(text, start, max).unwrap_or(0);
    let (done_lo, done_hi) = state.tried;
    let locs = state
        .locs
        .get_or_insert_with(|| compiled.regex.create_captures());
    for at in lo..hi {
        if (done_lo..done_hi).contains(&at) || !text.is_char_boundary(at) {
            continue;
        }
        // A match is at most `reach` long: the cut bounds a failing attempt's work (as a
        // window's end does) and cannot invent a match there (it would be longer than `reach`).
        let cut = text.ceil_char_boundary(at.saturating_add(compiled.reach));
        anchored(compiled, &text[..cut], at, locs, out);
    }
    state.tried = if lo <= done_hi && done_lo <= hi {
        (lo.min(done_lo), hi.max(done_hi))
    } else {
        (lo, hi)
    };
}

/// The position `n` characters before `at`, if the text has that many.
fn chars_back(text: &str, at: usize, n: usize) -> Option<usize> {
    match n.checked_sub(1) {
        None => Some(at),
        Some(skip) => text[..at].char_indices().rev().nth(skip).map(|(i, _)| i),
    }
}

/// Adds the window around a keyword occurrence, merging it with the previous one when they
/// overlap. Hits arrive by end position and a rule's windows share one reach, so a new window
/// either overlaps the last one or lies after it.
fn add_window(state: &mut RuleState, text: &str, start: usize, end: usize, reach: usize) {
    let lo = text.floor_char_boundary(start.saturating_sub(reach));
    let hi = text.ceil_char_boundary(end.saturating_add(reach));
    match state.windows.last_mut() {
        Some(last) if lo <= last.1 => {
            last.0 = last.0.min(lo);
            last.1 = last.1.max(hi);
        }
        _ => state.windows.push((lo, hi)),
    }
}

/// Start of the line containing `at`, if it is at most [`LINE_LEAD`] bytes back.
fn line_start(text: &str, at: usize) -> Option<usize> {
    let from = at.saturating_sub(LINE_LEAD);
    match text.as_bytes()[from..at].iter().rposition(|b| *b == b'\n') {
        Some(newline) => Some(from + newline + 1),
        None => (from == 0).then_some(0),
    }
}

/// Start of the whitespace-delimited word containing `at`, if it is at most [`WORD_LEAD`]
/// bytes back.
fn word_start(text: &str, at: usize) -> Option<usize> {
    let from = at.saturating_sub(WORD_LEAD);
    match text.as_bytes()[from..at]
        .iter()
        .rposition(u8::is_ascii_whitespace)
    {
        Some(space) => Some(from + space + 1),
        None => (from == 0).then_some(0),
    }
}

/// Sorts candidates and merges overlapping ones into the leftmost-longest span; touching
/// spans stay separate (two secrets written back to back are two findings).
fn collapse(mut candidates: Vec<Candidate>) -> Vec<Finding> {
    candidates.sort_unstable_by(|a, b| {
        a.start
            .cmp(&b.start)
            .then(b.end.cmp(&a.end))
            .then(a.rule.cmp(&b.rule))
    });
    let mut findings: Vec<Finding> = Vec::with_capacity(candidates.len());
    for candidate in candidates {
        if let Some(last) = findings.last_mut()
            && candidate.start < last.end
        {
            last.end = last.end.max(candidate.end);
            continue;
        }
        findings.push(Finding {
            rule_id: candidate.rule_id,
            start: candidate.start,
            end: candidate.end,
        });
    }
    findings
}

/// Records the `secret` span of one regex match, if its value passes the rule's
/// check. Returns where the secret ends.
fn record(
    compiled: &CompiledRule,
    text: &str,
    whole: (usize, usize),
    locs: &Captures,
    out: &mut Vec<Candidate>,
) -> usize {
    let (start, end) = compiled
        .secret_group
        .and_then(|group| locs.get_group(group))
        .map_or(whole, |span| (span.start, span.end));
    if end > start && value::accepts(compiled.rule.check, &text[start..end]) {
        out.push(Candidate {
            start,
            end,
            rule: compiled.index,
            rule_id: compiled.rule.id,
        });
    }
    end
}

/// Tries one match of a rule starting exactly at `at`; what precedes `at` is context.
fn anchored(
    compiled: &CompiledRule,
    text: &str,
    at: usize,
    locs: &mut Captures,
    out: &mut Vec<Candidate>,
) {
    let input = Input::new(text)
        .span(at..text.len())
        .anchored(Anchored::Yes);
    compiled.regex.search_captures(&input, locs);
    if let Some(found) = locs.get_match() {
        record(compiled, text, (found.start(), found.end()), locs, out);
    }
}

/// Runs a windowed rule's regex over `text[lo..hi]` (seeing the text before `lo` as context)
/// and records every vetted `secret` span.
fn scan(
    compiled: &CompiledRule,
    text: &str,
    lo: usize,
    hi: usize,
    locs: &mut Captures,
    out: &mut Vec<Candidate>,
) {
    let haystack = &text[..hi];
    let mut at = lo;
    while at < hi {
        compiled
            .regex
            .search_captures(&Input::new(haystack).span(at..hi), locs);
        let Some(found) = locs.get_match() else {
            break;
        };
        let end = record(compiled, text, (found.start(), found.end()), locs, out);
        // Resume at the end of the secret, not of the match: a trailing boundary character
        // may be the leading boundary of the next secret.
        let step = haystack[found.start()..]
            .chars()
            .next()
            .map_or(1, char::len_utf8);
        at = end.max(found.start() + step);
    }
}

#[cfg(test)]
#[path = "engine_tests.rs"]
mod tests;
