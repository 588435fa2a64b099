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

use regex_automata::meta::Regex;
use regex_automata::util::captures::Captures;
use regex_automata::{Anchored, Input, PatternID};
use regex_syntax::hir::{Hir, HirKind};

use crate::keywords::{Hit, Keywords, LaneHits};
use crate::value;
use crate::{Anchor, Assignment, Finding, Rule, SecretsError, rules};

/// Furthest a [`Anchor::LineStart`] rule's line may start before its keyword.
const LINE_LEAD: usize = 128;
/// Furthest a [`Anchor::WordStart`] rule's word may start before its keyword.
const WORD_LEAD: usize = 96;
/// Longest lead (in characters) for which a windowed rule tries anchored matches instead of
/// scanning a window.
const MAX_TRIED_LEAD: usize = 16;

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

/// One rule, ready to run.
#[derive(Debug)]
struct CompiledRule {
    rule: &'static Rule,
    /// Position of `rule` in the table: lower wins ties between equal spans.
    index: usize,
    /// The pattern as written; anchored searches ask for an anchored match at a position of the
    /// whole text, so assertions such as `^` still see what precedes it.
    regex: Regex,
    /// Index of the `secret` group, if the rule has one.
    secret_group: Option<usize>,
    /// Half-width of a keyword window (windowed rules only).
    reach: usize,
    /// For windowed rules whose matches start at most `max` and at least `min` characters before
    /// a keyword occurrence (`min..=max`, `max` at most [`MAX_TRIED_LEAD`]): those positions are
    /// tried instead of scanning a window.
    lead: Option<(usize, usize)>,
    /// Bytes every match starts with (anchored rules only; often empty).
    prefix: Vec<u8>,
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

/// Where the name around a keyword occurrence ends and what follows it (see [`assigned_value`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Separator {
    /// The separator (`:` or `=`) follows the name directly.
    tight: bool,
    /// After the separator (read as one byte, or as `:=` / `=>`) and blanks comes a quote or a
    /// backslash.
    quoted: bool,
    /// After the one-byte separator and blanks comes something else.
    unquoted: bool,
    /// After the one-byte separator and blanks comes a line value (see [`is_line_value`]).
    line_value: bool,
}

impl Separator {
    fn allows(self, assignment: Assignment) -> bool {
        match assignment {
            Assignment::NotRequired | Assignment::Any => true,
            Assignment::Tight => self.tight,
            Assignment::Quoted => self.quoted,
            Assignment::Unquoted => self.unquoted,
            Assignment::LineValue => self.line_value,
        }
    }
}

