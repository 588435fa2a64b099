//! The engine against a brute-force reference (every rule over the whole text), the keyword
//! invariant each anchor relies on, overlap collapsing and the cheap prechecks.

use std::fs;

use pretty_assertions::assert_eq;

use super::*;
use crate::assignment::is_line_value;
use crate::compile::{lead, literal_prefix};

#[path = "../tests/support/cases.rs"]
#[expect(dead_code, reason = "shared corpus; this module uses only part of it")]
mod cases;

/// Positions where an anchored rule could start, found without the keyword automaton: for
/// keyword anchors every char boundary where one of the rule's keywords could begin (by its
/// first letter), every line start, every word start.
fn anchor_positions(rule: &Rule, text: &str) -> Vec<usize> {
    let after = |pred: fn(u8) -> bool| {
        std::iter::once(0)
            .chain(
                text.bytes()
                    .enumerate()
                    .filter(|(_, b)| pred(*b))
                    .map(|(i, _)| i + 1),
            )
            .filter(|i| *i < text.len())
            .collect()
    };
    match rule.anchor {
        Anchor::Window => Vec::new(),
        Anchor::Keyword => text
            .char_indices()
            .filter(|(_, c)| {
                rule.keywords
                    .iter()
                    .any(|k| k.chars().next().is_some_and(|f| f.eq_ignore_ascii_case(c)))
            })
            .map(|(i, _)| i)
            .collect(),
        Anchor::LineStart => after(|b| b == b'\n'),
        Anchor::WordStart => after(|b| b.is_ascii_whitespace()),
    }
}

/// Every rule over the whole text with no pre-filter: windowed rules scan everything, anchored
/// rules are tried at every possible anchor. The windowed search must reproduce this exactly.
fn find_unfiltered(engine: &Engine, text: &str) -> Vec<Finding> {
    let mut candidates = Vec::new();
    for compiled in engine.compiled_rules() {
        let mut locs = compiled.regex.create_captures();
        if compiled.rule.anchor == Anchor::Window {
            scan(compiled, text, 0, text.len(), &mut locs, &mut candidates);
        } else {
            for at in anchor_positions(compiled.rule, text) {
                anchored(compiled, text, at, &mut locs, &mut candidates);
            }
        }
    }
    collapse(candidates)
}

/// Every match of every rule over `text`, as (rule, match start, matched text).
fn all_matches<'t>(engine: &Engine, text: &'t str) -> Vec<(&'static Rule, usize, &'t str)> {
    let mut out = Vec::new();
    for compiled in engine.compiled_rules() {
        if compiled.rule.anchor == Anchor::Window {
            for found in compiled.regex.find_iter(text) {
                out.push((compiled.rule, found.start(), &text[found.range()]));
            }
        } else {
            for at in anchor_positions(compiled.rule, text) {
                let input = Input::new(text).range(at..).anchored(Anchored::Yes);
                if let Some(found) = compiled.regex.find(input) {
                    out.push((compiled.rule, at, &text[found.range()]));
                }
            }
        }
    }
    out
}

/// Corpus inputs, each also embedded at several offsets in filler that itself contains
/// keywords, so windows get clipped at both ends of the text and merged in the middle.
fn probe_texts() -> Vec<String> {
    let filler = "a token, a password and a secret walk into a bar; api_key count is 3. ";
    let mut texts = Vec::new();
    for case in cases::cases() {
        let (short, long) = (filler, filler.repeat(30));
        texts.push(case.input.clone());
        texts.push(format!("{short}{}", case.input));
        texts.push(format!("{}{long}", case.input));
        texts.push(format!("{long}{}\n{short}", case.input));
    }
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures");
    if let Ok(entries) = fs::read_dir(dir) {
        for entry in entries.flatten() {
            if let Ok(text) = fs::read_to_string(entry.path()) {
                texts.push(text);
            }
        }
    }
    texts
}

#[test]
fn every_built_in_rule_compiles() {
    let problems: Vec<String> = engine()
        .problems()
        .iter()
        .map(ToString::to_string)
        .collect();
    assert_eq!(problems, Vec::<String>::new());
}

#[test]
fn windowed_search_finds_exactly_what_a_full_scan_of_every_rule_finds() {
    let engine = engine();
    let disagreements: Vec<(String, Vec<Finding>, Vec<Finding>)> = probe_texts()
        .into_iter()
        .filter_map(|text| {
            let windowed = engine.find(&text);
            let full = find_unfiltered(engine, &text);
            (windowed != full).then_some((text, windowed, full))
        })
        .collect();
    assert_eq!(disagreements, Vec::new());
}

