//! A command printing 1 GiB through a full run: the shell tool spools it, the model sees the
//! notice and the tail (`limit_large_tool_results` pointing at the spooled file), and this
//! process's peak memory stays far under 100 MB. The file is gone when the session ends.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod support;

use serde_json::json;
use support::{Harness, Setup};
use tether_core::StopReason;
use tether_test_support::fake_llm::Turn;
use tokio_util::sync::CancellationToken;

/// Peak resident memory of this process, in KiB.
fn vm_hwm_kib() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse().unwrap()
}

#[tokio::test]
async fn one_gib_of_tool_output_runs_in_bounded_memory() {
    let mut setup = Setup::new("toolsets: [{type: shell}]\n");
    setup.yolo = true;
    let mut h = Harness::start(setup).await;
    h.push(Turn::tool_call(
        "shell",
        json!({"cmd": "head -c 1073741824 /dev/zero | tr '\\0' x; echo; echo THE END"}),
    ));
    h.push(Turn::text("done"));
    let before = vm_hwm_kib();
    let cancel = CancellationToken::new();
    h.runtime
        .start_session(&mut h.session, "startup", &cancel)
        .await;
    let out = h
        .runtime
        .run(&mut h.session, Some("print a lot".to_owned()), &cancel)
        .await;
    assert_eq!(out.reason, StopReason::Normal);

    let result = h.tool_results(1)[0].1.clone();
    assert!(result.starts_with("Tool call result was too large (1073741833 bytes; limit 51200 bytes). The full result is available in a file: "), "{}", &result[..200]);
    assert!(result.contains("THE END"), "the tail is shown");
    assert!(result.len() < 60_000, "{}", result.len());
    let path = result
        .split("available in a file: ")
        .nth(1)
        .unwrap()
        .lines()
        .next()
        .unwrap();
    // Checked before the session ends, so that the removal below is of a file that was there.
    assert_eq!(
        std::fs::metadata(path).unwrap().len(),
        1_073_741_833,
        "the whole output is spooled"
    );
    h.runtime.end_session(&h.session, "other").await;
    let grown_mib = (vm_hwm_kib() - before) / 1024;
    assert!(grown_mib < 100, "peak memory grew by {grown_mib} MiB");
    assert!(
        !std::path::Path::new(path).exists(),
        "the spooled file is removed at session end"
    );
}
