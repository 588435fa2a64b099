//! Every rule against its positive and negative examples, plus idempotence over the corpus.

#[path = "support/cases.rs"]
mod cases;

use std::collections::BTreeSet;

use pretty_assertions::assert_eq;
use tether_secrets::{REDACTED, find, redact, rules};

use cases::{Case, cases};

/// What the corpus says about one case, in a shape that compares whole.
#[derive(Debug, PartialEq, Eq)]
struct Outcome {
    rule: &'static str,
    input: String,
    output: String,
    reported_by: Vec<&'static str>,
}

fn expected(case: &Case) -> Outcome {
    let positive = case.input != case.expected;
    Outcome {
        rule: case.rule,
        input: case.input.clone(),
        output: case.expected.clone(),
        reported_by: if positive {
            vec![case.rule]
        } else {
            Vec::new()
        },
    }
}

fn actual(case: &Case) -> Outcome {
    Outcome {
        rule: case.rule,
        input: case.input.clone(),
        output: redact(&case.input).into_owned(),
        reported_by: find(&case.input).iter().map(|f| f.rule_id).collect(),
    }
}

#[test]
fn every_corpus_case_redacts_to_its_expected_text_and_names_its_rule() {
    let corpus = cases();
    let failures: Vec<(Outcome, Outcome)> = corpus
        .iter()
        .map(|case| (expected(case), actual(case)))
        .filter(|(want, got)| want != got)
        .collect();
    assert_eq!(failures, Vec::new());
}

#[test]
fn every_rule_has_a_positive_and_a_negative_case() {
    let corpus = cases();
    let with = |positive: bool| -> BTreeSet<&'static str> {
        corpus
            .iter()
            .filter(|c| (c.input != c.expected) == positive)
            .map(|c| c.rule)
            .collect()
    };
    let all: BTreeSet<&'static str> = rules().iter().map(|r| r.id).collect();
    assert_eq!((with(true), with(false)), (all.clone(), all));
}

#[test]
fn the_rule_table_covers_at_least_forty_families_with_unique_ids() {
    let ids: Vec<&str> = rules().iter().map(|r| r.id).collect();
    let unique: BTreeSet<&str> = ids.iter().copied().collect();
    assert_eq!(unique.len(), ids.len());
    assert!(ids.len() >= 40, "only {} rules", ids.len());
}

#[test]
fn redaction_is_idempotent_over_the_corpus() {
    let not_idempotent: Vec<String> = cases()
        .iter()
        .map(|c| redact(&c.input).into_owned())
        .filter(|once| redact(once) != *once)
        .collect();
    assert_eq!(not_idempotent, Vec::<String>::new());
}

#[test]
fn secrets_written_back_to_back_are_all_redacted_and_stay_idempotent() {
    // Glue every positive input to the next one with no separator and with a space: each
    // pairing must still redact to a fixed point, and no secret from either side may survive.
    let corpus = cases();
    let positives: Vec<&Case> = corpus.iter().filter(|c| c.input != c.expected).collect();
    let mut problems = Vec::new();
    for pair in positives.windows(2) {
        for glue in ["", " ", "\n"] {
            let text = format!("{}{glue}{}", pair[0].input, pair[1].input);
            let once = redact(&text).into_owned();
            if redact(&once) != once {
                problems.push(format!("not idempotent: {text:?}"));
            }
            if glue == "\n" && once != format!("{}\n{}", pair[0].expected, pair[1].expected) {
                problems.push(format!(
                    "lines redacted differently together: {text:?} -> {once:?}"
                ));
            }
        }
    }
    assert_eq!(problems, Vec::<String>::new());
}

#[test]
fn the_marker_itself_is_never_a_secret() {
    let texts = [
        REDACTED.to_owned(),
        format!("password={REDACTED}"),
        format!("password: {REDACTED}"),
        format!("\"api_key\": \"{REDACTED}\""),
        format!("--token {REDACTED}"),
        format!("Authorization: Bearer {REDACTED}"),
        format!("postgres://app:{REDACTED}@db/app"),
        format!("-----BEGIN RSA PRIVATE KEY-----\n{REDACTED}\n-----END RSA PRIVATE KEY-----"),
    ];
    let found: Vec<(String, usize)> = texts.iter().map(|t| (t.clone(), find(t).len())).collect();
    let expected: Vec<(String, usize)> = texts.iter().map(|t| (t.clone(), 0)).collect();
    assert_eq!(found, expected);
}
