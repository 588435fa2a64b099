//! Arguments of the small tools written to hurt: blank or whitespace-only values, huge ones,
//! NUL bytes. Each is refused with the reason, never taken as given. (Unknown keys and keys
//! that differ only in case are refused before any tool runs: `check_arguments`.)

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use common::{call, find, tools};
use serde_json::{Value, json};
use tether_config::{ToolsetKind, WebhookConfig};
use tether_tools::{Tool, WebhookTool};

async fn refused(tool: &dyn Tool, args: Value, want: &str) {
    let dir = tempfile::tempdir().unwrap();
    let r = call(tool, args.clone(), dir.path()).await;
    assert!(
        r.is_error,
        "{} accepted {args}: {}",
        tool.definition().name,
        r.content
    );
    assert!(
        r.content.contains(want),
        "{} {args}: {:?} does not say {want:?}",
        tool.definition().name,
        r.content
    );
}

#[tokio::test]
async fn blank_huge_and_nul_values_of_the_small_tools_are_refused_with_the_reason() {
    let huge = "9".repeat(100_000);
    let calculator = find(&tools(ToolsetKind::Calculator), "calculate");
    refused(calculator.as_ref(), json!({"expression": " \t "}), "").await;
    refused(
        calculator.as_ref(),
        json!({"expression": huge}),
        "longer than",
    )
    .await;

    let datetime = find(&tools(ToolsetKind::Datetime), "get_datetime");
    refused(
        datetime.as_ref(),
        json!({"format": "  "}),
        "format is required",
    )
    .await;
    refused(datetime.as_ref(), json!({"format": huge}), "longer than").await;
    refused(
        datetime.as_ref(),
        json!({"format": "2006", "timezone": "  "}),
        "invalid timezone",
    )
    .await;
    refused(
        datetime.as_ref(),
        json!({"format": "2006", "timezone": "../../etc/passwd"}),
        "unknown time zone",
    )
    .await;

    let random = find(&tools(ToolsetKind::Random), "random_int");
    refused(random.as_ref(), json!({"min": "1", "max": 2}), "").await;
    refused(random.as_ref(), json!({"min": 1e300, "max": 2}), "").await;
    refused(random.as_ref(), json!({"min": 3, "max": 2}), "").await;

    let git = tools(ToolsetKind::Git);
    let (log, show, blame) = (
        find(&git, "git_log"),
        find(&git, "git_show"),
        find(&git, "git_blame"),
    );
    refused(log.as_ref(), json!({"path": "   "}), "`path` is blank").await;
    refused(
        log.as_ref(),
        json!({"path": huge}),
        "`path` is longer than 4096 bytes",
    )
    .await;
    refused(show.as_ref(), json!({"ref": " \n"}), "`ref` is blank").await;
    refused(
        show.as_ref(),
        json!({"ref": "HEAD\u{0}x"}),
        "`ref` holds a NUL byte",
    )
    .await;
    refused(blame.as_ref(), json!({"path": "  "}), "`path` is blank").await;
    refused(
        blame.as_ref(),
        json!({"path": "a.txt", "rev": "\t"}),
        "`rev` is blank",
    )
    .await;

    // Nothing listens there, and nothing is sent: every refusal comes before the request.
    let webhook = WebhookTool::new(
        &WebhookConfig {
            provider: "ifttt".to_owned(),
            url: "http://127.0.0.1:9/x".to_owned(),
            headers: Vec::new(),
            chat_id: None,
        },
        None,
        true,
    );
    refused(&webhook, json!({"message": " \n "}), "message is required").await;
    refused(
        &webhook,
        json!({"message": huge}),
        "`message` is longer than",
    )
    .await;
    refused(
        &webhook,
        json!({"message": "hi", "value2": "  "}),
        "`value2` is blank",
    )
    .await;
    refused(
        &webhook,
        json!({"message": "hi", "value3": "a\u{0}b"}),
        "`value3` holds a NUL byte",
    )
    .await;
}
