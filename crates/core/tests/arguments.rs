//! The argument check end to end (docs/design.md, "Rules a hostile model cannot walk around"):
//! for any arguments object a model sends, either the call is refused before any hook or rule
//! sees it, or the object the permission rules see (the dry run's), the object every hook sees
//! and the object the tool executes are one and the same.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod support;

use proptest::prelude::*;
use serde_json::{Map, Value, json};
use support::{Harness, Setup, inputs, logging_hook, yq};
use tether_protocol::Decision;
use tether_test_support::fake_llm::Turn;
use tokio_util::sync::CancellationToken;

/// Keys a model might send the shell tool: its own, case twins, an old alias, and names that
/// would choose an environment.
const KEYS: &[&str] = &[
    "cmd",
    "CMD",
    "Cmd",
    "command",
    "cwd",
    "timeout",
    "BASH_ENV",
    "description",
];

fn value(key: &str, n: u32) -> Value {
    match key {
        "cwd" => json!("."),
        "timeout" => json!(30),
        _ => json!(format!("printf %s {key}{n}")),
    }
}

/// What the check must accept: the shell tool's own keys only.
fn valid(args: &Map<String, Value>) -> bool {
    args.keys()
        .all(|k| matches!(k.as_str(), "cmd" | "cwd" | "timeout"))
}

async fn case(args: Map<String, Value>) -> Result<(), TestCaseError> {
    let dir = tempfile::tempdir().unwrap();
    let log = dir.path().join("guard.log");
    let agent = format!(
        "toolsets:\n  - type: shell\nhooks:\n  tool_guard:\n    - matcher: shell\n      hooks:\n        - {{type: command, command: {}}}\n",
        yq(&logging_hook(&log, ""))
    );
    let mut setup = Setup::new(&agent);
    setup.top = "permissions:\n  allow: ['shell:cmd=printf *']\n".to_owned();
    setup.yolo = true;
    let mut h = Harness::start(setup).await;

    // What the permission rules see: the dry run of the same call.
    let verdict = h
        .runtime
        .decide(&h.session, "shell", &args, &CancellationToken::new())
        .await
        .unwrap();
    let seen_by_guard_in_dry_run = inputs(&log);
    std::fs::remove_file(&log).ok();

    h.push(Turn::tool_call("shell", Value::Object(args.clone())).with_id("call_1"));
    h.push(Turn::text("done"));
    h.run_once("go").await;
    let results = h.tool_results(1);
    prop_assert_eq!(results.len(), 1);
    let result = &results[0].1;
    let guard = inputs(&log);

    if valid(&args) {
        // Rules, hooks and the tool all read `args`.
        prop_assert_eq!(&verdict.arguments, &args);
        if args.contains_key("cmd") {
            prop_assert_eq!(verdict.decision, Decision::Allow);
        }
        prop_assert_eq!(seen_by_guard_in_dry_run.len(), 1);
        prop_assert_eq!(guard.len(), 1);
        // An empty object is left out of the Input, as docker-agent does.
        let want = if args.is_empty() {
            Value::Null
        } else {
            Value::Object(args.clone())
        };
        prop_assert_eq!(&guard[0]["tool_input"], &want);
        let ran = match args.get("cmd").and_then(Value::as_str) {
            Some(cmd) => cmd.trim_start_matches("printf %s ").to_owned(),
            None => "invalid arguments for `shell`: `cmd` is missing or empty".to_owned(),
        };
        prop_assert_eq!(result, &ran);
    } else {
        // Refused before any hook or rule: nothing ran.
        prop_assert_eq!(verdict.source, "invalid_arguments");
        prop_assert!(seen_by_guard_in_dry_run.is_empty());
        prop_assert!(guard.is_empty());
        prop_assert!(
            result.starts_with("invalid arguments for `shell`: "),
            "{}",
            result
        );
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(40))]

    #[test]
    fn rules_hooks_and_the_tool_read_the_same_arguments(
        picks in prop::collection::btree_map(prop::sample::select(KEYS), 0u32..100, 0..4),
    ) {
        let args: Map<String, Value> = picks
            .iter()
            .map(|(k, n)| ((*k).to_owned(), value(k, *n)))
            .collect();
        let rt = tokio::runtime::Runtime::new().unwrap();
        rt.block_on(case(args))?;
    }
}
