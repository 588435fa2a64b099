//! The interactive session. A thread owns the terminal's line editor (plain lines when stdin is
//! not a terminal) and sends every line to the session loop, which routes it: a prompt when the
//! agent is idle; while it works, an answer to a pending question, a `/followup`, or a steering
//! message. Output goes above the prompt. Ctrl-C cancels the running turn; Ctrl-D or `/exit`
//! ends the session (`session_end` reason `prompt_input_exit`).

use std::io::IsTerminal;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use rustyline::error::ReadlineError;
use tether_core::{
    Compaction, Confirmation, ConfirmationRequest, EventSink, Interaction, Runtime, Session,
};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::CancellationToken;

use crate::args::RunArgs;
use crate::commands::run::{Prepared, cancel_on_signals, prepare};
use crate::console::Console;
use crate::interact::YOLO_EXTENSIONS;

const HELP: &str = "commands:
  /help              this help
  /hooks             the effective hooks of the current agent
  /compact [TEXT]    summarize the conversation (TEXT steers the summary)
  /clear             start a fresh session
  /followup TEXT     queue a message for the end of the current turn
  /snapshots         the undo checkpoints of this session (needs the snapshot hook)
  /undo              restore the files as they were before the latest checkpoint
  /sessions          stored sessions, most recent first
  /exit              end the session (also Ctrl-D)
anything else is a prompt; typed while the agent works, it steers it. Ctrl-C cancels the turn";

/// A line from the terminal.
#[derive(Debug)]
enum Line {
    Text(String),
    Interrupt,
    Eof,
}

/// Reads lines on a thread of its own; the editor's printer goes to the console.
fn spawn_input(console: &Console, terminal: bool) -> mpsc::UnboundedReceiver<Line> {
    let (tx, rx) = mpsc::unbounded_channel();
    let editor = terminal
        .then(|| rustyline::DefaultEditor::new().ok())
        .flatten();
    let mut editor = editor.map(|mut ed| {
        if let Ok(printer) = ed.create_external_printer() {
            console.use_printer(Box::new(printer));
        }
        ed
    });
    std::thread::spawn(move || {
        loop {
            let line = match &mut editor {
                Some(ed) => match ed.readline("> ") {
                    Ok(l) => {
                        let _ = ed.add_history_entry(l.as_str());
                        Line::Text(l)
                    }
                    Err(ReadlineError::Interrupted) => Line::Interrupt,
                    Err(_) => Line::Eof,
                },
                None => {
                    let mut l = String::new();
                    match std::io::stdin().read_line(&mut l) {
                        Ok(0) | Err(_) => Line::Eof,
                        Ok(_) => Line::Text(l.trim_end_matches(['\n', '\r']).to_owned()),
                    }
                }
            };
            let eof = matches!(line, Line::Eof);
            if tx.send(line).is_err() || eof {
                return;
            }
        }
    });
    rx
}

/// Questions the runtime asks, answered by the next line the user types.
#[derive(Debug)]
struct Asker {
    pending: Mutex<Option<oneshot::Sender<String>>>,
    console: Arc<Console>,
    yolo: bool,
    extensions: AtomicU32,
}

impl Asker {
    async fn ask(&self, question: &str) -> Option<String> {
        self.ask_raw(question).await.map(|a| a.to_lowercase())
    }

    /// [`Self::ask`] keeping the answer's case (trimmed).
    async fn ask_raw(&self, question: &str) -> Option<String> {
        let (tx, rx) = oneshot::channel();
        if let Ok(mut p) = self.pending.lock() {
            *p = Some(tx);
        }
        self.console.note(question);
        rx.await.ok().map(|a| a.trim().to_owned())
    }

    /// Hands a line to a pending question; gives it back when nothing waits.
    fn answer(&self, line: String) -> Option<String> {
        match self.pending.lock().ok().and_then(|mut p| p.take()) {
            Some(tx) => {
                let _ = tx.send(line);
                None
            }
            None => Some(line),
        }
    }

    /// Drops a pending question (its answer becomes "no").
    fn cancel(&self) {
        if let Ok(mut p) = self.pending.lock() {
            p.take();
        }
    }
}

