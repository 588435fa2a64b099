//! The span tree built from event sequences like the runtime's. Test names start with `otel`
//! so CI's `-E 'test(otel)'` picks them.

use std::collections::HashMap;
use std::fmt::Write as _;
use std::time::{Duration, SystemTime};

use opentelemetry::trace::Status;
use pretty_assertions::assert_eq;
use tether_hooks::RunStatus;
use tether_protocol::{HookEvent, Lane, Usage};

use super::*;

fn t(ms: u64) -> SystemTime {
    SystemTime::UNIX_EPOCH + Duration::from_millis(ms)
}

fn ms(at: SystemTime) -> u128 {
    at.duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default()
        .as_millis()
}

/// The spans as an indented tree (children by start time), each with its times, status and
/// attributes, so a test compares everything at once.
fn tree(spans: &[SpanData]) -> String {
    let mut children: HashMap<SpanId, Vec<&SpanData>> = HashMap::new();
    for s in spans {
        children.entry(s.parent_span_id).or_default().push(s);
    }
    for list in children.values_mut() {
        list.sort_by_key(|s| (s.start_time, s.end_time, s.name.clone()));
    }
    let mut out = String::new();
    fn walk(
        out: &mut String,
        children: &HashMap<SpanId, Vec<&SpanData>>,
        parent: SpanId,
        depth: usize,
    ) {
        for s in children.get(&parent).map(Vec::as_slice).unwrap_or_default() {
            let mut attrs: Vec<String> = s
                .attributes
                .iter()
                .map(|kv| format!("{}={}", kv.key, kv.value))
                .collect();
            attrs.sort();
            let status = match &s.status {
                Status::Unset => String::new(),
                Status::Ok => " ok".to_owned(),
                Status::Error { description } => format!(" error({description})"),
            };
            let _ = writeln!(
                out,
                "{}{} [{}..{}]{status} {}",
                "  ".repeat(depth),
                s.name,
                ms(s.start_time),
                ms(s.end_time),
                attrs.join(" ")
            );
            walk(out, children, s.span_context.span_id(), depth + 1);
        }
    }
    walk(&mut out, &children, SpanId::INVALID, 0);
    out
}

fn key(event: HookEvent, name: &str) -> HookKey {
    HookKey {
        event,
        lane: Lane::Default,
        name: name.to_owned(),
    }
}

fn done(
    event: HookEvent,
    name: &str,
    millis: u64,
    status: RunStatus,
    verdict: &'static str,
) -> HookDone {
    HookDone {
        key: key(event, name),
        kind: "command",
        source: "yaml",
        status,
        exit_code: match status {
            RunStatus::Ok => Some(0),
            RunStatus::Blocked => Some(2),
            RunStatus::Error => Some(1),
            RunStatus::Failed | RunStatus::TimedOut => None,
        },
        duration: Duration::from_millis(millis),
        verdict,
        error: matches!(status, RunStatus::TimedOut).then(|| "timed out after 1s".to_owned()),
    }
}

/// A hook run from `start` to `start + millis`.
fn hook(tr: &mut Tracker, session: &str, start: u64, run: HookDone) {
    let end = start + u64::try_from(run.duration.as_millis()).unwrap();
    tr.hook_started(t(start), session, run.key.clone());
    tr.hook_finished(t(end), session, run);
}

fn tool(id: &str, name: &str, step: ToolStep) -> Observed {
    Observed::Tool {
        id: id.to_owned(),
        name: name.to_owned(),
        step,
    }
}

fn started(agent: &str) -> Observed {
    Observed::SessionStarted {
        agent: agent.to_owned(),
        resumed: false,
        model: String::new(),
    }
}

fn usage(input: u64, output: u64) -> Option<Usage> {
    Some(Usage {
        input_tokens: input,
        output_tokens: output,
        ..Usage::default()
    })
}

