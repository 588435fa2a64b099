//! Helpers shared by the integration tests.

#![allow(
    dead_code,
    unreachable_pub,
    reason = "each test binary uses a different subset"
)]

use std::ffi::OsString;
use std::path::Path;
use std::sync::Arc;

use serde_json::{Map, Value};
use tether_config::{Toolset as ToolsetConfig, ToolsetKind};
use tether_exec::{Shell, ShellKind};
use tether_tools::{Tool, ToolContext, ToolResult, build_toolset};
use tokio_util::sync::CancellationToken;

pub fn sh() -> Shell {
    Shell {
        program: "/bin/sh".into(),
        kind: ShellKind::Sh,
    }
}

pub fn config(kind: ToolsetKind) -> ToolsetConfig {
    ToolsetConfig::of_kind(kind)
}

pub fn tools(kind: ToolsetKind) -> Vec<Arc<dyn Tool>> {
    build_toolset(&config(kind), &sh()).tools
}

pub fn find(tools: &[Arc<dyn Tool>], name: &str) -> Arc<dyn Tool> {
    tools
        .iter()
        .find(|t| t.definition().name == name)
        .cloned()
        .unwrap_or_else(|| panic!("no tool `{name}`"))
}

pub fn object(args: Value) -> Map<String, Value> {
    match args {
        Value::Object(map) => map,
        other => panic!("arguments must be an object: {other}"),
    }
}

/// Calls `tool` with `args` in `working_dir`, no extra environment, never cancelled.
pub async fn call(tool: &dyn Tool, args: Value, working_dir: &Path) -> ToolResult {
    let cancel = CancellationToken::new();
    call_with(tool, args, working_dir, &cancel, &[]).await
}

pub async fn call_with(
    tool: &dyn Tool,
    args: Value,
    working_dir: &Path,
    cancel: &CancellationToken,
    env: &[(OsString, OsString)],
) -> ToolResult {
    let args = object(args);
    let ctx = ToolContext {
        working_dir,
        cancel,
        env,
        progress: None,
    };
    tool.call(&args, ctx).await
}

pub fn ok(content: &str) -> ToolResult {
    ToolResult::ok(content)
}

pub fn err(content: &str) -> ToolResult {
    ToolResult::error(content)
}

/// Alive and not a zombie.
pub fn is_alive(pid: u32) -> bool {
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => {
            let state = stat.rsplit(')').next().unwrap_or("").trim_start();
            !state.starts_with('Z') && !state.starts_with('X')
        }
        Err(_) => false,
    }
}

pub async fn wait_dead(pid: u32) -> bool {
    for _ in 0..300 {
        if !is_alive(pid) {
            return true;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    false
}
