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
        let lane = match run.lane {
            Lane::Preempt => Some("preempt"),
            Lane::Default => None,
        };
        serde_json::json!({
            "ts": jiff::Timestamp::now().to_string(),
            "session_id": session_id,
            "event": run.event.wire_name(),
            "lane": lane,
            "hook": run.name,
            "type": run.kind,
            "source": run.source.as_str(),
            "status": run.status.as_str(),
            "exit_code": run.exit_code,
            "duration_ms": duration_ms(run.duration),
            "verdict": run.verdict,
            "error": run.error,
        })
        .to_string()
    }
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
