//! Observers see every hook run as it starts and finishes: the runtime turns them into
//! `hook_started` / `hook_finished` events, `--hook-log` into JSON lines.

use std::fmt;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::Path;
use std::sync::Mutex;

use tether_config::HookSpec;
use tether_protocol::{HookEvent, Lane};

use crate::result::HookRun;

/// Told about hook runs. Called from the dispatching task: keep it cheap.
pub trait HookObserver: Send + Sync + fmt::Debug {
    fn started(&self, event: HookEvent, lane: Lane, session_id: &str, hook: &HookSpec) {
        let _ = (event, lane, session_id, hook);
    }

    fn finished(&self, session_id: &str, run: &HookRun) {
        let _ = (session_id, run);
    }
}

/// `--hook-log FILE`: one JSON object per finished hook run, appended.
#[derive(Debug)]
pub struct HookLog {
    file: Mutex<File>,
}

impl HookLog {
    /// Opens `path` for appending; it is created 0600 and an existing one others can read is
    /// tightened (hook errors may quote tool arguments).
    pub fn open(path: &Path) -> std::io::Result<Self> {
        let file = tether_exec::private::open(path, OpenOptions::new().create(true).append(true))?;
        Ok(Self {
            file: Mutex::new(file),
        })
    }

    /// The JSON line for one run (without the newline).
    pub fn line(session_id: &str, run: &HookRun) -> String {
        let line = Line {
            duration_ms: duration_ms(run.duration),
            error: run.error.as_deref(),
            event: run.event.wire_name(),
            exit_code: run.exit_code,
            hook: &run.name,
            lane: match run.lane {
                Lane::Preempt => Some("preempt"),
                Lane::Default => None,
            },
            session_id,
            source: run.source.as_str(),
            status: run.status.as_str(),
            ts: jiff::Timestamp::now().to_string(),
            kind: run.kind,
            verdict: run.verdict,
        };
        serde_json::to_string(&line).unwrap_or_default()
    }
}

/// One `--hook-log` line, written straight from the run. Keys in sorted order, as every JSON
/// object Tether writes.
#[derive(serde::Serialize)]
struct Line<'a> {
    duration_ms: f64,
    error: Option<&'a str>,
    event: &'a str,
    exit_code: Option<i32>,
    hook: &'a str,
    lane: Option<&'static str>,
    session_id: &'a str,
    source: &'a str,
    status: &'a str,
    ts: String,
    #[serde(rename = "type")]
    kind: &'a str,
    verdict: &'a str,
}

/// Milliseconds with microsecond precision.
pub fn duration_ms(d: std::time::Duration) -> f64 {
    (d.as_micros() as f64 / 1000.0 * 1000.0).round() / 1000.0
}

impl HookObserver for HookLog {
    fn finished(&self, session_id: &str, run: &HookRun) {
        let mut line = Self::line(session_id, run);
        line.push('\n');
        if let Ok(mut f) = self.file.lock() {
            // One write per line so concurrent writers never interleave within a line.
            let _ = f.write_all(line.as_bytes());
        }
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn a_log_line_has_the_keys_and_values_of_the_run_in_sorted_order() {
        let run = HookRun {
            event: HookEvent::PreToolUse,
            lane: Lane::Preempt,
            name: "./guard.sh \"quoted\"".to_owned(),
            kind: "command",
            source: tether_config::HookSource::Yaml,
            status: crate::result::RunStatus::Blocked,
            exit_code: Some(2),
            duration: std::time::Duration::from_micros(1_234_567),
            error: Some("denied: rm".to_owned()),
            verdict: "deny",
            outcome: crate::result::Outcome::failed("x"),
            policies: Vec::new(),
            policy_errors: Vec::new(),
        };
        let line = HookLog::line("s-1", &run);
        let value: serde_json::Value = serde_json::from_str(&line).unwrap();
        let ts = value["ts"].as_str().unwrap();
        assert!(ts.parse::<jiff::Timestamp>().is_ok(), "{ts}");
        let expected = serde_json::json!({
            "duration_ms": 1234.567, "error": "denied: rm", "event": "pre_tool_use",
            "exit_code": 2, "hook": "./guard.sh \"quoted\"", "lane": "preempt",
            "session_id": "s-1", "source": run.source.as_str(), "status": "blocked",
            "ts": ts, "type": "command", "verdict": "deny",
        });
        // Byte for byte what the same object prints: the keys sorted, nothing extra.
        assert_eq!(line, expected.to_string());
        let mut run = run;
        run.lane = Lane::Default;
        run.error = None;
        run.exit_code = None;
        let value: serde_json::Value = serde_json::from_str(&HookLog::line("s-1", &run)).unwrap();
        assert!(
            value["lane"].is_null() && value["error"].is_null() && value["exit_code"].is_null()
        );
    }

    #[test]
    fn the_hook_log_is_private_and_a_wide_one_is_tightened() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("hooks.jsonl");
        let mode = || std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        drop(HookLog::open(&path).unwrap());
        assert_eq!(mode(), 0o600);
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o644)).unwrap();
        drop(HookLog::open(&path).unwrap());
        assert_eq!(mode(), 0o600);
    }
}
