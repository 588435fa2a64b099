//! `tether hooks check AGENT.yaml`: validate, then list the effective hooks per event in
//! dispatch order with where each came from (docs/cli.md).

use std::path::Path;
use std::sync::Arc;

use serde::Serialize;
use tether_config::{
    Agent, DEFAULT_HOOK_TIMEOUT, Dialect, HookKind, HookSandbox, HookSpec, HooksConfig,
    MatcherEntry, OnError, ToolsetKind,
};
use tether_exec::ShellKind;
use tether_protocol::HookEvent;

use crate::args::CheckArgs;
use crate::{common, out, programs, status};

#[derive(Debug, Serialize)]
struct CheckOutput<'a> {
    file: String,
    agent: &'a str,
    valid: bool,
    shell: String,
    events: Vec<EventHooks<'a>>,
    warnings: Vec<String>,
}

#[derive(Debug, Serialize)]
struct EventHooks<'a> {
    event: &'static str,
    hooks: Vec<HookLine<'a>>,
}

#[derive(Debug, Serialize)]
struct HookLine<'a> {
    #[serde(rename = "type")]
    kind: &'static str,
    name: Option<&'a str>,
    target: &'a str,
    args: &'a [String],
    matcher: Option<&'a str>,
    lane: &'static str,
    source: &'static str,
    timeout_s: u64,
    on_error: &'static str,
    working_dir: Option<&'a str>,
    #[serde(rename = "async")]
    run_async: bool,
    /// Only when set: one process answers every event of a session.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    persistent: bool,
    /// Only for a sandboxed command hook: `default profile`, or what its profile changes.
    #[serde(skip_serializing_if = "Option::is_none")]
    sandbox: Option<String>,
    dialect: &'static str,
    location: Option<String>,
    /// `type: policy`: how many Cedar policies the set holds.
    #[serde(skip_serializing_if = "Option::is_none")]
    policies: Option<usize>,
    /// `trusted`, `untrusted (new)` or `untrusted (changed)`: the file's own command hooks.
    #[serde(skip_serializing_if = "Option::is_none")]
    trust: Option<&'static str>,
}

/// Whether `entry` runs on the preempt lane (only `pre_tool_use` has one).
fn preempt(event: HookEvent, entry: &MatcherEntry) -> bool {
    event == HookEvent::PreToolUse && entry.preempt_yolo
}

/// Entries in dispatch order: the preempt lane first (pre_tool_use), then the default lane.
fn dispatch_order(hooks: &HooksConfig, event: HookEvent) -> Vec<&MatcherEntry> {
    let entries = hooks.entries(event);
    entries
        .iter()
        .filter(|e| preempt(event, e))
        .chain(entries.iter().filter(|e| !preempt(event, e)))
        .collect()
}

/// Where a hook is defined: `FILE:LINE:COL`, else its file, else nothing.
fn origin(h: &HookSpec) -> String {
    let at = h.origin.location();
    if at.is_empty() {
        h.origin.path.clone()
    } else {
        at
    }
}

/// `yaml`, `user`, `drop-in FILE`, …
fn source_label(h: &HookSpec) -> String {
    match (h.source, &h.origin.file) {
        (tether_config::HookSource::DropIn, Some(file)) => {
            let name = std::path::Path::new(file.as_ref())
                .file_name()
                .map_or_else(|| file.to_string(), |n| n.to_string_lossy().into_owned());
            format!("drop-in {name}")
        }
        (source, _) => source.as_str().to_owned(),
    }
}

fn line<'a>(
    event: HookEvent,
    entry: &'a MatcherEntry,
    h: &'a HookSpec,
    trust: &crate::trust::Review,
) -> HookLine<'a> {
    HookLine {
        trust: trust
            .standing(event, entry, h)
            .map(crate::trust::Standing::as_str),
        kind: h.type_name(),
        name: h.name.as_deref(),
        target: h.target(),
        args: &h.args,
        matcher: event.uses_matcher().then(|| entry.matcher.source()),
        lane: if preempt(event, entry) {
            "preempt"
        } else {
            "default"
        },
        source: h.source.as_str(),
        timeout_s: h.timeout.as_secs(),
        on_error: h.on_error.as_str(),
        working_dir: h.working_dir.as_deref(),
        run_async: h.run_async,
        persistent: h.persistent,
        sandbox: sandbox(h),
        dialect: h.dialect.as_str(),
        location: Some(origin(h)).filter(|at| !at.is_empty()),
        policies: match &h.kind {
            HookKind::Policy(p) => Some(p.count),
            _ => None,
        },
    }
}

