//! The compiled rule set and the per-call search.
//!
//! Compiled once in a `LazyLock`. A call makes one overlapping aho-corasick pass over the text
//! to find keyword occurrences; each occurrence opens a window of `reach` bytes on both sides
//! for the rules that own the keyword (`reach` is the longest text a rule's regex can match, so
//! every match containing that occurrence fits inside). Windows of one rule are merged and its
//! regex runs only inside them. Text with no keywords therefore costs one automaton pass, and
//! text with a few costs a few short regex searches instead of dozens of full-text scans.
//!
//! Why a window never changes a verdict: every match contains a keyword occurrence and is at
//! most `reach` long, so it lies inside that occurrence's window; and a search cut off at the
//! window's end cannot invent a match there (`$`), since that match would be longer than `reach`.

use std::sync::LazyLock;

use aho_corasick::{AhoCorasick, MatchKind};
use regex::{CaptureLocations, Regex};

use crate::value;
use crate::{Finding, Rule, SecretsError, rules};

static ENGINE: LazyLock<Engine> = LazyLock::new(|| Engine::new(rules::RULES));

/// The process-wide engine, compiled on first use.
pub(crate) fn engine() -> &'static Engine {
    &ENGINE
}

/// One rule, ready to run.
#[derive(Debug)]
struct CompiledRule {
    rule: &'static Rule,
    /// Position of `rule` in the table: lower wins ties between equal spans.
    index: usize,
    regex: Regex,
    /// Capture slot of the `secret` group, if the rule has one.
    secret_group: Option<usize>,
    /// Longest text in bytes the regex can match: the half-width of a keyword window.
    reach: usize,
}

/// All compiled rules plus the keyword automaton that selects them.
#[derive(Debug)]
pub(crate) struct Engine {
    rules: Vec<CompiledRule>,
    /// `None` only if the automaton failed to build; then every rule scans the whole text.
    keywords: Option<AhoCorasick>,
    /// For each automaton pattern, the positions in `rules` that own that keyword.
    owners: Vec<Vec<usize>>,
    problems: Vec<SecretsError>,
}

/// A finding before overlaps are merged: keeps the rule's table position for tie-breaks.
#[derive(Debug, Clone, Copy)]
struct Candidate {
    start: usize,
    end: usize,
    rule: usize,
    rule_id: &'static str,
}

impl Engine {
    fn new(table: &'static [Rule]) -> Self {
        let mut problems = Vec::new();
        let mut rules = Vec::with_capacity(table.len());
        for (index, rule) in table.iter().enumerate() {
            match compile(rule, index) {
                Ok(compiled) => rules.push(compiled),
                Err(problem) => problems.push(problem),
            }
        }

        // One automaton pattern per distinct (lower-cased) keyword, shared by its owners.
        let mut patterns: Vec<String> = Vec::new();
        let mut owners: Vec<Vec<usize>> = Vec::new();
        for (position, compiled) in rules.iter().enumerate() {
            for keyword in compiled.rule.keywords {
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
        let keywords = AhoCorasick::builder()
            .ascii_case_insensitive(true)
            .match_kind(MatchKind::Standard)
            .build(&patterns)
            .map_err(|err| problems.push(err.into()))
            .ok();

        Self {
            rules,
            keywords,
            owners,
            problems,
        }
    }

    pub(crate) fn problems(&self) -> &[SecretsError] {
        &self.problems
    }

    pub(crate) fn find(&self, text: &str) -> Vec<Finding> {
        if text.is_empty() {
            return Vec::new();
        }
        let mut candidates = Vec::new();
        match &self.keywords {
            Some(automaton) => {
                let windows = self.windows(automaton, text);
                for (position, spans) in windows.iter().enumerate() {
                    let mut locations = None;
                    for &(lo, hi) in spans {
                        let compiled = &self.rules[position];
                        let locs =
                            locations.get_or_insert_with(|| compiled.regex.capture_locations());
                        scan(compiled, text, lo, hi, locs, &mut candidates);
                    }
                }
            }
            None => {
                for compiled in &self.rules {
                    let mut locs = compiled.regex.capture_locations();
                    scan(compiled, text, 0, text.len(), &mut locs, &mut candidates);
                }
            }
        }
        collapse(candidates)
    }

    /// Merged keyword windows per rule (indexed like `self.rules`), as `char`-aligned ranges.
    fn windows(&self, automaton: &AhoCorasick, text: &str) -> Vec<Vec<(usize, usize)>> {
        let mut windows: Vec<Vec<(usize, usize)>> = Vec::new();
        for hit in automaton.find_overlapping_iter(text) {
            if windows.is_empty() {
                windows.resize_with(self.rules.len(), Vec::new);
            }
            for &position in &self.owners[hit.pattern().as_usize()] {
                let reach = self.rules[position].reach;
                let lo = text.floor_char_boundary(hit.start().saturating_sub(reach));
                let hi = text.ceil_char_boundary(hit.end().saturating_add(reach));
                let spans = &mut windows[position];
                // Hits arrive by end position and a rule's windows share one reach, so a new
                // window either overlaps the last one or lies after it.
                match spans.last_mut() {
                    Some(last) if lo <= last.1 => {
                        last.0 = last.0.min(lo);
                        last.1 = last.1.max(hi);
                    }
                    _ => spans.push((lo, hi)),
                }
            }
        }
        windows
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

/// Runs one rule's regex over `text[lo..hi]` (seeing the text before `lo` as context) and
/// records every vetted `secret` span.
fn scan(
    compiled: &CompiledRule,
    text: &str,
    lo: usize,
    hi: usize,
    locs: &mut CaptureLocations,
    out: &mut Vec<Candidate>,
) {
    let haystack = &text[..hi];
    let mut at = lo;
    while at < hi {
        let Some(found) = compiled.regex.captures_read_at(locs, haystack, at) else {
            break;
        };
        let (start, end) = compiled
            .secret_group
            .and_then(|slot| locs.get(slot))
            .unwrap_or((found.start(), found.end()));
        if end > start && value::accepts(compiled.rule.check, &text[start..end]) {
            out.push(Candidate {
                start,
                end,
                rule: compiled.index,
                rule_id: compiled.rule.id,
            });
        }
        // Resume at the end of the secret, not of the match: a trailing boundary character
        // may be the leading boundary of the next secret.
        let next_after_start = found.start()
            + haystack[found.start()..]
                .chars()
                .next()
                .map_or(1, char::len_utf8);
        at = end.max(next_after_start);
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
    let regex = Regex::new(rule.pattern).map_err(invalid)?;
    let bound = regex_syntax::Parser::new()
        .parse(rule.pattern)
        .map_err(|err| invalid(regex::Error::Syntax(err.to_string())))?
        .properties()
        .maximum_len();
    let reach = bound
        .or(rule.max_len)
        .ok_or(SecretsError::UnboundedPattern { rule_id: rule.id })?;
    let secret_group = regex
        .capture_names()
        .position(|name| name == Some("secret"));
    Ok(CompiledRule {
        rule,
        index,
        regex,
        secret_group,
        reach,
    })
}

#[cfg(test)]
#[path = "engine_tests.rs"]
mod tests;