#[test]
fn otel_tool_spans_adopt_their_pre_tool_use_hooks_and_keep_post_tool_use() {
    let mut tr = Tracker::default();
    let s = "s1";
    tr.observe(t(0), s, started("root"));
    hook(
        &mut tr,
        s,
        1,
        done(HookEvent::SessionStart, "greet", 2, RunStatus::Ok, "none"),
    );
    tr.observe(t(10), s, Observed::TurnStarted { iteration: 1 });
    tr.observe(
        t(11),
        s,
        Observed::ModelCallStarted {
            model: "script/s.yaml".into(),
        },
    );
    hook(
        &mut tr,
        s,
        15,
        done(HookEvent::AfterLlmCall, "audit", 1, RunStatus::Ok, "none"),
    );
    tr.observe(
        t(17),
        s,
        Observed::ModelResponse {
            usage: usage(12, 3),
            cost: None,
            finish_reason: Some("tool_calls".into()),
        },
    );
    hook(
        &mut tr,
        s,
        20,
        done(HookEvent::PreToolUse, "guard", 5, RunStatus::Ok, "allow"),
    );
    tr.observe(t(26), s, tool("call_1", "shell", ToolStep::Call));
    tr.observe(
        t(40),
        s,
        tool("call_1", "shell", ToolStep::Response { is_error: false }),
    );
    hook(
        &mut tr,
        s,
        41,
        done(HookEvent::PostToolUse, "log", 4, RunStatus::Ok, "none"),
    );
    // The second call is denied by its hook: no `tool_call`, a synthesised error result.
    hook(
        &mut tr,
        s,
        50,
        done(
            HookEvent::PreToolUse,
            "guard",
            3,
            RunStatus::Blocked,
            "deny",
        ),
    );
    tr.observe(
        t(54),
        s,
        tool("call_2", "shell", ToolStep::Response { is_error: true }),
    );
    hook(
        &mut tr,
        s,
        60,
        done(HookEvent::TurnEnd, "tally", 1, RunStatus::Ok, "none"),
    );
    tr.observe(
        t(62),
        s,
        Observed::TurnEnded {
            reason: "continue".into(),
        },
    );
    hook(
        &mut tr,
        s,
        70,
        done(HookEvent::SessionEnd, "bye", 2, RunStatus::TimedOut, "none"),
    );
    tr.observe(
        t(80),
        s,
        Observed::SessionEnded {
            reason: "other".into(),
        },
    );

    let hook_attrs =
        |event: &str, name: &str, ms: &str, status: &str, verdict: &str, extra: &[&str]| {
            let mut a = vec![
                format!("tether.hook.duration_ms={ms}"),
                format!("tether.hook.event={event}"),
                "tether.hook.lane=default".to_owned(),
                format!("tether.hook.name={name}"),
                "tether.hook.source=yaml".to_owned(),
                format!("tether.hook.status={status}"),
                "tether.hook.type=command".to_owned(),
                format!("tether.hook.verdict={verdict}"),
            ];
            a.extend(extra.iter().map(|e| (*e).to_owned()));
            a.sort();
            a.join(" ")
        };
    let code0 = ["tether.hook.exit_code=0"];
    let expected = [
        "invoke_agent root [0..80] gen_ai.agent.name=root gen_ai.conversation.id=s1 gen_ai.operation.name=invoke_agent tether.agent=root tether.session.end_reason=other tether.session.id=s1 tether.session.resumed=false".to_owned(),
        format!("  hook session_start [1..3] {}", hook_attrs("session_start", "greet", "2", "ok", "none", &code0)),
        "  turn [10..62] tether.turn.iteration=1 tether.turn.reason=continue".to_owned(),
        "    chat s.yaml [11..15] gen_ai.conversation.id=s1 gen_ai.operation.name=chat gen_ai.provider.name=script gen_ai.request.model=s.yaml gen_ai.response.finish_reasons=[\"tool_calls\"] gen_ai.usage.input_tokens=12 gen_ai.usage.output_tokens=3 tether.model.id=script/s.yaml tether.usage.cached_input_tokens=0 tether.usage.cached_write_tokens=0 tether.usage.input_tokens=12 tether.usage.output_tokens=3".to_owned(),
        format!("    hook after_llm_call [15..16] {}", hook_attrs("after_llm_call", "audit", "1", "ok", "none", &code0)),
        "    execute_tool shell [20..45] gen_ai.operation.name=execute_tool gen_ai.tool.call.id=call_1 gen_ai.tool.name=shell gen_ai.tool.type=function tether.tool.id=call_1 tether.tool.is_error=false tether.tool.name=shell".to_owned(),
        format!("      hook pre_tool_use [20..25] {}", hook_attrs("pre_tool_use", "guard", "5", "ok", "allow", &code0)),
        format!("      hook post_tool_use [41..45] {}", hook_attrs("post_tool_use", "log", "4", "ok", "none", &code0)),
        "    execute_tool shell [50..54] error(the tool call failed) gen_ai.operation.name=execute_tool gen_ai.tool.call.id=call_2 gen_ai.tool.name=shell gen_ai.tool.type=function tether.tool.id=call_2 tether.tool.is_error=true tether.tool.name=shell".to_owned(),
        format!("      hook pre_tool_use [50..53] {}", hook_attrs("pre_tool_use", "guard", "3", "blocked", "deny", &["tether.hook.exit_code=2"])),
        format!("    hook turn_end [60..61] {}", hook_attrs("turn_end", "tally", "1", "ok", "none", &code0)),
        format!(
            "  hook session_end [70..72] error(timed out after 1s) {}",
            hook_attrs("session_end", "bye", "2", "timed_out", "none", &["tether.hook.error=timed out after 1s"])
        ),
    ];
    assert_eq!(tree(&tr.take()), expected.join("\n") + "\n");
}