/// What a command hook's sandbox is, `None` when it runs without one.
fn sandbox(h: &HookSpec) -> Option<String> {
    match (&h.kind, &h.sandbox) {
        (HookKind::Command { .. }, Some(HookSandbox::On(profile))) => Some(profile.describe()),
        _ => None,
    }
}

/// One line of shell, builtin with args, or model spec, short enough for a listing.
fn summary(h: &HookSpec) -> String {
    match &h.kind {
        HookKind::Command { command } => crate::render::short_command(command),
        HookKind::Builtin { name } if h.args.is_empty() => name.clone(),
        HookKind::Builtin { name } => format!("{name} {:?}", h.args),
        HookKind::Http { url, .. } => format!("POST {url}"),
        HookKind::Model { model, schema, .. } => match schema {
            Some(s) => format!("{model} (schema {s})"),
            None => model.clone(),
        },
        HookKind::Mcp { target, .. } => format!("call {target}"),
        HookKind::Evaluator { evaluator, .. } => {
            format!("evaluator {} ({})", evaluator.name, evaluator.model)
        }
        HookKind::Policy(p) => format!(
            "cedar {} ({} {}{})",
            p.source,
            p.count,
            if p.count == 1 { "policy" } else { "policies" },
            if p.validated {
                ", schema-validated"
            } else {
                ""
            }
        ),
    }
}

fn missing_program_warnings(hooks: &HooksConfig, cwd: &Path) -> Vec<String> {
    let path = std::env::var("PATH").unwrap_or_default();
    let mut warnings = Vec::new();
    for (event, _, h) in hooks.iter() {
        let HookKind::Command { command } = &h.kind else {
            continue;
        };
        let dir = h
            .working_dir
            .as_deref()
            .map_or_else(|| cwd.to_path_buf(), |w| cwd.join(w));
        // The project directory is the executor's, not the hook's working_dir.
        let vars: &[&str] = match h.dialect {
            Dialect::Claude => &["TETHER_PROJECT_DIR", "CLAUDE_PROJECT_DIR"],
            Dialect::DockerAgent => &["TETHER_PROJECT_DIR"],
        };
        for program in programs::missing_programs(command, &dir, &path, cwd, vars) {
            let at = origin(h);
            warnings.push(format!(
                "{at}: {event} hook runs `{program}`, which is not on PATH"
            ));
        }
    }
    warnings
}

/// A Cedar forbid about the shell tool alone does not see a background job, which runs a
/// shell line too (matchers that name `shell` fire for jobs; policies name their resources).
fn background_job_warnings(hooks: &HooksConfig, agent: &Agent) -> Vec<String> {
    const JOB: &str = "run_background_job";
    let has_jobs = agent
        .toolsets
        .iter()
        .any(|t| t.kind == ToolsetKind::BackgroundJobs);
    if !has_jobs {
        return Vec::new();
    }
    let mut warnings = Vec::new();
    for (event, _, h) in hooks.iter() {
        let HookKind::Policy(set) = &h.kind else {
            continue;
        };
        if event == HookEvent::UserPromptSubmit {
            continue;
        }
        for f in set.shell_only_forbids() {
            let w = format!(
                "{}: Cedar policy `{}` forbids on `Tool::\"shell\"` but not on `Tool::\"{JOB}\"`, which runs shell commands too (name both: `resource in [Tool::\"shell\", Tool::\"{JOB}\"]` in `when`)",
                f.origin.location(),
                f.id
            );
            if !warnings.contains(&w) {
                warnings.push(w);
            }
        }
    }
    warnings
}

