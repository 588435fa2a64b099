//! `--exec` text output, byte-compatible with docker-agent's: an agent header, a `Calling …`
//! line and a `… response → "…"` line per tool call, the streamed assistant text. Warnings,
//! errors and hook notices go to stderr.

use std::io::Write;
use std::sync::Mutex;

use tether_core::EventSink;
use tether_protocol::RuntimeEvent;

use super::{blocking_hook, call_arguments, json_string};

#[derive(Debug, Default)]
struct State {
    agent: Option<String>,
}

#[derive(Debug)]
pub(crate) struct ExecSink {
    state: Mutex<State>,
    hide_tool_calls: bool,
}

impl ExecSink {
    pub(crate) fn new(hide_tool_calls: bool) -> Self {
        Self {
            state: Mutex::new(State::default()),
            hide_tool_calls,
        }
    }
}

fn out(text: &str) {
    let mut o = std::io::stdout().lock();
    // A closed pipe is the reader's choice, not our error.
    let _ = o.write_all(text.as_bytes());
    let _ = o.flush();
}

fn err(text: &str) {
    let _ = writeln!(std::io::stderr().lock(), "{text}");
}

impl EventSink for ExecSink {
    fn emit(&self, _session_id: &str, event: RuntimeEvent) {
        match event {
            RuntimeEvent::AgentChanged { agent } => {
                let Ok(mut state) = self.state.lock() else {
                    return;
                };
                if state.agent.as_deref() != Some(agent.as_str()) {
                    out(&format!("\n--- Agent: {agent} ---\n"));
                    state.agent = Some(agent);
                }
            }
            RuntimeEvent::AgentTextDelta { text, .. } => out(&text),
            RuntimeEvent::ToolCall {
                name, arguments, ..
            } if !self.hide_tool_calls => {
                out(&format!(
                    "\nCalling {name}({})\n",
                    call_arguments(&arguments)
                ));
            }
            RuntimeEvent::ToolResponse { name, response, .. } if !self.hide_tool_calls => {
                out(&format!("\n{name} response → {}\n", json_string(&response)));
            }
            RuntimeEvent::ToolProgress {
                name,
                progress,
                total,
                message,
                ..
            } if !self.hide_tool_calls => {
                err(&crate::render::progress_text(
                    &name,
                    progress,
                    total,
                    message.as_deref(),
                ));
            }
            RuntimeEvent::Warning { message } => err(&format!("warning: {message}")),
            RuntimeEvent::Error { message, .. } => err(&format!("error: {message}")),
            RuntimeEvent::HookBlocked {
                event,
                hook,
                message,
            } => {
                let who = blocking_hook(&hook);
                err(&format!("blocked by {event} hook{who}: {message}"));
            }
            _ => {}
        }
    }
}