impl Interaction for Asker {
    fn confirm_tool<'a>(&'a self, _: &'a ConfirmationRequest) -> BoxFuture<'a, Confirmation> {
        Box::pin(async move {
            match self
                .ask("Can I run this tool? ([y]es/[a]ll/[n]o)")
                .await
                .as_deref()
            {
                Some("y" | "yes") => Confirmation::Yes,
                Some("a" | "all") => Confirmation::All,
                Some(_) => Confirmation::No { reason: None },
                None => Confirmation::Cancelled,
            }
        })
    }

    fn approve_more_iterations(&self, limit: u32) -> BoxFuture<'_, bool> {
        Box::pin(async move {
            if self.yolo {
                return self.extensions.fetch_add(1, Ordering::Relaxed) < YOLO_EXTENSIONS;
            }
            let q = format!("Maximum iterations reached ({limit}). Continue? ([y]es/[n]o)");
            matches!(self.ask(&q).await.as_deref(), Some("y" | "yes"))
        })
    }

    fn elicit<'a>(
        &'a self,
        request: &'a tether_mcp::Elicitation,
    ) -> BoxFuture<'a, tether_mcp::ElicitationAnswer> {
        Box::pin(crate::elicit::answer(
            request,
            move |q| async move { self.ask_raw(&q).await },
            |note| self.console.note(note),
        ))
    }
}

pub(crate) async fn run(args: RunArgs) -> anyhow::Result<u8> {
    let terminal = std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
    let console = Arc::new(Console::new(terminal, args.hide_tool_calls));
    let sink: Arc<dyn EventSink> = if args.json {
        Arc::new(crate::render::JsonSink)
    } else {
        console.clone()
    };
    let asker = Arc::new(Asker {
        pending: Mutex::new(None),
        console: Arc::clone(&console),
        yolo: args.yolo,
        extensions: AtomicU32::new(0),
    });
    let interaction: Arc<dyn Interaction> = asker.clone();
    #[cfg(feature = "otel")]
    let (telemetry, sink, observers) = crate::telemetry::install(sink);
    #[cfg(not(feature = "otel"))]
    let observers = Vec::new();
    let first_prompt = Some(args.prompt.join(" ")).filter(|p| !p.trim().is_empty());
    let Prepared {
        runtime,
        mut session,
        resumed,
        worktree,
        snapshots,
    } = prepare(&args, sink, observers, interaction, first_prompt.as_deref()).await?;
    let mut lines = spawn_input(&console, terminal);
    let ended = CancellationToken::new();
    // SIGTERM (and SIGINT when no line editor catches Ctrl-C) ends the session.
    cancel_on_signals(ended.clone());
    let source = if resumed { "resume" } else { "startup" };
    runtime.start_session(&mut session, source, &ended).await;
    console.banner(&session.agent, &session.id);
    if let Some(welcome) = runtime
        .agent(&session.agent)
        .and_then(|a| a.welcome_message.clone())
    {
        console.note(welcome.trim_end());
    }

    let mut first = first_prompt;
    let reason = loop {
        if ended.is_cancelled() {
            break "other";
        }
        let text = match first.take() {
            Some(p) => p,
            None => {
                runtime.waiting_for_user(&session, &ended).await;
                tokio::select! {
                    line = lines.recv() => match line {
                        Some(Line::Text(t)) => t,
                        Some(Line::Interrupt) => continue,
                        Some(Line::Eof) | None => break "prompt_input_exit",
                    },
                    () = ended.cancelled() => break "other",
                }
            }
        };
        let text = text.trim().to_owned();
        let (command, rest) = text.split_once(' ').unwrap_or((text.as_str(), ""));
        match command {
            "" => {}
            "/exit" | "/quit" => break "prompt_input_exit",
            "/help" => console.note(&help_text(&runtime, &session)),
            "/hooks" => console.note(&hooks_listing(&runtime, &session)),
            "/sessions" => console.note(&sessions_listing(&args)),
            "/followup" if !rest.trim().is_empty() => {
                match session.inbox().follow_up(rest.trim()) {
                    Ok(()) => console.note("follow-up queued"),
                    Err(e) => console.note(&e.to_string()),
                }
            }
            "/snapshots" => console.note(&snapshot_listing(&snapshots, &session.id)),
            "/undo" => match snapshots.undo(&session.id).await {
                Ok(report) => console.note(&undo_text(&report)),
                Err(e) => console.note(&format!("cannot undo: {e}")),
            },
            "/compact" => {
                let extra = Some(rest.trim().to_owned()).filter(|r| !r.is_empty());
                if !runtime
                    .compact(&mut session, Compaction::Manual(extra), &ended)
                    .await
                {
                    console.note("nothing was compacted");
                }
            }
            "/clear" => {
                runtime.end_session(&session, "clear").await;
                session = Session::new(runtime.new_session_id(), session.agent.clone());
                runtime.save_session(&mut session, None, false);
                runtime.start_session(&mut session, "clear", &ended).await;
                console.banner(&session.agent, &session.id);
            }
            c if c.starts_with('/') => {
                match resolve_routed(&runtime, &mut session, &text, &mut lines, &asker).await {
                    Some(prompt) => {
                        let eof =
                            run_turn(&runtime, &mut session, prompt, &mut lines, &asker, &console)
                                .await;
                        if eof {
                            break "prompt_input_exit";
                        }
                    }
                    None => console.note(&format!("unknown command `{c}`; /help lists them")),
                }
            }
            _ => {
                let eof =
                    run_turn(&runtime, &mut session, text, &mut lines, &asker, &console).await;
                if eof {
                    break "prompt_input_exit";
                }
            }
        }
    };
    runtime.end_session(&session, reason).await;
    runtime.stop_servers().await;
    console.finish();
    #[cfg(feature = "otel")]
    crate::telemetry::shutdown(telemetry).await;
    if let Some(wt) = &worktree {
        let remove = if crate::worktree::is_dirty(wt).await {
            console.note(&format!(
                "The worktree {} has uncommitted changes. Remove it anyway? [y/N]",
                wt.path.display()
            ));
            matches!(lines.recv().await, Some(Line::Text(t)) if matches!(t.trim(), "y" | "yes"))
        } else {
            true
        };
        if remove {
            if let Err(e) = crate::worktree::remove(wt).await {
                console.note(&format!("could not remove the worktree: {e}"));
            }
        } else {
            console.note(&format!(
                "kept the worktree {} (branch {})",
                wt.path.display(),
                wt.branch
            ));
        }
    }
    Ok(if session.store_failed {
        crate::status::RUNTIME
    } else {
        crate::status::OK
    })
}

