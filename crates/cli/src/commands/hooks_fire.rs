//! `tether hooks fire EVENT`: one dispatch, no model, the aggregate as JSON (docs/cli.md).

use std::collections::BTreeMap;
use std::io::Write;
use std::sync::Arc;

use serde::Serialize;
use serde_json::{Map, Value};
use tether_config::HooksConfig;
use tether_hooks::{HookLog, HookObserver, HookResult, duration_ms};
use tether_protocol::{HookEvent, HookInput, Lane, Message};
use tokio_util::sync::CancellationToken;

use crate::args::FireArgs;
use crate::common::{self, user_error};
use crate::json_pretty::PrettyObject;
use crate::{out, status};

#[derive(Debug, Serialize)]
struct FireOutput<'a> {
    event: &'a str,
    allowed: bool,
    decision: Option<&'a str>,
    decision_reason: Option<&'a str>,
    permission_allowed: bool,
    message: &'a str,
    additional_context: &'a str,
    system_message: &'a str,
    modified_input: Option<Map<String, Value>>,
    summary: Option<&'a str>,
    updated_tool_response: Option<&'a str>,
    updated_messages: Option<&'a [Message]>,
    metadata: Option<&'a BTreeMap<String, String>>,
    exit_code: i32,
    stderr: &'a str,
    hooks: Vec<FireHook<'a>>,
}

#[derive(Debug, Serialize)]
struct FireHook<'a> {
    index: usize,
    name: &'a str,
    #[serde(rename = "type")]
    kind: &'a str,
    status: &'a str,
    exit_code: Option<i32>,
    duration_ms: f64,
    error: Option<&'a str>,
}

fn read_input(arg: Option<&str>) -> anyhow::Result<HookInput> {
    let Some(text) = common::read_input_text(arg)? else {
        return Ok(HookInput::default());
    };
    serde_json::from_str(&text)
        .map_err(|e| user_error(format!("the input is not a hook Input JSON object: {e}")))
}

pub(crate) async fn run(args: FireArgs) -> anyhow::Result<u8> {
    let event = HookEvent::from_wire_name(&args.event).ok_or_else(|| {
        let names: Vec<&str> = HookEvent::ALL.iter().map(|e| e.wire_name()).collect();
        user_error(format!(
            "unknown event `{}` (events: {})",
            args.event,
            names.join(", ")
        ))
    })?;
    let cli_hooks = args.hooks.to_cli_hooks();
    let file = args.config.as_deref().map(common::load).transpose()?;
    let hooks: HooksConfig = match &file {
        Some(file) => {
            let agent = common::pick_agent(file, args.agent.as_deref())?;
            common::effective(agent, &cli_hooks, &common::user_config()?)
        }
        None => cli_hooks.to_config(),
    };
    let mut observers: Vec<Arc<dyn HookObserver>> = Vec::new();
    if let Some(path) = &args.hook_log {
        let log = HookLog::open(path)
            .map_err(|e| user_error(format!("cannot open `{}`: {e}", path.display())))?;
        observers.push(Arc::new(log));
    }
    let cwd = common::current_dir()?;
    let executor = common::executor(
        &hooks,
        Arc::new(common::registry(file.as_ref())),
        cwd.clone(),
        observers,
    )?;

    let mut input = read_input(args.input.as_deref())?;
    if input.session_id.is_empty() {
        "hooks-fire".clone_into(&mut input.session_id);
    }
    if input.cwd.is_empty() {
        input.cwd = cwd.display().to_string();
    }
    if let Some(tool) = args.tool {
        input.tool_name = tool;
    }
    let original_args = input.tool_input.clone();
    let cancel = CancellationToken::new();
    let result = if event == HookEvent::PreToolUse {
        executor.dispatch_pre_tool_use(input, &cancel).await
    } else {
        executor
            .dispatch(event, Lane::Default, input, &cancel)
            .await
    };
    for w in &result.warnings {
        out::warning(w);
    }
    render(event, &result, original_args.as_ref()).print()?;
    // `async` hooks finish (or are killed after the grace period) before the process exits.
    executor.shutdown(tether_core::ASYNC_HOOK_GRACE).await;
    Ok(if result.allowed {
        status::OK
    } else {
        status::BLOCKED
    })
}

