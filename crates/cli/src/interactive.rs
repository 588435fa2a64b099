//! The interactive session: a line editor on a terminal (plain lines otherwise), streamed
//! output, a spinner while the model thinks, confirmations, slash commands. Ctrl-C cancels the
//! running turn; Ctrl-D or `/exit` ends the session (`session_end` reason `prompt_input_exit`).

use std::io::IsTerminal;
use std::sync::{Arc, Mutex};

use rustyline::error::ReadlineError;
use tether_core::{EventSink, Interaction, Runtime, Session};
use tokio_util::sync::CancellationToken;

use crate::args::RunArgs;
use crate::commands::run::{build, new_session_id};
use crate::common;
use crate::console::Console;
use crate::interact::PromptInteraction;

const HELP: &str = "commands:
  /help      this help
  /hooks     the effective hooks of the current agent
  /exit      end the session (also Ctrl-D)
anything else is sent to the agent; Ctrl-C cancels the running turn";

/// Where lines come from.
enum Input {
    Editor(Box<rustyline::DefaultEditor>),
    Plain,
}

impl Input {
    /// The next line, `None` at end of input.
    async fn line(&mut self, prompt: &str) -> Option<String> {
        match self {
            Self::Editor(ed) => {
                // rustyline blocks; the runtime has a spare worker thread for it.
                let line = tokio::task::block_in_place(|| ed.readline(prompt));
                match line {
                    Ok(l) => {
                        let _ = ed.add_history_entry(l.as_str());
                        Some(l)
                    }
                    Err(ReadlineError::Interrupted) => Some(String::new()),
                    Err(_) => None,
                }
            }
            Self::Plain => tokio::task::spawn_blocking(|| {
                let mut l = String::new();
                match std::io::stdin().read_line(&mut l) {
                    Ok(0) | Err(_) => None,
                    Ok(_) => Some(l.trim_end_matches(['\n', '\r']).to_owned()),
                }
            })
            .await
            .ok()
            .flatten(),
        }
    }
}

/// The token of the running turn, cancelled by Ctrl-C; SIGTERM ends the session.
fn watch_signals(current: Arc<Mutex<Option<CancellationToken>>>, session_end: CancellationToken) {
    use tokio::signal::unix::{SignalKind, signal};
    tokio::spawn(async move {
        let (Ok(mut int), Ok(mut term)) = (
            signal(SignalKind::interrupt()),
            signal(SignalKind::terminate()),
        ) else {
            return;
        };
        loop {
            tokio::select! {
                _ = int.recv() => {
                    if let Some(t) = current.lock().ok().and_then(|c| c.clone()) {
                        t.cancel();
                    }
                }
                _ = term.recv() => {
                    if let Some(t) = current.lock().ok().and_then(|c| c.clone()) {
                        t.cancel();
                    }
                    session_end.cancel();
                    return;
                }
            }
        }
    });
}

pub(crate) async fn run(args: RunArgs) -> anyhow::Result<u8> {
    let file = common::load(&args.agent_file)?;
    let agent = common::pick_agent(&file, args.agent.as_deref())?
        .name
        .clone();
    let terminal = std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
    let console = Arc::new(Console::new(terminal, args.hide_tool_calls));
    let sink: Arc<dyn EventSink> = if args.json {
        Arc::new(crate::render::JsonSink)
    } else {
        console.clone()
    };
    let interaction: Arc<dyn Interaction> = Arc::new(PromptInteraction::new(!args.json, args.yolo));
    let runtime = build(&args, &file, &agent, sink, interaction, false)?;
    let mut input = if terminal {
        match rustyline::DefaultEditor::new() {
            Ok(ed) => Input::Editor(Box::new(ed)),
            Err(_) => Input::Plain,
        }
    } else {
        Input::Plain
    };
    let mut session = Session::new(new_session_id(), agent);
    let current: Arc<Mutex<Option<CancellationToken>>> = Arc::new(Mutex::new(None));
    let ended = CancellationToken::new();
    watch_signals(Arc::clone(&current), ended.clone());
    runtime.start_session(&mut session, "startup", &ended).await;
    console.banner(&session.agent, &session.id);

    let mut first = Some(args.prompt.join(" ")).filter(|p| !p.trim().is_empty());
    let reason = loop {
        if ended.is_cancelled() {
            break "other";
        }
        let line = match first.take() {
            Some(p) => p,
            None => {
                runtime.waiting_for_user(&session, &ended).await;
                match input.line(&console.prompt()).await {
                    Some(l) => l,
                    None => break "prompt_input_exit",
                }
            }
        };
        let text = line.trim();
        match text {
            "" => continue,
            "/exit" | "/quit" => break "prompt_input_exit",
            "/help" => console.note(HELP),
            "/hooks" => console.note(&hooks_listing(&runtime, &session)),
            t if t.starts_with('/') => {
                console.note(&format!("unknown command `{t}`; /help lists them"))
            }
            _ => run_turn(&runtime, &mut session, text.to_owned(), &current).await,
        }
    };
    runtime.end_session(&session, reason).await;
    console.finish();
    Ok(crate::status::OK)
}

async fn run_turn(
    runtime: &Runtime,
    session: &mut Session,
    prompt: String,
    current: &Arc<Mutex<Option<CancellationToken>>>,
) {
    let token = CancellationToken::new();
    if let Ok(mut c) = current.lock() {
        *c = Some(token.clone());
    }
    runtime.run(session, Some(prompt), &token).await;
    if let Ok(mut c) = current.lock() {
        *c = None;
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
                let first = hook.display_name().lines().next().unwrap_or_default();
                text.push_str(&format!(
                    "\n  {event}{m}: {} {first} [{}]",
                    hook.type_name(),
                    hook.source
                ));
            }
        }
    }
    text
}
