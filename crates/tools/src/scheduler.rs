//! `type: scheduler`: docker-agent's `create_schedule`, `list_schedules` and `cancel_schedule`.
//!
//! docker-agent delivers a due schedule's prompt back to the agent through its runtime's
//! recall, and where the host has no recall `create_schedule` is an error. Tether's runtime has
//! no way yet to wake an idle session with a message of its own, so a schedule could never fire:
//! `create_schedule` checks its arguments, then answers with an error saying when it would
//! have fired and that nothing was scheduled. Nothing is ever reported as scheduled that is not;
//! the list is always empty and every cancel names an unknown id.

use futures::future::BoxFuture;
use serde::Deserialize;
use serde_json::{Map, Value, json};

use crate::args::parse;
use crate::schema::{object, string};
use crate::{Tool, ToolContext, ToolDefinition, ToolError, ToolResult};

/// The toolset's system-prompt text.
pub const SCHEDULER_INSTRUCTION: &str = "## Scheduler\n\nUse create_schedule to have an instruction delivered back to you at a time (\"in 10m\", an RFC 3339 timestamp) or on an interval (\"every 1h\"). A schedule only fires while the session runs. When create_schedule answers with an error, nothing was scheduled: tell the user, do not claim otherwise.";

/// Why no schedule can be kept.
const NO_RECALL: &str = "this Tether session cannot deliver a message back to the agent later (the runtime has no recall yet), so the schedule would never fire";

#[derive(Debug, Deserialize)]
struct CreateArgs {
    prompt: Option<String>,
    when: Option<String>,
}

#[derive(Debug, Deserialize)]
struct CancelArgs {
    id: Option<String>,
}

/// When a schedule fires.
#[derive(Debug, Clone, PartialEq, Eq)]
enum When {
    /// Once, after this many seconds.
    After(u64),
    /// Once, at this instant.
    At(jiff::Timestamp),
    /// Every this many seconds.
    Every(u64),
}

/// Reads `when`: a duration (`10m`, `in 1h30m`), an RFC 3339 timestamp, or `every DURATION`.
fn parse_when(text: &str) -> Result<When, String> {
    let t = text.trim();
    let lower = t.to_ascii_lowercase();
    if let Some(rest) = lower.strip_prefix("every ") {
        let secs = duration(rest.trim())?;
        if secs == 0 {
            return Err("an interval must be at least 1s".to_owned());
        }
        return Ok(When::Every(secs));
    }
    if let Some(rest) = lower.strip_prefix("in ") {
        return duration(rest.trim()).map(When::After);
    }
    if let Ok(secs) = duration(&lower) {
        return Ok(When::After(secs));
    }
    t.parse::<jiff::Timestamp>().map(When::At).map_err(|_| {
        format!(
            "cannot read `when` {t:?}: give a duration (\"10m\", \"in 1h30m\"), an RFC 3339 time (\"2026-01-02T15:04:05Z\") or an interval (\"every 5m\")"
        )
    })
}

/// Whole seconds of a Go-style duration (`1h30m`, `90s`, `2m30s`).
fn duration(text: &str) -> Result<u64, String> {
    let bad = || format!("not a duration: {text:?}");
    if text.is_empty() {
        return Err(bad());
    }
    let mut total: u64 = 0;
    let mut number = String::new();
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c.is_ascii_digit() {
            number.push(c);
            continue;
        }
        let unit = match c {
            'h' => 3600,
            'm' if chars.peek() == Some(&'s') => {
                chars.next();
                0
            }
            'm' => 60,
            's' => 1,
            _ => return Err(bad()),
        };
        let n: u64 = number.parse().map_err(|_| bad())?;
        number.clear();
        total = n
            .checked_mul(unit)
            .and_then(|v| total.checked_add(v))
            .ok_or_else(bad)?;
    }
    if number.is_empty() {
        Ok(total)
    } else {
        Err(bad())
    }
}

#[derive(Debug, Clone, Copy)]
enum Which {
    Create,
    List,
    Cancel,
}

/// One tool of the set.
#[derive(Debug)]
pub struct SchedulerTool {
    definition: ToolDefinition,
    which: Which,
}

