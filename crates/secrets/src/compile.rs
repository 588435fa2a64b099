//! Compiling one rule of the table, and what its pattern tells the search: how long a match
//! can be (a keyword window's reach), how far before its keyword it starts (the positions an
//! anchored try needs), and the bytes every match starts with.

use regex_automata::PatternID;
use regex_automata::meta::Regex;
use regex_syntax::hir::{Hir, HirKind};

use crate::engine::MAX_TRIED_LEAD;
use crate::{Anchor, Rule, SecretsError};

/// One rule, ready to run.
#[derive(Debug)]
pub(crate) struct CompiledRule {
    pub(crate) rule: &'static Rule,
    /// Position of `rule` in the table: lower wins ties between equal spans.
    pub(crate) index: usize,
    /// The pattern as written; anchored searches ask for an anchored match at a position of the
    /// whole text, so assertions such as `^` still see what precedes it.
    pub(crate) regex: Regex,
    /// Index of the `secret` group, if the rule has one.
    pub(crate) secret_group: Option<usize>,
    /// Half-width of a keyword window (windowed rules only).
    pub(crate) reach: usize,
    /// For windowed rules whose matches start at most `max` and at least `min` characters before
    /// a keyword occurrence (`min..=max`, `max` at most [`MAX_TRIED_LEAD`]): those positions are
    /// tried instead of scanning a window.
    pub(crate) lead: Option<(usize, usize)>,
    /// Bytes every match starts with (anchored rules only; often empty).
    pub(crate) prefix: Vec<u8>,
}

/// Compiles a rule of the table (`index` is its position).
pub(crate) fn compile(rule: &'static Rule, index: usize) -> Result<CompiledRule, SecretsError> {
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
pub(crate) fn lead(hir: &Hir, keywords: &[&str]) -> Option<(usize, usize)> {
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
pub(crate) fn literal_prefix(hir: &Hir) -> Vec<u8> {
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
