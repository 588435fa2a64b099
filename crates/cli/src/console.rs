//! The interactive renderer: streamed text, coloured tool calls and notices, a spinner while the
//! model thinks, `blast_radius` badges on confirmations. Colour follows `NO_COLOR` and whether
//! stdout is a terminal (anstream).

use std::borrow::Cow;
use std::io::Write;
use std::sync::Mutex;
use std::time::Duration;

use anstyle::{AnsiColor, Style};
use indicatif::{ProgressBar, ProgressStyle};
use tether_core::EventSink;
use tether_protocol::RuntimeEvent;

use crate::render::{blocking_hook, call_arguments};

const TOOL: Style = AnsiColor::Cyan.on_default();
const DIM: Style = Style::new().dimmed();
const WARN: Style = AnsiColor::Yellow.on_default();
const ERROR: Style = AnsiColor::Red.on_default().bold();
const AGENT: Style = AnsiColor::Magenta.on_default().bold();

/// Where text goes: straight to stdout, or above the line editor's prompt while it waits for
/// input (rustyline's external printer redraws the prompt after each message).
enum Sink {
    Direct,
    Printer(Box<dyn rustyline::ExternalPrinter + Send>),
}

impl std::fmt::Debug for Sink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Self::Direct => "Direct",
            Self::Printer(_) => "Printer",
        })
    }
}

#[derive(Debug)]
struct State {
    sink: Sink,
    /// Text not yet printed because its line is not finished (printer mode prints whole lines).
    partial: String,
    spinner: Option<ProgressBar>,
    /// The last thing printed did not end with a newline.
    mid_line: bool,
    agent: Option<String>,
}

#[derive(Debug)]
pub(crate) struct Console {
    state: Mutex<State>,
    terminal: bool,
    /// Styles are kept: a terminal, and `NO_COLOR` unset or empty.
    colour: bool,
    hide_tool_calls: bool,
}

/// The badge for a `blast_radius` value.
pub(crate) fn badge(radius: &str) -> (Style, String) {
    let style = match radius {
        "low" => AnsiColor::Green.on_default().bold(),
        "medium" => AnsiColor::Yellow.on_default().bold(),
        "high" => AnsiColor::Red.on_default().bold(),
        _ => DIM,
    };
    (style, format!("[{}]", radius.to_uppercase()))
}

impl Console {
    pub(crate) fn new(terminal: bool, hide_tool_calls: bool) -> Self {
        Self {
            state: Mutex::new(State {
                sink: Sink::Direct,
                partial: String::new(),
                spinner: None,
                mid_line: false,
                agent: None,
            }),
            terminal,
            colour: terminal && std::env::var_os("NO_COLOR").is_none_or(|v| v.is_empty()),
            hide_tool_calls,
        }
    }

    /// Prints through the line editor from now on.
    pub(crate) fn use_printer(&self, printer: Box<dyn rustyline::ExternalPrinter + Send>) {
        self.with_state(|s| s.sink = Sink::Printer(printer));
    }

    fn write(&self, state: &mut State, text: &str) {
        if let Some(s) = state.spinner.take() {
            s.finish_and_clear();
        }
        let text = if self.colour {
            Cow::Borrowed(text)
        } else {
            Cow::Owned(anstream::adapter::strip_str(text).to_string())
        };
        match &mut state.sink {
            Sink::Direct => {
                let mut out = std::io::stdout().lock();
                let _ = out.write_all(text.as_bytes());
                let _ = out.flush();
            }
            Sink::Printer(printer) => {
                state.partial.push_str(&text);
                if let Some(end) = state.partial.rfind('\n') {
                    let lines: String = state.partial.drain(..=end).collect();
                    let _ = printer.print(lines);
                }
            }
        }
        if !text.is_empty() {
            state.mid_line = !text.ends_with('\n');
        }
    }

    /// A line of its own, starting on a fresh line.
    fn line(&self, state: &mut State, style: Style, text: &str) {
        let lead = if state.mid_line { "\n" } else { "" };
        self.write(state, &format!("{lead}{style}{text}{style:#}\n"));
    }