#[test]
fn otel_child_session_runs_under_the_transfer_task_call() {
    let mut tr = Tracker::default();
    tr.observe(t(0), "parent", started("root"));
    tr.observe(t(1), "parent", Observed::TurnStarted { iteration: 1 });
    tr.observe(
        t(2),
        "parent",
        tool("call_1", "transfer_task", ToolStep::Call),
    );
    hook(
        &mut tr,
        "parent",
        3,
        done(HookEvent::OnAgentSwitch, "switch", 1, RunStatus::Ok, "none"),
    );
    tr.observe(t(5), "child", started("helper"));
    tr.observe(t(6), "child", Observed::TurnStarted { iteration: 1 });
    tr.observe(
        t(7),
        "child",
        Observed::TurnEnded {
            reason: "normal".into(),
        },
    );
    tr.observe(
        t(8),
        "child",
        Observed::SessionEnded {
            reason: "other".into(),
        },
    );
    // Fired on the caller's hooks with the child's session id, after the child ended.
    hook(
        &mut tr,
        "child",
        9,
        done(HookEvent::SubagentStop, "stop", 1, RunStatus::Ok, "none"),
    );
    tr.observe(
        t(12),
        "parent",
        tool(
            "call_1",
            "transfer_task",
            ToolStep::Response { is_error: false },
        ),
    );
    tr.observe(
        t(13),
        "parent",
        Observed::TurnEnded {
            reason: "continue".into(),
        },
    );
    tr.observe(
        t(14),
        "parent",
        Observed::SessionEnded {
            reason: "other".into(),
        },
    );

    let spans = tr.take();
    let names: Vec<String> = tree(&spans)
        .lines()
        .map(|l| l.split(" [").next().unwrap_or_default().to_owned())
        .collect();
    assert_eq!(
        names,
        [
            "invoke_agent root",
            "  turn",
            "    execute_tool transfer_task",
            "      hook on_agent_switch",
            "      invoke_agent helper",
            "        turn",
            "      hook subagent_stop",
        ]
    );
    let traces: std::collections::HashSet<_> =
        spans.iter().map(|s| s.span_context.trace_id()).collect();
    assert_eq!(traces.len(), 1, "one trace for the parent and its child");
}

#[test]
fn otel_model_call_without_a_response_ends_with_an_error_status() {
    let mut tr = Tracker::default();
    tr.observe(t(0), "s", started("root"));
    tr.observe(t(1), "s", Observed::TurnStarted { iteration: 1 });
    tr.observe(
        t(2),
        "s",
        Observed::ModelCallStarted {
            model: "openai/gpt".into(),
        },
    );
    tr.observe(
        t(9),
        "s",
        Observed::TurnEnded {
            reason: "canceled".into(),
        },
    );
    tr.observe(t(10), "s", Observed::TurnStarted { iteration: 2 });
    tr.observe(
        t(11),
        "s",
        Observed::ModelCallStarted {
            model: "openai/gpt".into(),
        },
    );
    tr.observe(
        t(12),
        "s",
        Observed::Error {
            code: "model_error".into(),
            message: "model openai/gpt: 500".into(),
        },
    );
    tr.observe(
        t(13),
        "s",
        Observed::TurnEnded {
            reason: "error".into(),
        },
    );
    tr.finish_all(t(20));
    assert_eq!(
        tree(&tr.take()),
        "invoke_agent root [0..20] gen_ai.agent.name=root gen_ai.conversation.id=s gen_ai.operation.name=invoke_agent tether.agent=root tether.session.id=s tether.session.resumed=false
  turn [1..9] tether.turn.iteration=1 tether.turn.reason=canceled
    chat gpt [2..9] error(no response: canceled) gen_ai.conversation.id=s gen_ai.operation.name=chat gen_ai.provider.name=openai gen_ai.request.model=gpt tether.model.id=openai/gpt
  turn [10..13] tether.turn.iteration=2 tether.turn.reason=error
    chat gpt [11..12] error(model openai/gpt: 500) error.type=model_error gen_ai.conversation.id=s gen_ai.operation.name=chat gen_ai.provider.name=openai gen_ai.request.model=gpt tether.error.code=model_error tether.model.id=openai/gpt
"
    );
}