/// The separator after the name around a keyword ending at `end`, if the name is followed by
/// `:` or `=`: the rest of the name (`_key`, `_API_KEY`), then at most a few quotes,
/// backslashes and blanks. A necessary condition for every assignment rule's match (and its
/// flags for the narrower [`Assignment`]s), checked in a few bytes.
fn assigned_value(text: &str, end: usize) -> Option<Separator> {
    let bytes = text.as_bytes();
    let name_end = bytes[end..]
        .iter()
        .take(64)
        .position(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')))
        .map_or(bytes.len(), |n| end + n);
    let at = name_end
        + bytes[name_end..]
            .iter()
            .take(12)
            .position(|b| !matches!(b, b'"' | b'\'' | b'\\' | b' ' | b'\t'))?;
    let separator = bytes[at];
    if !matches!(separator, b':' | b'=') {
        return None;
    }
    // Where the value starts: the first byte after `from` that is not a blank.
    let value_at = |from: usize| {
        bytes
            .get(from..)
            .and_then(|rest| rest.iter().position(|b| !matches!(b, b' ' | b'\t')))
            .map(|blanks| from + blanks)
    };
    let is_quote = |b: &u8| matches!(b, b'"' | b'\'' | b'`' | b'\\');
    let first_at = value_at(at + 1);
    let first = first_at.map(|i| &bytes[i]);
    let long = matches!(
        (separator, bytes.get(at + 1)),
        (b':', Some(b'=')) | (b'=', Some(b'>'))
    );
    Some(Separator {
        tight: at == name_end && separator == b'=',
        quoted: first.is_some_and(is_quote)
            || (long && value_at(at + 2).is_some_and(|i| is_quote(&bytes[i]))),
        unquoted: first.is_some_and(|b| !is_quote(b)),
        line_value: first_at.is_some_and(|i| is_line_value(&bytes[i..])),
    })
}

/// Shortest and longest value of an [`Assignment::LineValue`] rule.
const LINE_VALUE_LEN: (usize, usize) = (8, 256);

/// Whether `value` starts with what [`Assignment::LineValue`] asks for: at least 8 bytes of
/// visible ASCII other than quotes, backslashes, brackets and `<>,;&`, ending at a `#` or at the
/// end of the line (blanks before it allowed). Values are at most 256 bytes, so only that many
/// are read: on a long run, only a `#` inside can end the value.
fn is_line_value(value: &[u8]) -> bool {
    let (min, max) = LINE_VALUE_LEN;
    let in_value = |b: &&u8| {
        (0x21..=0x7E).contains(*b)
            && !matches!(
                b,
                b'"' | b'\''
                    | b'`'
                    | b'\\'
                    | b'<'
                    | b'>'
                    | b'('
                    | b')'
                    | b'{'
                    | b'}'
                    | b'['
                    | b']'
                    | b','
                    | b';'
                    | b'&'
            )
    };
    let run = value.iter().take(max + 1).take_while(in_value).count();
    if run < min {
        return false;
    }
    if value[min..run].contains(&b'#') {
        return true;
    }
    run <= max
        && matches!(
            value[run..].iter().find(|b| !matches!(b, b' ' | b'\t')),
            None | Some(b'#' | b'\r' | b'\n')
        )
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

fn compile(rule: &'static Rule, index: usize) -> Result<CompiledRule, SecretsError> {
    if rule.keywords.is_empty() {
        return Err(SecretsError::NoKeywords { rule_id: rule.id });
    }
    let invalid = |source: regex::Error| SecretsError::InvalidPattern {
        rule_id: rule.id,
        source: Box::new(source),
    };
    let syntax_error = |err: &dyn std::fmt::Display| invalid(regex::Error::Syntax(err.to_string()));
    let hir = regex_syntax::Parser::new()
        .parse(rule.pattern)
        .map_err(|err| syntax_error(&err))?;
    let regex = Regex::builder()
        .build_from_hir(&hir)
        .map_err(|err| syntax_error(&err))?;
    let (reach, lead, prefix) = if rule.anchor == Anchor::Window {
        let reach = hir
            .properties()
            .maximum_len()
            .or(rule.max_len)
            .ok_or(SecretsError::UnboundedPattern { rule_id: rule.id })?;
        let lead = lead(&hir, rule.keywords).filter(|&(_, max)| max <= MAX_TRIED_LEAD);
        (reach, lead, Vec::new())
    } else {
        (0, None, literal_prefix(&hir))
    };
    let secret_group = regex.group_info().to_index(PatternID::ZERO, "secret");
    Ok(CompiledRule {
        rule,
        index,
        regex,
        secret_group,
        reach,
        lead,
        prefix,
    })
}

/// How far before a keyword occurrence a match of `hir` starts (`(min, max)` characters), when
/// every match is some text of bounded length followed by one of `keywords` (compared ASCII
/// case-insensitively), or holds one inside a literal; `None` when that cannot be shown from the
/// pattern. Counted in characters, not bytes: a boundary such as `[^0-9A-Za-z]` is one
/// character, so there are two places to try (the keyword's start and one character before),
/// not the five its one to four bytes would give.
fn lead(hir: &Hir, keywords: &[&str]) -> Option<(usize, usize)> {
    let mut items = Vec::new();
    flatten(hir, &mut items);
    let mut extractor = regex_syntax::hir::literal::Extractor::new();
    extractor.kind(regex_syntax::hir::literal::ExtractKind::Prefix);
    let (mut min, mut max) = (0, 0);
    for (i, item) in items.iter().enumerate() {
        let rest = Hir::concat(items[i..].iter().map(|h| (*h).clone()).collect());
        let starts_with_keyword = extractor.extract(&rest).literals().is_some_and(|literals| {
            !literals.is_empty()
                && literals.iter().all(|literal| {
                    keywords.iter().any(|keyword| {
                        literal
                            .as_bytes()
                            .get(..keyword.len())
                            .is_some_and(|head| head.eq_ignore_ascii_case(keyword.as_bytes()))
                    })
                })
        });
        if starts_with_keyword {
            return Some((min, max));
        }
        // A keyword inside a literal (`-----BEGIN OPENSSH PRIVATE KEY-----`).
        if let HirKind::Literal(literal) = item.kind()
            && let Some(at) = keywords
                .iter()
                .filter_map(|keyword| find_ignore_ascii_case(&literal.0, keyword.as_bytes()))
                .min()
        {
            let skipped = std::str::from_utf8(&literal.0[..at]).ok()?.chars().count();
            return Some((min + skipped, max + skipped));
        }
        let (item_min, item_max) = char_len(item)?;
        min += item_min;
        max += item_max;
    }
    None
}

/// Where `needle` first occurs in `haystack`, ASCII case-insensitively.
fn find_ignore_ascii_case(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    if needle.is_empty() {
        return None;
    }
    haystack
        .windows(needle.len())
        .position(|window| window.eq_ignore_ascii_case(needle))
}

/// How many characters a match of `hir` spans (`(min, max)`), when bounded.
fn char_len(hir: &Hir) -> Option<(usize, usize)> {
    match hir.kind() {
        HirKind::Empty | HirKind::Look(_) => Some((0, 0)),
        HirKind::Literal(literal) => {
            let chars = std::str::from_utf8(&literal.0).ok()?.chars().count();
            Some((chars, chars))
        }
        // A class matches one character (byte classes, allowed in UTF-8 patterns only for
        // ASCII, one byte that is one character).
        HirKind::Class(_) => Some((1, 1)),
        HirKind::Repetition(repetition) => {
            let (min, max) = char_len(&repetition.sub)?;
            let times = |n: usize, count: u32| n.checked_mul(usize::try_from(count).ok()?);
            Some((times(min, repetition.min)?, times(max, repetition.max?)?))
        }
        HirKind::Capture(capture) => char_len(&capture.sub),
        HirKind::Concat(items) => {
            items
                .iter()
                .try_fold((0, 0), |(min, max): (usize, usize), item| {
                    let (item_min, item_max) = char_len(item)?;
                    Some((min.checked_add(item_min)?, max.checked_add(item_max)?))
                })
        }
        HirKind::Alternation(alternatives) => {
            alternatives.iter().try_fold(None, |bounds, alternative| {
                let (min, max) = char_len(alternative)?;
                Some(Some(
                    bounds.map_or((min, max), |(lo, hi): (usize, usize)| {
                        (lo.min(min), hi.max(max))
                    }),
                ))
            })?
        }
    }
}

/// The items of `hir` read in sequence: nested concatenations and groups are opened.
fn flatten<'h>(hir: &'h Hir, out: &mut Vec<&'h Hir>) {
    match hir.kind() {
        HirKind::Concat(items) => items.iter().for_each(|item| flatten(item, out)),
        HirKind::Capture(capture) => flatten(&capture.sub, out),
        HirKind::Empty
        | HirKind::Literal(_)
        | HirKind::Class(_)
        | HirKind::Look(_)
        | HirKind::Repetition(_)
        | HirKind::Alternation(_) => out.push(hir),
    }
}

/// The longest byte string every match of `hir` starts with (empty if none is known).
fn literal_prefix(hir: &Hir) -> Vec<u8> {
    let seq = regex_syntax::hir::literal::Extractor::new().extract(hir);
    let Some(literals) = seq.literals() else {
        return Vec::new();
    };
    let mut iter = literals
        .iter()
        .map(regex_syntax::hir::literal::Literal::as_bytes);
    let Some(first) = iter.next() else {
        return Vec::new();
    };
    iter.fold(first.to_vec(), |mut common, literal| {
        let shared = common
            .iter()
            .zip(literal)
            .take_while(|(a, b)| a == b)
            .count();
        common.truncate(shared);
        common
    })
}

#[cfg(test)]
#[path = "engine_tests.rs"]
mod tests;
