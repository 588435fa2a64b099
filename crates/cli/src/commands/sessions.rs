//! `tether sessions list | show ID | rm ID` (docs/cli.md).

use serde_json::json;
use tether_protocol::{Message, Role};

use crate::args::{SessionIdArgs, SessionsCommand};
use crate::common::{self, user_error};
use crate::{out, status};

pub(crate) fn run(cmd: SessionsCommand) -> anyhow::Result<u8> {
    match cmd {
        SessionsCommand::List(args) => {
            let store = common::open_store(args.session_db.as_deref())?;
            for s in store.list().map_err(|e| anyhow::anyhow!("{e}"))? {
                let prompt = s.first_prompt.unwrap_or_default();
                let line = if args.json {
                    json!({"id": s.id, "updated_at": s.updated_at.to_string(), "agent": s.agent, "first_prompt": prompt}).to_string()
                } else {
                    format!(
                        "{}\t{}\t{}\t{}",
                        s.id,
                        rfc3339(s.updated_at),
                        s.agent,
                        truncate(&prompt, 60)
                    )
                };
                out::line(&line)?;
            }
            Ok(status::OK)
        }
        SessionsCommand::Show(args) => show(&args),
        SessionsCommand::Rm(args) => {
            let store = common::open_store(args.session_db.as_deref())?;
            if store.delete(&args.id).map_err(|e| anyhow::anyhow!("{e}"))? {
                Ok(status::OK)
            } else {
                Err(user_error(format!("no session `{}`", args.id)))
            }
        }
    }
}

/// RFC 3339 with second precision.
fn rfc3339(t: jiff::Timestamp) -> String {
    t.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

fn truncate(text: &str, max: usize) -> String {
    let line = text.lines().next().unwrap_or_default();
    if line.chars().count() > max || text.lines().count() > 1 {
        format!("{}…", line.chars().take(max).collect::<String>())
    } else {
        line.to_owned()
    }
}

fn show(args: &SessionIdArgs) -> anyhow::Result<u8> {
    let store = common::open_store(args.session_db.as_deref())?;
    let stored = store
        .load(&args.id)
        .map_err(|e| anyhow::anyhow!("{e}"))?
        .ok_or_else(|| user_error(format!("no session `{}`", args.id)))?;
    let meta = &stored.meta;
    let mut text = format!(
        "session {}\nagent {} · updated {} · working directory {}\n",
        meta.id,
        meta.agent,
        rfc3339(meta.updated_at),
        meta.working_dir.display()
    );
    if let Some(parent) = &meta.parent_id {
        text.push_str(&format!("sub-session of {parent}\n"));
    }
    if let Some(summary) = &meta.summary {
        text.push_str(&format!("\n[summary]\n{summary}\n"));
    }
    for m in &stored.messages {
        text.push_str(&render(m));
    }
    for child in &stored.sub_sessions {
        text.push_str(&format!("\n[sub-session {child}]\n"));
    }
    out::line(text.trim_end())?;
    Ok(status::OK)
}

fn render(m: &Message) -> String {
    match m.role {
        Role::User => format!("\n> {}\n", m.text()),
        Role::System => format!("\n[system] {}\n", m.text()),
        Role::Assistant => {
            let mut s = String::new();
            let who = if m.name.is_empty() {
                "assistant"
            } else {
                m.name.as_str()
            };
            if !m.text().is_empty() {
                s.push_str(&format!("\n{who}: {}\n", m.text()));
            }
            for c in &m.tool_calls {
                s.push_str(&format!(
                    "\n{who} calls {}({})\n",
                    c.function.name, c.function.arguments
                ));
            }
            s
        }
        Role::Tool => {
            let mark = if m.is_error { " (error)" } else { "" };
            format!(
                "{} response{mark} → {}\n",
                m.name,
                crate::render::json_string(&m.content)
            )
        }
    }
}