impl FireOutput<'_> {
    /// Prints the output as `out::json_line` would, with its strings escaped by
    /// `json_pretty` (a rewritten tool output may be megabytes).
    fn print(&self) -> std::io::Result<()> {
        let stdout = std::io::stdout().lock();
        self.write_pretty(std::io::BufWriter::with_capacity(64 * 1024, stdout))
    }

    fn write_pretty(&self, out: impl Write) -> std::io::Result<()> {
        let mut o = PrettyObject::new(out)?;
        o.text("event", Some(self.event))?;
        o.value("allowed", &self.allowed)?;
        o.text("decision", self.decision)?;
        o.text("decision_reason", self.decision_reason)?;
        o.value("permission_allowed", &self.permission_allowed)?;
        o.text("message", Some(self.message))?;
        o.text("additional_context", Some(self.additional_context))?;
        o.text("system_message", Some(self.system_message))?;
        o.value("modified_input", &self.modified_input)?;
        o.text("summary", self.summary)?;
        o.text("updated_tool_response", self.updated_tool_response)?;
        o.value("updated_messages", &self.updated_messages)?;
        o.value("metadata", &self.metadata)?;
        o.value("exit_code", &self.exit_code)?;
        o.text("stderr", Some(self.stderr))?;
        o.value("hooks", &self.hooks)?;
        let mut out = o.end()?;
        out.write_all(b"\n")?;
        out.flush()
    }
}

fn non_empty(s: &str) -> Option<&str> {
    (!s.is_empty()).then_some(s)
}

fn render<'a>(
    event: HookEvent,
    r: &'a HookResult,
    original: Option<&Map<String, Value>>,
) -> FireOutput<'a> {
    FireOutput {
        event: event.wire_name(),
        allowed: r.allowed,
        decision: r.decision.map(|d| d.as_str()),
        decision_reason: r.decision.and(non_empty(&r.decision_reason)),
        permission_allowed: r.permission_allowed,
        message: &r.message,
        additional_context: &r.additional_context,
        system_message: &r.system_message,
        modified_input: r.apply_updated_input(original),
        summary: non_empty(&r.summary),
        updated_tool_response: r.updated_tool_response.as_deref(),
        updated_messages: r.updated_messages.as_deref().filter(|m| !m.is_empty()),
        metadata: (!r.metadata.is_empty()).then_some(&r.metadata),
        exit_code: r.exit_code,
        stderr: &r.stderr,
        hooks: r
            .runs
            .iter()
            .enumerate()
            .map(|(index, run)| FireHook {
                index,
                name: &run.name,
                kind: run.kind,
                status: run.status.as_str(),
                exit_code: run.exit_code,
                duration_ms: duration_ms(run.duration),
                error: run.error.as_deref(),
            })
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_output_is_printed_as_serde_json_pretty_prints_it() {
        let metadata = BTreeMap::from([("risk".to_owned(), "high\n\"x\"".to_owned())]);
        let messages = vec![Message::assistant("done \"x\"")];
        let mut args = Map::new();
        args.insert("cmd".to_owned(), Value::from("ls\t-la"));
        let full = FireOutput {
            event: "tool_response_transform",
            allowed: false,
            decision: Some("block"),
            decision_reason: Some("no \u{1}"),
            permission_allowed: true,
            message: "m\\",
            additional_context: "ctx\r\n",
            system_message: "é😀",
            modified_input: Some(args),
            summary: Some("s"),
            updated_tool_response: Some("line one\nline \"two\"\u{7}"),
            updated_messages: Some(&messages),
            metadata: Some(&metadata),
            exit_code: 2,
            stderr: "err",
            hooks: vec![FireHook {
                index: 0,
                name: "redact_secrets",
                kind: "builtin",
                status: "ok",
                exit_code: None,
                duration_ms: 0.25,
                error: Some("e"),
            }],
        };
        let empty = FireOutput {
            event: "stop",
            allowed: true,
            decision: None,
            decision_reason: None,
            permission_allowed: false,
            message: "",
            additional_context: "",
            system_message: "",
            modified_input: None,
            summary: None,
            updated_tool_response: None,
            updated_messages: None,
            metadata: None,
            exit_code: 0,
            stderr: "",
            hooks: vec![],
        };
        for output in [full, empty] {
            let mut written = Vec::new();
            output.write_pretty(&mut written).unwrap();
            let expected = serde_json::to_string_pretty(&output).unwrap() + "\n";
            assert_eq!(String::from_utf8(written).unwrap(), expected);
        }
    }
}