impl SchedulerTool {
    pub fn all() -> Vec<std::sync::Arc<dyn Tool>> {
        let tools = [
            (
                Which::Create,
                "create_schedule",
                "Register an instruction to run at a time or interval. When the schedule is due, the prompt is delivered back to you and you carry it out with your normal tools.",
                object(
                    json!({
                        "prompt": string("The instruction to deliver to the agent when the schedule fires."),
                        "when": string("When to fire: a duration from now (\"10m\", \"in 1h30m\"), an RFC 3339 time (\"2026-01-02T15:04:05Z\"), or an interval (\"every 5m\")."),
                    }),
                    &["prompt", "when"],
                ),
                false,
            ),
            (
                Which::List,
                "list_schedules",
                "List active schedules with their id, spec, and next fire time.",
                object(json!({}), &[]),
                true,
            ),
            (
                Which::Cancel,
                "cancel_schedule",
                "Remove a schedule by id.",
                object(json!({"id": string("The schedule's id.")}), &["id"]),
                false,
            ),
        ];
        tools
            .into_iter()
            .map(|(which, name, description, parameters, read_only)| {
                std::sync::Arc::new(Self {
                    definition: ToolDefinition {
                        name: name.to_owned(),
                        description: description.to_owned(),
                        parameters,
                        read_only,
                        category: "scheduler",
                    },
                    which,
                }) as std::sync::Arc<dyn Tool>
            })
            .collect()
    }

    fn answer(&self, args: &Map<String, Value>) -> Result<String, ToolError> {
        let name = &self.definition.name;
        match self.which {
            Which::Create => {
                let args: CreateArgs = parse(name, args)?;
                if args.prompt.as_deref().is_none_or(|p| p.trim().is_empty()) {
                    return Err(ToolError::invalid(name, "`prompt` is missing or empty"));
                }
                let when = args.when.unwrap_or_default();
                let parsed = parse_when(&when).map_err(|why| ToolError::invalid(name, why))?;
                let fire = match parsed {
                    When::After(secs) => format!("once, {secs}s from now"),
                    When::At(at) if at <= jiff::Timestamp::now() => {
                        return Err(ToolError::invalid(
                            name,
                            format!("`when` {at} is in the past"),
                        ));
                    }
                    When::At(at) => format!("once, at {at}"),
                    When::Every(secs) => format!("every {secs}s"),
                };
                Err(ToolError::Rejected(format!(
                    "schedule not created: it would have fired {fire}, but {NO_RECALL}. Nothing was scheduled; do the task now if it cannot wait, or tell the user it cannot be scheduled here"
                )))
            }
            Which::List => Ok("No active schedules.".to_owned()),
            Which::Cancel => {
                let args: CancelArgs = parse(name, args)?;
                let id = args.id.unwrap_or_default();
                Err(ToolError::Rejected(format!(
                    "no schedule with id {id:?}: none is active ({NO_RECALL})"
                )))
            }
        }
    }
}

impl Tool for SchedulerTool {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn call<'a>(
        &'a self,
        args: &'a Map<String, Value>,
        _ctx: ToolContext<'a>,
    ) -> BoxFuture<'a, ToolResult> {
        let result = match self.answer(args) {
            Ok(text) => ToolResult::ok(text),
            Err(e) => e.into(),
        };
        Box::pin(std::future::ready(result))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn when_reads_durations_times_and_intervals() {
        assert_eq!(parse_when("10m"), Ok(When::After(600)));
        assert_eq!(parse_when("in 1h30m"), Ok(When::After(5400)));
        assert_eq!(parse_when("Every 90s"), Ok(When::Every(90)));
        assert_eq!(
            parse_when("2030-01-02T15:04:05Z"),
            Ok(When::At("2030-01-02T15:04:05Z".parse().unwrap()))
        );
        for bad in [
            "", "soon", "every 0s", "10", "5x", "in -5m", "1h30", "every",
        ] {
            assert!(parse_when(bad).is_err(), "{bad}");
        }
        assert!(duration("99999999999999999999h").is_err());
        assert_eq!(duration("250ms"), Ok(0));
    }

    #[test]
    fn create_never_claims_a_schedule_it_cannot_keep() {
        let tools = SchedulerTool::all();
        let create = tools[0].as_ref();
        let args = |v: Value| v.as_object().cloned().unwrap();
        let cancel = tokio_util::sync::CancellationToken::new();
        let ctx = ToolContext {
            working_dir: std::path::Path::new("/"),
            cancel: &cancel,
            env: &[],
            progress: None,
        };
        let rt = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let answer = rt.block_on(create.call(
            &args(json!({"prompt": "check CI", "when": "every 5m"})),
            ctx,
        ));
        assert!(answer.is_error);
        assert!(
            answer
                .content
                .starts_with("schedule not created: it would have fired every 300s")
        );
        let past = rt.block_on(create.call(
            &args(json!({"prompt": "x", "when": "2001-01-01T00:00:00Z"})),
            ctx,
        ));
        assert!(past.content.contains("is in the past"), "{}", past.content);
        let no_prompt = rt.block_on(create.call(&args(json!({"when": "5m"})), ctx));
        assert!(no_prompt.content.contains("`prompt` is missing"));
        let list = rt.block_on(tools[1].call(&Map::new(), ctx));
        assert_eq!(list.content, "No active schedules.");
        let cancelled = rt.block_on(tools[2].call(&args(json!({"id": "s1"})), ctx));
        assert!(cancelled.is_error);
    }
}