#[test]
fn otel_async_hook_keeps_the_parent_it_started_under() {
    let mut tr = Tracker::default();
    tr.observe(t(0), "s", started("root"));
    tr.observe(t(1), "s", Observed::TurnStarted { iteration: 1 });
    tr.hook_started(t(2), "s", key(HookEvent::TurnStart, "slow"));
    tr.observe(
        t(3),
        "s",
        Observed::TurnEnded {
            reason: "normal".into(),
        },
    );
    tr.observe(
        t(4),
        "s",
        Observed::SessionEnded {
            reason: "other".into(),
        },
    );
    tr.hook_finished(
        t(30),
        "s",
        done(HookEvent::TurnStart, "slow", 28, RunStatus::Ok, "none"),
    );
    let text = tree(&tr.take());
    let shape: Vec<&str> = text
        .lines()
        .map(|l| l.split(" gen_ai.").next().unwrap_or_default())
        .map(|l| l.split(" tether.").next().unwrap_or_default())
        .collect();
    assert_eq!(
        shape,
        [
            "invoke_agent root [0..4]",
            "  turn [1..3]",
            "    hook turn_start [2..30]"
        ]
    );
}

#[test]
fn otel_hook_runs_of_unknown_sessions_are_roots_of_their_own() {
    let mut tr = Tracker::default();
    hook(
        &mut tr,
        "nobody",
        5,
        done(HookEvent::WorktreeCreate, "wt", 1, RunStatus::Error, "none"),
    );
    let spans = tr.take();
    assert_eq!(
        spans
            .iter()
            .map(|s| (s.name.to_string(), s.parent_span_id, s.status.clone()))
            .collect::<Vec<_>>(),
        [(
            "hook worktree_create".to_owned(),
            SpanId::INVALID,
            Status::error("hook error")
        )]
    );
}

#[test]
fn otel_observed_events_leave_out_text_and_ignore_deltas() {
    use tether_protocol::RuntimeEvent;
    assert_eq!(
        [
            RuntimeEvent::ToolResponse {
                id: "c".into(),
                name: "shell".into(),
                response: "a lot of output".into(),
                is_error: false,
                structured: None,
            },
            RuntimeEvent::AgentTextDelta {
                agent: "root".into(),
                text: "hi".into(),
            },
            RuntimeEvent::TurnEnded {
                reason: "normal".into(),
            },
        ]
        .iter()
        .map(Observed::of)
        .collect::<Vec<_>>(),
        [
            Some(tool("c", "shell", ToolStep::Response { is_error: false })),
            None,
            Some(Observed::TurnEnded {
                reason: "normal".into()
            }),
        ]
    );
}

/// The `gen_ai.*` and `error.type` attributes of a span, sorted.
fn genai(span: &SpanData) -> Vec<String> {
    let mut attrs: Vec<String> = span
        .attributes
        .iter()
        .filter(|kv| kv.key.as_str().starts_with("gen_ai.") || kv.key.as_str() == "error.type")
        .map(|kv| format!("{}={}", kv.key, kv.value))
        .collect();
    attrs.sort();
    attrs
}