#[test]
fn every_match_contains_a_keyword_where_its_anchor_expects_it() {
    let engine = engine();
    let mut missing = Vec::new();
    for text in probe_texts() {
        for (rule, _, matched) in all_matches(engine, &text) {
            let lower = matched.to_ascii_lowercase();
            let offsets: Vec<usize> = rule
                .keywords
                .iter()
                .filter_map(|k| lower.find(&k.to_ascii_lowercase()))
                .collect();
            let first = offsets.iter().copied().min();
            let ok = match (rule.anchor, first) {
                (_, None) => false,
                (Anchor::Window, Some(_)) => true,
                (Anchor::Keyword, Some(offset)) => offset == 0,
                (Anchor::LineStart, Some(offset)) => {
                    offset <= LINE_LEAD && !matched[..offset].contains('\n')
                }
                (Anchor::WordStart, Some(offset)) => {
                    offset <= WORD_LEAD && !matched[..offset].contains(char::is_whitespace)
                }
            };
            if !ok {
                missing.push((rule.id, matched.to_owned()));
            }
        }
    }
    assert_eq!(missing, Vec::<(&str, String)>::new());
}

#[test]
fn overlapping_candidates_merge_into_one_span_named_after_the_leftmost_longest() {
    let candidate = |start, end, rule, rule_id| Candidate {
        start,
        end,
        rule,
        rule_id,
    };
    let merged = collapse(vec![
        candidate(5, 15, 2, "inner-later"),
        candidate(0, 10, 7, "leftmost"),
        candidate(0, 4, 1, "leftmost-shorter"),
        candidate(15, 20, 3, "touching"),
        candidate(30, 40, 9, "tie-high"),
        candidate(30, 40, 4, "tie-low"),
    ]);
    assert_eq!(
        merged,
        vec![
            Finding {
                rule_id: "leftmost",
                start: 0,
                end: 15,
            },
            Finding {
                rule_id: "touching",
                start: 15,
                end: 20,
            },
            Finding {
                rule_id: "tie-low",
                start: 30,
                end: 40,
            },
        ]
    );
}

#[test]
fn a_search_compiles_only_the_rules_its_keywords_wake() {
    // A fresh engine: the shared one has compiled everything for other tests.
    let engine = Engine::new(rules::RULES);
    let text = format!(
        "{} and a password: {}",
        "ordinary words ".repeat(500),
        "x".repeat(3)
    );
    assert_eq!(engine.find(&text), Vec::new());
    let compiled: Vec<&str> = engine
        .rules
        .iter()
        .filter(|lazy| lazy.compiled.get().is_some())
        .map(|lazy| lazy.rule.id)
        .collect();
    let woken: Vec<&str> = engine
        .rules
        .iter()
        .filter(|lazy| lazy.rule.keywords.contains(&"password"))
        .map(|lazy| lazy.rule.id)
        .collect();
    assert!(
        !woken.is_empty() && compiled.iter().all(|id| woken.contains(id)),
        "{compiled:?}"
    );
}

#[test]
fn compile_all_compiles_every_rule() {
    let engine = Engine::new(rules::RULES);
    let compiled = || {
        engine
            .rules
            .iter()
            .filter(|lazy| lazy.compiled.get().is_some())
            .count()
    };
    let before = compiled();
    engine.compile_all();
    assert_eq!((before, compiled()), (0, rules::RULES.len()));
}

#[test]
fn every_keyword_selects_the_rules_that_declare_it() {
    let engine = engine();
    let Some(keywords) = &engine.keywords else {
        panic!("keyword automaton missing: {:?}", engine.problems());
    };
    let mut unselected = Vec::new();
    for (position, compiled) in engine.rules.iter().enumerate() {
        for keyword in compiled.rule.keywords {
            let selects = keywords
                .hits(&keyword.to_ascii_uppercase())
                .iter()
                .any(|hit| engine.owners[hit.pattern].contains(&position));
            if !selects {
                unselected.push((compiled.rule.id, *keyword));
            }
        }
    }
    assert_eq!(unselected, Vec::<(&str, &str)>::new());
}

#[test]
fn assignment_precheck_accepts_names_followed_by_a_separator_only() {
    let verdicts: Vec<(&str, bool)> = [
        "token = x",
        "token: x",
        "token\":\"x\"",
        "token\\\": \\\"x",
        "_API_KEY=x",
        "s.inner: x",
        "token.len()",
        "tokens.push(t)",
        "token",
        "token ==",
    ]
    .into_iter()
    .map(|text| {
        (
            text,
            assigned_value(text, "token".len().min(text.len())).is_some(),
        )
    })
    .collect();
    assert_eq!(
        verdicts,
        vec![
            ("token = x", true),
            ("token: x", true),
            ("token\":\"x\"", true),
            ("token\\\": \\\"x", true),
            ("_API_KEY=x", true),
            ("s.inner: x", true),
            ("token.len()", false),
            ("tokens.push(t)", false),
            ("token", false),
            ("token ==", true),
        ]
    );
}