/// `/help`: the session's commands, then the agent's own `commands:`.
fn help_text(runtime: &Runtime, session: &Session) -> String {
    let mut text = HELP.to_owned();
    if let Some(agent) = runtime.agent(&session.agent)
        && !agent.commands.is_empty()
    {
        text.push_str(&format!("\ncommands of agent `{}`:", agent.name));
        for c in &agent.commands {
            let about = if c.description.is_empty() {
                c.instruction.lines().next().unwrap_or_default()
            } else {
                c.description.as_str()
            };
            text.push_str(&format!("\n  /{:<16} {about}", c.name));
        }
    }
    text
}

/// Expands an agent command while routing what the user types to the questions its tool
/// calls may ask. `None` when `text` is not one of the agent's commands.
async fn resolve_routed(
    runtime: &Runtime,
    session: &mut Session,
    text: &str,
    lines: &mut mpsc::UnboundedReceiver<Line>,
    asker: &Asker,
) -> Option<String> {
    let token = CancellationToken::new();
    let resolve = runtime.resolve_command(session, text, &token);
    tokio::pin!(resolve);
    let mut open = true;
    loop {
        tokio::select! {
            r = &mut resolve => return r,
            line = lines.recv(), if open => match line {
                Some(Line::Text(t)) => {
                    let _ = asker.answer(t);
                }
                Some(Line::Interrupt) => {
                    asker.cancel();
                    token.cancel();
                }
                Some(Line::Eof) | None => {
                    open = false;
                    asker.cancel();
                    token.cancel();
                }
            },
        }
    }
}

