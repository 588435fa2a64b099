//! `tether hooks events`, `tether schema`, `tether completions`, `tether docs`.

use clap::CommandFactory;
use tether_protocol::HookEvent;

use crate::args::Cli;
use crate::common::user_error;
use crate::{docs, out, status};

pub(crate) fn print(text: &str) -> anyhow::Result<u8> {
    out::line(text.trim_end())?;
    Ok(status::OK)
}

/// One line per event: name, whether it can block, when it fires.
pub(crate) fn events() -> anyhow::Result<u8> {
    let width = HookEvent::ALL
        .iter()
        .map(|e| e.wire_name().len())
        .max()
        .unwrap_or(0);
    let lines: Vec<String> = HookEvent::ALL
        .iter()
        .map(|e| {
            let block = if e.can_block() {
                "can block"
            } else {
                "observes "
            };
            format!("{:<width$}  {block}  {}", e.wire_name(), e.description())
        })
        .collect();
    print(&lines.join("\n"))
}

pub(crate) fn completions(shell: clap_complete::Shell) -> anyhow::Result<u8> {
    let mut cmd = Cli::command();
    let mut buf = Vec::new();
    clap_complete::generate(shell, &mut cmd, "tether", &mut buf);
    print(&String::from_utf8_lossy(&buf))
}

pub(crate) fn docs(which: &str) -> anyhow::Result<u8> {
    match which {
        "hooks" => print(&docs::hooks_md()),
        "cli" => print(&docs::cli_md()),
        "schema" => print(&docs::schema_json()),
        "agent-files" => print(&docs::agent_files_md()),
        other => Err(user_error(format!(
            "unknown document `{other}` (hooks, cli, schema, agent-files)"
        ))),
    }
}