#[test]
fn line_value_precheck_wants_a_value_that_ends_its_line() {
    let long = "a".repeat(300);
    // A run longer than any value, and one with a `#` in reach: the value ends there.
    let with_comment = format!("{}#{}", "b".repeat(200), "c".repeat(100));
    let verdicts: Vec<(&str, bool)> = [
        "token: abcdefgh",
        "token: abcdefgh   \r\nnext",
        "token = abcdefgh # note",
        "token: abcdefgh#note",
        "token: abcdefg",
        "token = self.next_token()",
        "token: String,",
        "token: abcdefgh more",
        "token: \"abcdefgh\"",
        long.as_str(),
        with_comment.as_str(),
    ]
    .into_iter()
    .map(|text| {
        let value = text.strip_prefix("token").map_or(text, |_| text);
        let verdict = match text.find(['=', ':']) {
            Some(_) => assigned_value(value, "token".len()).is_some_and(|s| s.line_value),
            None => is_line_value(value.as_bytes()),
        };
        (text, verdict)
    })
    .collect();
    assert_eq!(
        verdicts,
        vec![
            ("token: abcdefgh", true),
            ("token: abcdefgh   \r\nnext", true),
            ("token = abcdefgh # note", true),
            ("token: abcdefgh#note", true),
            ("token: abcdefg", false),
            ("token = self.next_token()", false),
            ("token: String,", false),
            ("token: abcdefgh more", false),
            ("token: \"abcdefgh\"", false),
            (long.as_str(), false),
            (with_comment.as_str(), true),
        ]
    );
}

#[test]
fn anchors_are_found_within_their_lead_only() {
    let text = format!("first line\n  key: {}\nword --flag-name", "x".repeat(200));
    let line = text.find("key").unwrap_or_default();
    let flag = text.find("name").unwrap_or_default();
    let far = line + 150;
    assert_eq!(
        (
            line_start(&text, line),
            line_start(&text, far),
            word_start(&text, flag),
            word_start("no-space-at-all", 9),
        ),
        (
            Some(line - 2),
            None,
            Some(text.find("--").unwrap_or_default()),
            Some(0)
        )
    );
}

#[test]
fn literal_prefixes_come_from_the_pattern() {
    let prefix = |pattern: &str| {
        regex_syntax::Parser::new()
            .parse(pattern)
            .map(|hir| literal_prefix(&hir))
            .unwrap_or_default()
    };
    assert_eq!(
        (
            prefix("--(?:[a-z]+-)?token"),
            prefix("://[a-z]*:(?P<secret>x)"),
            prefix("(?i-u:secret)=x"),
            prefix("(?m)^[ \t]{0,3}key"),
        ),
        (b"--".to_vec(), b"://".to_vec(), Vec::new(), Vec::new())
    );
}

#[test]
fn leads_come_from_the_text_before_a_keyword_every_match_starts_with() {
    let lead_of = |pattern: &str, keywords: &[&str]| {
        regex_syntax::Parser::new()
            .parse(pattern)
            .ok()
            .and_then(|hir| lead(&hir, keywords))
    };
    assert_eq!(
        [
            lead_of(
                r"(?:^|[^0-9A-Za-z])(?P<secret>ghp_[0-9A-Za-z]{36})",
                &["ghp_"]
            ),
            lead_of(r"(?P<secret>[0-9a-f]{32}-us[0-9]{1,2})", &["-us"]),
            lead_of(r"(?i-u:[?&;]sig=)(?P<secret>[A-Za-z0-9]{40})", &["sig="]),
            lead_of(
                r"sk-(?:proj-[a-z]{20}|[a-z]{16}T3BlbkFJ)",
                &["sk-proj-", "T3BlbkFJ"]
            ),
            lead_of(r"[a-z]+token", &["token"]),
            lead_of(
                r"-----BEGIN OPENSSH PRIVATE KEY-----(?P<secret>[A-Za-z0-9]{30,})",
                &["BEGIN OPENSSH PRIVATE KEY"]
            ),
            lead_of(r"(?:é|ab)\.{2}[0-9]{3}jwt", &["jwt"]),
        ],
        [
            Some((0, 1)),
            Some((32, 32)),
            Some((1, 1)),
            None,
            None,
            Some((5, 5)),
            Some((6, 7))
        ]
    );
}