/// Runs one prompt while routing what the user types. Returns `true` at end of input.
async fn run_turn(
    runtime: &Runtime,
    session: &mut Session,
    prompt: String,
    lines: &mut mpsc::UnboundedReceiver<Line>,
    asker: &Asker,
    console: &Console,
) -> bool {
    let token = CancellationToken::new();
    let inbox = session.inbox();
    let run = runtime.run(session, Some(prompt), &token);
    tokio::pin!(run);
    let mut eof = false;
    loop {
        tokio::select! {
            _ = &mut run => return eof,
            line = lines.recv(), if !eof => match line {
                Some(Line::Text(t)) => {
                    let Some(t) = asker.answer(t) else { continue };
                    let t = t.trim();
                    if let Some(rest) = t.strip_prefix("/followup ") {
                        let r = inbox.follow_up(rest.trim());
                        console.note(&r.map_or_else(|e| e.to_string(), |()| "follow-up queued".to_owned()));
                    } else if t == "/exit" || t == "/quit" {
                        token.cancel();
                        eof = true;
                    } else if !t.is_empty() {
                        let r = inbox.steer(t);
                        console.note(&r.map_or_else(|e| e.to_string(), |()| "(steering the agent)".to_owned()));
                    }
                }
                Some(Line::Interrupt) => {
                    asker.cancel();
                    token.cancel();
                }
                Some(Line::Eof) | None => {
                    asker.cancel();
                    token.cancel();
                    eof = true;
                }
            },
        }
    }
}

fn hooks_listing(runtime: &Runtime, session: &Session) -> String {
    let Some(agent) = runtime.agent(&session.agent) else {
        return String::new();
    };
    let mut text = format!("hooks of agent `{}`:", agent.name);
    for event in tether_protocol::HookEvent::ALL {
        for lane in [
            tether_protocol::Lane::Preempt,
            tether_protocol::Lane::Default,
        ] {
            for (matcher, hook) in agent.executor.hooks(event, lane) {
                let m = if event.uses_matcher() {
                    format!(" matcher={}", matcher.source())
                } else {
                    String::new()
                };
                let name = crate::render::short_command(hook.display_name());
                text.push_str(&format!(
                    "\n  {event}{m}: {} {name} [{}]",
                    hook.type_name(),
                    hook.source
                ));
            }
        }
    }
    text
}

fn sessions_listing(args: &RunArgs) -> String {
    let Ok(store) = crate::common::open_store(args.session_db.as_deref()) else {
        return "the session database cannot be opened".to_owned();
    };
    let list = store.list().unwrap_or_default();
    if list.is_empty() {
        return "no stored sessions".to_owned();
    }
    list.iter()
        .take(20)
        .map(|s| {
            format!(
                "{}  {}  {}",
                s.id,
                s.agent,
                s.first_prompt
                    .as_deref()
                    .unwrap_or("")
                    .lines()
                    .next()
                    .unwrap_or("")
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn snapshot_listing(snapshots: &tether_hooks::builtins::Snapshot, session_id: &str) -> String {
    let checkpoints = snapshots.checkpoints(session_id);
    if checkpoints.is_empty() {
        let why = snapshots.last_error(session_id).map_or_else(
            || " (enable them with `settings.snapshot: true` in the user config)".to_owned(),
            |e| format!(" (the last capture failed: {e})"),
        );
        return format!("no checkpoints{why}");
    }
    checkpoints
        .iter()
        .rev()
        .map(|c| {
            let files = c
                .files
                .iter()
                .take(5)
                .cloned()
                .collect::<Vec<_>>()
                .join(", ");
            let more = if c.files.len() > 5 {
                format!(" and {} more", c.files.len() - 5)
            } else {
                String::new()
            };
            format!(
                "#{}  {}  {}  {files}{more}",
                c.id,
                c.when.strftime("%H:%M:%S"),
                c.label
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

fn undo_text(report: &tether_hooks::builtins::UndoReport) -> String {
    let mut text = format!(
        "undid #{} ({})",
        report.checkpoint.id, report.checkpoint.label
    );
    if !report.restored.is_empty() {
        text.push_str(&format!("; restored {}", report.restored.join(", ")));
    }
    if !report.removed.is_empty() {
        text.push_str(&format!("; removed {}", report.removed.join(", ")));
    }
    text
}