pub(crate) async fn run(args: CheckArgs) -> anyhow::Result<u8> {
    let (file, unfetched) = common::load_offline(&args.agent_file)?;
    let agent = common::pick_agent(&file, args.agent.as_deref())?;
    let user = common::user_config()?;
    let hooks = common::effective(agent, &args.hooks.to_cli_hooks(), &user);
    let registry = Arc::new(common::registry(Some(&file)));
    let cwd = common::current_dir()?;
    common::executor(&hooks, Arc::clone(&registry), cwd.clone(), Vec::new())?;
    let shell = registry.shell();
    let shell_text = format!(
        "{} ({})",
        shell.program.display(),
        match shell.kind {
            ShellKind::EnvShell => "from $SHELL",
            ShellKind::Bash => "bash on PATH",
            ShellKind::Sh => "fallback",
        }
    );
    let mut warnings = unfetched;
    warnings.extend(missing_program_warnings(&hooks, &file.dir));
    warnings.extend(background_job_warnings(&hooks, agent));
    let trust = crate::trust::Review::new(&args.agent_file, &cwd, &user)?;

    if args.json {
        let events: Vec<EventHooks<'_>> = HookEvent::ALL
            .into_iter()
            .filter(|e| !hooks.entries(*e).is_empty())
            .map(|event| EventHooks {
                event: event.wire_name(),
                hooks: dispatch_order(&hooks, event)
                    .into_iter()
                    .flat_map(|entry| entry.hooks.iter().map(|h| line(event, entry, h, &trust)))
                    .collect(),
            })
            .collect();
        let output = CheckOutput {
            file: args.agent_file.display().to_string(),
            agent: &agent.name,
            valid: true,
            shell: shell.program.display().to_string(),
            events,
            warnings,
        };
        out::line(&serde_json::to_string_pretty(&output)?)?;
        return Ok(status::OK);
    }

    let mut text = format!(
        "{}: valid; agent `{}` (agents: {})\ncommand hooks run with {shell_text}\n",
        args.agent_file.display(),
        agent.name,
        file.agent_names().join(", ")
    );
    for event in HookEvent::ALL {
        let entries = dispatch_order(&hooks, event);
        if entries.is_empty() {
            continue;
        }
        text.push_str(&format!("\n{event}\n"));
        let mut n = 0;
        for entry in entries {
            for h in &entry.hooks {
                n += 1;
                let mut attrs = vec![format!("[{}]", source_label(h))];
                if event.uses_matcher() {
                    attrs.push(format!("matcher={}", entry.matcher.source()));
                }
                if preempt(event, entry) {
                    attrs.push("preempt_yolo".to_owned());
                }
                if let Some(name) = &h.name {
                    attrs.push(format!("name={name:?}"));
                }
                if h.timeout != DEFAULT_HOOK_TIMEOUT {
                    attrs.push(format!("timeout={}s", h.timeout.as_secs()));
                }
                if h.on_error != OnError::Warn {
                    attrs.push(format!("on_error={}", h.on_error.as_str()));
                }
                if h.run_async {
                    attrs.push("async".to_owned());
                }
                if h.persistent {
                    attrs.push("persistent".to_owned());
                }
                if let Some(sandbox) = sandbox(h) {
                    attrs.push(format!("sandbox: {sandbox}"));
                }
                if h.dialect != Dialect::DockerAgent {
                    attrs.push(format!("dialect={}", h.dialect.as_str()));
                }
                if let Some(standing) = trust.standing(event, entry, h) {
                    attrs.push(standing.as_str().to_owned());
                }
                let at = h.origin.location();
                if !at.is_empty() {
                    attrs.push(at);
                }
                text.push_str(&format!(
                    "  {n}. {:<7} {}\n     {}\n",
                    h.type_name(),
                    summary(h),
                    attrs.join("  ")
                ));
            }
        }
    }
    out::line(text.trim_end())?;
    for w in &warnings {
        out::warning(w);
    }
    Ok(status::OK)
}