#[test]
fn otel_model_spans_name_provider_and_model_as_the_genai_conventions_do() {
    let cases = [
        ("openai/gpt-4o", "chat gpt-4o", "openai", "gpt-4o"),
        (
            "anthropic/claude-sonnet-4-0",
            "chat claude-sonnet-4-0",
            "anthropic",
            "claude-sonnet-4-0",
        ),
        (
            "google/gemini-2.5-flash",
            "chat gemini-2.5-flash",
            "gcp.gemini",
            "gemini-2.5-flash",
        ),
        (
            "gemini/gemini-2.5-pro",
            "chat gemini-2.5-pro",
            "gcp.gemini",
            "gemini-2.5-pro",
        ),
        (
            "mistral/mistral-large-latest",
            "chat mistral-large-latest",
            "mistral_ai",
            "mistral-large-latest",
        ),
        // Split at the first `/`, as model ids are parsed; other prefixes pass as they are.
        ("dmr/ai/qwen3:8B", "chat ai/qwen3:8B", "dmr", "ai/qwen3:8B"),
        ("script/s.yaml", "chat s.yaml", "script", "s.yaml"),
        ("ollama/llama3", "chat llama3", "ollama", "llama3"),
    ];
    let mut tr = Tracker::default();
    tr.observe(t(0), "s", started("root"));
    for (i, (id, ..)) in (0u64..).zip(&cases) {
        tr.observe(
            t(10 * i + 1),
            "s",
            Observed::ModelCallStarted {
                model: (*id).to_owned(),
            },
        );
        tr.observe(
            t(10 * i + 2),
            "s",
            Observed::ModelResponse {
                usage: None,
                cost: None,
                finish_reason: None,
            },
        );
    }
    let mut spans = tr.take();
    spans.sort_by_key(|s| s.start_time);
    let got: Vec<(String, SpanKind, Vec<String>)> = spans
        .iter()
        .filter(|s| s.name.starts_with("chat "))
        .map(|s| (s.name.to_string(), s.span_kind.clone(), genai(s)))
        .collect();
    let expected: Vec<(String, SpanKind, Vec<String>)> = cases
        .iter()
        .map(|(_, name, provider, model)| {
            (
                (*name).to_owned(),
                SpanKind::Client,
                vec![
                    "gen_ai.conversation.id=s".to_owned(),
                    "gen_ai.operation.name=chat".to_owned(),
                    format!("gen_ai.provider.name={provider}"),
                    format!("gen_ai.request.model={model}"),
                ],
            )
        })
        .collect();
    assert_eq!(got, expected);
}

#[test]
fn otel_genai_input_tokens_count_cached_prompt_tokens_too() {
    let mut tr = Tracker::default();
    tr.observe(t(0), "s", started("root"));
    tr.observe(
        t(1),
        "s",
        Observed::ModelCallStarted {
            model: "anthropic/claude-sonnet-4-0".into(),
        },
    );
    tr.observe(
        t(2),
        "s",
        Observed::ModelResponse {
            usage: Some(Usage {
                input_tokens: 100,
                output_tokens: 20,
                cached_input_tokens: 300,
                cached_write_tokens: 50,
                reasoning_tokens: Some(5),
            }),
            cost: Some(0.5),
            finish_reason: None,
        },
    );
    let spans = tr.take();
    let chat = spans
        .iter()
        .find(|s| s.name == "chat claude-sonnet-4-0")
        .unwrap();
    let usage: Vec<String> = chat
        .attributes
        .iter()
        .filter(|kv| kv.key.as_str().contains(".usage."))
        .map(|kv| format!("{}={}", kv.key, kv.value))
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    assert_eq!(
        usage,
        [
            "gen_ai.usage.cache_creation.input_tokens=50",
            "gen_ai.usage.cache_read.input_tokens=300",
            // Every prompt token, as the conventions count them.
            "gen_ai.usage.input_tokens=450",
            "gen_ai.usage.output_tokens=20",
            "tether.usage.cached_input_tokens=300",
            "tether.usage.cached_write_tokens=50",
            // Tether's own count leaves cache reads and writes out.
            "tether.usage.input_tokens=100",
            "tether.usage.output_tokens=20",
            "tether.usage.reasoning_tokens=5",
        ]
    );
}

#[test]
fn otel_tool_span_opened_by_a_hook_of_an_unannounced_call_is_a_bare_execute_tool() {
    let mut tr = Tracker::default();
    tr.observe(t(0), "s", started("root"));
    tr.observe(t(1), "s", Observed::TurnStarted { iteration: 1 });
    hook(
        &mut tr,
        "s",
        2,
        done(HookEvent::PreToolUse, "guard", 1, RunStatus::Ok, "none"),
    );
    tr.observe(
        t(5),
        "s",
        Observed::TurnEnded {
            reason: "canceled".into(),
        },
    );
    let spans = tr.take();
    let tools: Vec<(String, Vec<String>)> = spans
        .iter()
        .filter(|s| s.name.starts_with("execute_tool"))
        .map(|s| (s.name.to_string(), genai(s)))
        .collect();
    assert_eq!(
        tools,
        [(
            "execute_tool".to_owned(),
            vec!["gen_ai.operation.name=execute_tool".to_owned()]
        )]
    );
}
