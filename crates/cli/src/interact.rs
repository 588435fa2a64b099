//! Answering the runtime's questions outside the interactive session: on the terminal (read a
//! line from stdin; end of input is "no") or, with `--json`, never (only `--yolo` approves).

use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicU32, Ordering};

use futures::future::BoxFuture;
use tether_core::{Confirmation, ConfirmationRequest, Interaction};
use tether_mcp::{Elicitation, ElicitationAnswer};

use crate::render::call_arguments;

/// How many times `--yolo` extends past `max_iterations` before giving up.
pub(crate) const YOLO_EXTENSIONS: u32 = 5;

#[derive(Debug)]
pub(crate) struct PromptInteraction {
    /// `false` with `--json`: nobody can answer, so every question is "no".
    pub(crate) can_ask: bool,
    pub(crate) yolo: bool,
    extensions: AtomicU32,
}

impl PromptInteraction {
    pub(crate) fn new(can_ask: bool, yolo: bool) -> Self {
        Self {
            can_ask,
            yolo,
            extensions: AtomicU32::new(0),
        }
    }
}

/// Prints `question` on stdout and reads one line from stdin, lowercased (`None` at end of
/// input).
async fn ask(question: String) -> Option<String> {
    ask_raw(question).await.map(|a| a.to_lowercase())
}

/// [`ask`] keeping the answer's case (trimmed).
async fn ask_raw(question: String) -> Option<String> {
    tokio::task::spawn_blocking(move || {
        let mut o = std::io::stdout().lock();
        let _ = o.write_all(question.as_bytes());
        let _ = o.flush();
        drop(o);
        let mut line = String::new();
        let read = std::io::stdin().read_line(&mut line);
        // A terminal echoes the answer; piped input would leave the question's line open.
        if !std::io::stdin().is_terminal() {
            let mut o = std::io::stdout().lock();
            let _ = writeln!(o, "{}", line.trim_end());
            let _ = o.flush();
        }
        match read {
            Ok(0) | Err(_) => None,
            Ok(_) => Some(line.trim().to_owned()),
        }
    })
    .await
    .ok()
    .flatten()
}

/// The confirmation text: the call, the hooks' annotations, the question.
pub(crate) fn confirmation_text(req: &ConfirmationRequest) -> String {
    let mut text = format!("\n{}({})\n", req.tool_name, call_arguments(&req.arguments));
    if let Some(meta) = &req.metadata {
        let mut parts = Vec::new();
        if let Some(radius) = meta.get("blast_radius") {
            parts.push(format!("[{radius}]"));
        }
        if let Some(category) = meta.get("category") {
            parts.push(format!("category: {category}"));
        }
        if let Some(reason) = meta.get("reason") {
            parts.push(format!("reason: {reason}"));
        }
        for (k, v) in meta {
            if !matches!(k.as_str(), "blast_radius" | "category" | "reason") {
                parts.push(format!("{k}: {v}"));
            }
        }
        text.push_str(&parts.join("  "));
        text.push('\n');
    }
    text.push_str("Can I run this tool? ([y]es/[a]ll/[n]o) ");
    text
}

impl Interaction for PromptInteraction {
    fn confirm_tool<'a>(&'a self, req: &'a ConfirmationRequest) -> BoxFuture<'a, Confirmation> {
        Box::pin(async move {
            if !self.can_ask {
                return Confirmation::No { reason: None };
            }
            match ask(confirmation_text(req)).await.as_deref() {
                Some("y" | "yes") => Confirmation::Yes,
                Some("a" | "all") => Confirmation::All,
                _ => Confirmation::No { reason: None },
            }
        })
    }

    fn approve_more_iterations(&self, limit: u32) -> BoxFuture<'_, bool> {
        Box::pin(async move {
            if self.yolo {
                return self.extensions.fetch_add(1, Ordering::Relaxed) < YOLO_EXTENSIONS;
            }
            if !self.can_ask {
                return false;
            }
            let q = format!("\nMaximum iterations reached ({limit}). Continue? ([y]es/[n]o) ");
            matches!(ask(q).await.as_deref(), Some("y" | "yes"))
        })
    }

    fn elicit<'a>(&'a self, request: &'a Elicitation) -> BoxFuture<'a, ElicitationAnswer> {
        Box::pin(async move {
            if !self.can_ask {
                return ElicitationAnswer::Decline;
            }
            crate::elicit::answer(request, |q| ask_raw(format!("\n{q}")), crate::out::note).await
        })
    }
}
