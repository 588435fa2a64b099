use std::fs;

use pretty_assertions::assert_eq;

use super::*;

#[path = "../tests/support/cases.rs"]
#[expect(dead_code, reason = "shared corpus; this module uses only part of it")]
mod cases;

/// Every rule over the whole text with no pre-filter: the reference the windowed search must
/// reproduce exactly.
fn find_unfiltered(engine: &Engine, text: &str) -> Vec<Finding> {
    let mut candidates = Vec::new();
    for compiled in &engine.rules {
        let mut locs = compiled.regex.capture_locations();
        scan(compiled, text, 0, text.len(), &mut locs, &mut candidates);
    }
    collapse(candidates)
}

/// Corpus inputs, each also embedded at several offsets in filler that itself contains
/// keywords, so windows get clipped at both ends of the text and merged in the middle.
fn probe_texts() -> Vec<String> {
    let filler = "a token, a password and a secret walk into a bar; api_key count is 3. ";
    let mut texts = Vec::new();
    for case in cases::cases() {
        texts.push(case.input.clone());
        for repeat in [1, 7, 40] {
            let pad = filler.repeat(repeat);
            texts.push(format!("{pad}{}", case.input));
            texts.push(format!("{}{pad}", case.input));
            texts.push(format!("{pad}{}\n{pad}", case.input));
        }
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
fn every_regex_match_contains_one_of_its_rules_keywords() {
    let engine = engine();
    let mut missing = Vec::new();
    for text in probe_texts() {
        for compiled in &engine.rules {
            for found in compiled.regex.find_iter(&text) {
                let matched = found.as_str().to_ascii_lowercase();
                let has_keyword = compiled
                    .rule
                    .keywords
                    .iter()
                    .any(|k| matched.contains(&k.to_ascii_lowercase()));
                if !has_keyword {
                    missing.push((compiled.rule.id, found.as_str().to_owned()));
                }
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
fn every_keyword_selects_the_rules_that_declare_it() {
    let engine = engine();
    let Some(automaton) = &engine.keywords else {
        panic!("keyword automaton missing: {:?}", engine.problems());
    };
    let mut selected = Vec::new();
    for compiled in &engine.rules {
        for keyword in compiled.rule.keywords {
            let windows = engine.windows(automaton, keyword);
            let owners: Vec<&str> = windows
                .iter()
                .enumerate()
                .filter(|(_, spans)| !spans.is_empty())
                .map(|(i, _)| engine.rules[i].rule.id)
                .collect();
            if !owners.contains(&compiled.rule.id) {
                selected.push((compiled.rule.id, *keyword, owners));
            }
        }
    }
    assert_eq!(selected, Vec::new());
}