    fn with_state(&self, f: impl FnOnce(&mut State)) {
        if let Ok(mut s) = self.state.lock() {
            f(&mut s);
        }
    }

    pub(crate) fn banner(&self, agent: &str, session_id: &str) {
        self.with_state(|s| {
            self.line(
                s,
                DIM,
                &format!("tether · agent {agent} · session {session_id} · /help for commands"),
            );
        });
    }

    pub(crate) fn note(&self, text: &str) {
        self.with_state(|s| self.line(s, DIM, text));
    }

    pub(crate) fn finish(&self) {
        self.with_state(|s| {
            if s.mid_line {
                self.write(s, "\n");
            }
        });
    }
}

impl EventSink for Console {
    fn emit(&self, _session_id: &str, event: RuntimeEvent) {
        self.with_state(|s| match event {
            RuntimeEvent::AgentChanged { agent } if s.agent.as_deref() != Some(agent.as_str()) => {
                self.line(s, AGENT, &format!("── {agent} ──"));
                s.agent = Some(agent);
            }
            RuntimeEvent::ModelCallStarted { .. }
                if self.terminal && matches!(s.sink, Sink::Direct) =>
            {
                let bar = ProgressBar::new_spinner();
                if let Ok(style) = ProgressStyle::with_template("{spinner} {msg}") {
                    bar.set_style(style);
                }
                bar.set_message("thinking…");
                bar.enable_steady_tick(Duration::from_millis(100));
                s.spinner = Some(bar);
            }
            RuntimeEvent::AgentTextDelta { text, .. } => self.write(s, &text),
            RuntimeEvent::ReasoningDelta { text, .. } => {
                self.write(s, &format!("{DIM}{text}{DIM:#}"))
            }
            RuntimeEvent::AgentMessage { .. } if s.mid_line => self.write(s, "\n"),
            RuntimeEvent::ToolCall {
                name, arguments, ..
            } if !self.hide_tool_calls => {
                self.line(
                    s,
                    TOOL,
                    &format!("▶ {name}({})", call_arguments(&arguments)),
                );
            }
            RuntimeEvent::ToolProgress {
                name,
                progress,
                total,
                message,
                ..
            } if !self.hide_tool_calls => {
                self.line(
                    s,
                    DIM,
                    &crate::render::progress_text(&name, progress, total, message.as_deref()),
                );
            }
            RuntimeEvent::ToolResponse {
                name,
                response,
                is_error,
                ..
            } if !self.hide_tool_calls => {
                let mut lines = response.lines();
                let mut shown: Vec<&str> = lines.by_ref().take(6).collect();
                if lines.next().is_some() {
                    shown.push("…");
                }
                let style = if is_error { WARN } else { DIM };
                self.line(s, style, &format!("◀ {name}: {}", shown.join("\n  ")));
            }
            RuntimeEvent::ToolConfirmation {
                name,
                arguments,
                metadata,
                ..
            } => {
                let mut text = format!("{TOOL}? {name}({}){TOOL:#}", call_arguments(&arguments));
                if let Some(meta) = metadata {
                    if let Some(radius) = meta.get("blast_radius") {
                        let (style, label) = badge(radius);
                        text.push_str(&format!(" {style}{label}{style:#}"));
                    }
                    for key in ["category", "reason"] {
                        if let Some(v) = meta.get(key) {
                            text.push_str(&format!(" {DIM}{key}: {v}{DIM:#}"));
                        }
                    }
                }
                let lead = if s.mid_line { "\n" } else { "" };
                self.write(s, &format!("{lead}{text}\n"));
            }
            RuntimeEvent::HookBlocked {
                event,
                hook,
                message,
            } => {
                let who = blocking_hook(&hook);
                self.line(
                    s,
                    ERROR,
                    &format!("✋ blocked by {event} hook{who}: {message}"),
                );
            }
            RuntimeEvent::Warning { message } => self.line(s, WARN, &format!("warning: {message}")),
            RuntimeEvent::Error { message, .. } => {
                self.line(s, ERROR, &format!("error: {message}"))
            }
            _ => {}
        });
    }
}
