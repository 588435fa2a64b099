//! The `tether` binary: parses arguments, runs a command, maps the outcome to an exit status.
//! The only crate that prints or exits.

mod args;
mod commands;
mod common;
mod console;
mod docs;
mod docs_policy;
mod docs_sandbox;
mod elicit;
mod external;
mod interact;
mod interactive;
mod json_pretty;
mod out;
mod programs;
mod render;
#[cfg(feature = "otel")]
mod telemetry;
mod trust;
mod worktree;

use std::process::ExitCode;

use clap::Parser;

use crate::args::{Cli, Command, HooksCommand, McpCommand};
use crate::common::UserError;

/// Runs `future` as a task of the runtime's workers rather than on the thread blocked in
/// `block_on`: a worker woken by I/O (a hook's answer on a pipe, a model's stream) then polls
/// it at once, where the blocked thread would need a second wake-up for every event.
async fn on_worker<T: Send + 'static>(
    future: impl std::future::Future<Output = T> + Send + 'static,
) -> T {
    match tokio::spawn(future).await {
        Ok(value) => value,
        // A panic in the task is the command's panic, as if it had run here.
        Err(e) => std::panic::resume_unwind(e.into_panic()),
    }
}

/// Exit statuses (docs/cli.md).
pub(crate) mod status {
    pub(crate) const OK: u8 = 0;
    pub(crate) const USAGE: u8 = 1;
    pub(crate) const BLOCKED: u8 = 2;
    pub(crate) const RUNTIME: u8 = 3;
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() {
                status::USAGE
            } else {
                status::OK
            });
        }
    };
    tether_exec::keep_freed_buffers();
    out::init_logs();
    // Files an older Tether left readable by others are tightened as they are opened; the
    // first one is said once.
    tether_exec::private::on_tightened(out::warning);
    let runtime = match tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        // Sub-agents nest whole runs; room for deep chains in debug builds too.
        .thread_stack_size(8 * 1024 * 1024)
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            out::error(&format!("cannot start the async runtime: {e}"));
            return ExitCode::from(status::RUNTIME);
        }
    };
    let result = runtime.block_on(async {
        match cli.command {
            Command::Run(args) => on_worker(commands::run::run(args)).await,
            Command::Sessions(cmd) => commands::sessions::run(cmd),
            Command::Hooks(HooksCommand::Check(args)) => commands::hooks_check::run(args).await,
            Command::Hooks(HooksCommand::Fire(args)) => commands::hooks_fire::run(args).await,
            Command::Hooks(HooksCommand::Decide(args)) => commands::hooks_decide::run(args).await,
            Command::Hooks(HooksCommand::Replay(args)) => {
                commands::hooks_decide::replay(args).await
            }
            Command::Hooks(HooksCommand::Trust(args)) => commands::hooks_trust::run(&args),
            Command::Hooks(HooksCommand::ImportClaude(args)) => {
                commands::import_claude::run(&args.settings)
            }
            Command::Hooks(HooksCommand::Events) => commands::reference::events(),
            Command::Mcp(McpCommand::List(args)) => commands::mcp::list(args).await,
            Command::Mcp(McpCommand::Call(args)) => commands::mcp::call(args).await,
            Command::Serve(cmd) => commands::serve::run(cmd).await,
            Command::Schema => commands::reference::print(&docs::schema_json()),
            Command::Completions { shell } => commands::reference::completions(shell),
            Command::Docs { which } => commands::reference::docs(&which),
        }
    });
    match result {
        Ok(code) => ExitCode::from(code),
        Err(e) if out::is_broken_pipe(&e) => ExitCode::from(status::OK),
        Err(e) => {
            out::error(&format!("{e:#}"));
            ExitCode::from(if e.downcast_ref::<UserError>().is_some() {
                status::USAGE
            } else if e.downcast_ref::<common::BlockedByHook>().is_some() {
                status::BLOCKED
            } else {
                status::RUNTIME
            })
        }
    }
}
