//! The public API: borrowing on clean text, spans, overlap collapse, JSON walking, and secrets
//! at the edges of long texts (where keyword windows are clipped).

#[path = "support/cases.rs"]
#[expect(
    dead_code,
    reason = "shared corpus; these tests only use its token helpers"
)]
mod cases;

use std::borrow::Cow;

use pretty_assertions::assert_eq;
use serde_json::json;
use tether_secrets::{Finding, REDACTED, find, redact, redact_json, rules, self_check};

use cases::{ALNUM, cat, rnd};

fn ghp(seed: u64) -> String {
    cat(&["gh", "p_", &rnd(ALNUM, 36, seed)])
}

#[test]
fn clean_text_is_borrowed_not_copied() {
    let text = "let token = lexer.next_token();\nfn main() {}\n";
    assert!(matches!(redact(text), Cow::Borrowed(t) if t == text));
    assert!(matches!(redact(""), Cow::Borrowed("")));
}

#[test]
fn find_reports_the_byte_span_of_the_secret_group_only() {
    let token = ghp(1);
    let text = format!("héllo GITHUB_TOKEN={token} bye");
    let start = "héllo GITHUB_TOKEN=".len();
    assert_eq!(
        find(&text),
        vec![Finding {
            rule_id: "github-classic-pat",
            start,
            end: start + token.len(),
        }]
    );
}

#[test]
fn a_url_password_and_a_token_inside_it_collapse_into_one_finding() {
    let token = ghp(2);
    let text = format!("https://bot:{token}@github.com/o/r.git");
    let start = "https://bot:".len();
    assert_eq!(
        find(&text),
        vec![Finding {
            rule_id: "github-classic-pat",
            start,
            end: start + token.len(),
        }]
    );
    assert_eq!(
        redact(&text),
        format!("https://bot:{REDACTED}@github.com/o/r.git")
    );
}

#[test]
fn a_token_nested_in_a_longer_generic_value_is_covered_by_the_longer_span() {
    let token = ghp(3);
    let text = format!("PASSWORD=Zq8mV2pL9x:{token}");
    assert_eq!(redact(&text), format!("PASSWORD={REDACTED}"));
    assert_eq!(
        find(&text).iter().map(|f| f.rule_id).collect::<Vec<_>>(),
        vec!["generic-env-assignment"]
    );
}

#[test]
fn two_secrets_back_to_back_are_two_findings() {
    let (a, b) = (ghp(4), ghp(5));
    let text = format!("{a} {b}");
    assert_eq!(redact(&text), format!("{REDACTED} {REDACTED}"));
    assert_eq!(find(&text).len(), 2);
}

#[test]
fn secrets_at_the_very_start_and_end_of_a_long_text_are_found() {
    let filler = "ordinary words about tokens and passwords in prose. ".repeat(2_000);
    let (a, b) = (ghp(6), ghp(7));
    let text = format!("{a} {filler}{b}");
    assert_eq!(redact(&text), format!("{REDACTED} {filler}{REDACTED}"));
}

#[test]
fn redact_json_rewrites_strings_at_any_depth_and_leaves_keys_and_scalars() {
    let token = ghp(8);
    let mut value = json!({
        "command": format!("git push https://x:{token}@github.com/o/r"),
        "timeout": 30,
        "nested": [{"env": [format!("GITHUB_TOKEN={token}"), "HOME=/root"]}, true, null],
    });
    value[token.as_str()] = json!("key names are not redacted");
    let expected = json!({
        "command": "git push https://x:[REDACTED]@github.com/o/r",
        "timeout": 30,
        "nested": [{"env": ["GITHUB_TOKEN=[REDACTED]", "HOME=/root"]}, true, null],
    });
    let mut expected = expected;
    expected[token.as_str()] = json!("key names are not redacted");
    assert!(redact_json(&mut value));
    assert_eq!(value, expected);
}

#[test]
fn redact_json_reports_no_change_for_clean_values() {
    let mut value = json!({"command": "ls -la", "n": 1, "list": ["a", {"b": "c"}]});
    let before = value.clone();
    assert!(!redact_json(&mut value));
    assert_eq!(value, before);
    let mut scalar = json!(format!("token {}", ghp(9)));
    assert!(redact_json(&mut scalar));
    assert_eq!(scalar, json!("token [REDACTED]"));
}

#[test]
fn the_rule_table_is_healthy_and_documented() {
    assert_eq!(self_check().map_err(|e| e.to_string()), Ok(()));
    let undocumented: Vec<&str> = rules()
        .iter()
        .filter(|r| r.description.is_empty() || r.keywords.is_empty())
        .map(|r| r.id)
        .collect();
    assert_eq!(undocumented, Vec::<&str>::new());
}

#[test]
fn multibyte_text_around_secrets_keeps_its_characters() {
    let token = ghp(10);
    let text = format!("日本語のテキスト {token} 終わり — ünïcödé");
    assert_eq!(
        redact(&text),
        format!("日本語のテキスト {REDACTED} 終わり — ünïcödé")
    );
}
