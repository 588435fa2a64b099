//! The hooks an agent actually runs: its YAML hooks, then the user config's (`settings.hooks`,
//! then `hooks.d/` drop-ins), then `--hook-*` flags, then the hooks its shorthands inject, then
//! the always-on ones. This is the one documented merge function.
//!
//! Order per event (docs/design.md D14, D15, "secrets before truncation"):
//! - every event: YAML entries, then user-config entries, then CLI entries (appended, never
//!   replacing);
//! - `session_start`: + `add_environment_info`, + `snapshot`;
//! - `turn_start`: + `add_date`, + `add_prompt_files`, + `snapshot`;
//! - `turn_end`: + `snapshot`;
//! - `tool_input_transform`: + `redact_secrets` (arguments are scrubbed before any approval
//!   step sees them);
//! - `pre_tool_use`: + `safer_shell` on the preempt lane;
//! - `before_llm_call`: + `redact_secrets`;
//! - `tool_response_transform`: + `redact_secrets`, + `limit_large_tool_results` (always; last,
//!   so a truncated tail is already redacted);
//! - `session_end`: + `limit_large_tool_results` (always), + `snapshot`.

use tether_protocol::HookEvent;

use crate::agent::Agent;
use crate::diagnostic::Origin;
use crate::hooks::{HookSource, HookSpec, HooksConfig, MatcherEntry};

/// The six repeatable `--hook-*` flags. Blank values are ignored.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CliHooks {
    pub pre_tool_use: Vec<String>,
    pub post_tool_use: Vec<String>,
    pub session_start: Vec<String>,
    pub session_end: Vec<String>,
    pub on_user_input: Vec<String>,
    pub stop: Vec<String>,
}

impl CliHooks {
    fn flags(&self) -> [(HookEvent, &'static str, &[String]); 6] {
        [
            (
                HookEvent::PreToolUse,
                "--hook-pre-tool-use",
                &self.pre_tool_use,
            ),
            (
                HookEvent::PostToolUse,
                "--hook-post-tool-use",
                &self.post_tool_use,
            ),
            (
                HookEvent::SessionStart,
                "--hook-session-start",
                &self.session_start,
            ),
            (
                HookEvent::SessionEnd,
                "--hook-session-end",
                &self.session_end,
            ),
            (
                HookEvent::OnUserInput,
                "--hook-on-user-input",
                &self.on_user_input,
            ),
            (HookEvent::Stop, "--hook-stop", &self.stop),
        ]
    }

    /// The flags as hooks: one `command` hook per non-blank value; tool events get one entry
    /// matching every tool.
    pub fn to_config(&self) -> HooksConfig {
        let mut out = HooksConfig::default();
        for (event, flag, values) in self.flags() {
            let hooks: Vec<HookSpec> = values
                .iter()
                .filter(|v| !v.trim().is_empty())
                .map(|v| HookSpec::command(v.trim(), HookSource::Cli, Origin::synthetic(flag)))
                .collect();
            if !hooks.is_empty() {
                out.push(event, MatcherEntry::any(hooks, Origin::synthetic(flag)));
            }
        }
        out
    }
}

/// Settings that change which hooks are injected.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct InjectOptions {
    /// User setting `settings.snapshot: true` (docs/design.md D17).
    pub snapshot: bool,
    /// User setting `settings.hooks_sandbox`: the sandbox of command hooks that do not say.
    pub hooks_sandbox: crate::SandboxDefault,
}

fn injected(name: &str, args: Vec<String>, source: HookSource, why: &str) -> HookSpec {
    HookSpec::builtin(name, args, source, Origin::synthetic(why))
}

fn add(cfg: &mut HooksConfig, event: HookEvent, hook: HookSpec) {
    let origin = hook.origin.clone();
    cfg.push(event, MatcherEntry::any(vec![hook], origin));
}

/// The merged, ordered hooks of `agent` (see the module doc for the order).
pub fn effective_hooks(
    agent: &Agent,
    user: &HooksConfig,
    cli: &CliHooks,
    opts: InjectOptions,
) -> HooksConfig {
    let mut cfg = agent.hooks.clone();
    cfg.append(user.clone());
    cfg.append(cli.to_config());
    let shorthand = HookSource::Shorthand;
    let here = |key: &str| format!("agents.{}.{key}", agent.name);

    if agent.add_environment_info {
        let h = injected(
            "add_environment_info",
            vec![],
            shorthand,
            &here("add_environment_info"),
        );
        add(&mut cfg, HookEvent::SessionStart, h);
    }
    if agent.add_date {
        add(
            &mut cfg,
            HookEvent::TurnStart,
            injected("add_date", vec![], shorthand, &here("add_date")),
        );
    }
    if !agent.add_prompt_files.is_empty() {
        let mut args = agent.add_prompt_files.clone();
        if agent.add_prompt_files_depth > 0 {
            args.insert(0, format!("--depth={}", agent.add_prompt_files_depth));
        }
        let h = injected(
            "add_prompt_files",
            args,
            shorthand,
            &here("add_prompt_files"),
        );
        add(&mut cfg, HookEvent::TurnStart, h);
    }
    if agent.redact_secrets {
        for event in [
            HookEvent::ToolInputTransform,
            HookEvent::BeforeLlmCall,
            HookEvent::ToolResponseTransform,
        ] {
            let h = injected("redact_secrets", vec![], shorthand, &here("redact_secrets"));
            add(&mut cfg, event, h);
        }
    }
    if agent.has_safer_shell() {
        let h = injected("safer_shell", vec![], shorthand, &here("toolsets[].safer"));
        let origin = h.origin.clone();
        cfg.push(
            HookEvent::PreToolUse,
            MatcherEntry {
                preempt_yolo: true,
                ..MatcherEntry::any(vec![h], origin)
            },
        );
    }
    for event in [HookEvent::ToolResponseTransform, HookEvent::SessionEnd] {
        let h = injected(
            "limit_large_tool_results",
            vec![],
            HookSource::Always,
            "always on",
        );
        add(&mut cfg, event, h);
    }
    if opts.snapshot {
        for event in [
            HookEvent::SessionStart,
            HookEvent::TurnStart,
            HookEvent::TurnEnd,
            HookEvent::SessionEnd,
        ] {
            add(
                &mut cfg,
                event,
                injected("snapshot", vec![], shorthand, "settings.snapshot"),
            );
        }
    }
    if opts.hooks_sandbox != crate::SandboxDefault::Off {
        cfg.default_sandbox(&opts.hooks_sandbox.hook_sandbox());
    }
    cfg
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::load_str;

    fn agent(yaml: &str) -> Agent {
        let file = load_str(yaml, "a.yaml", std::path::Path::new(".")).unwrap();
        file.agents[0].clone()
    }

    fn listing(cfg: &HooksConfig) -> Vec<String> {
        cfg.iter()
            .map(|(e, entry, h)| {
                let lane = if entry.preempt_yolo { " preempt" } else { "" };
                format!("{e} {} {}{lane} [{}]", h.type_name(), h.target(), h.source)
            })
            .collect()
    }

    #[test]
    fn cli_flags_append_to_every_event_and_blank_values_are_ignored() {
        let a = agent(
            "agents:\n  root:\n    hooks:\n      stop:\n        - type: command\n          command: yaml-stop\n      turn_end:\n        - type: command\n          command: yaml-turn-end\n",
        );
        let cli = CliHooks {
            stop: vec!["cli-stop".into(), "  ".into()],
            pre_tool_use: vec!["cli-pre".into()],
            ..CliHooks::default()
        };
        let cfg = effective_hooks(&a, &HooksConfig::default(), &cli, InjectOptions::default());
        assert_eq!(
            listing(&cfg),
            [
                "pre_tool_use command cli-pre [cli]",
                "turn_end command yaml-turn-end [yaml]",
                "session_end builtin limit_large_tool_results [always]",
                "stop command yaml-stop [yaml]",
                "stop command cli-stop [cli]",
                "tool_response_transform builtin limit_large_tool_results [always]",
            ]
        );
    }

    #[test]
    fn shorthands_come_after_user_hooks_in_the_documented_order() {
        let a = agent(
            "agents:\n  root:\n    add_date: true\n    add_environment_info: true\n    add_prompt_files: [A.md]\n    redact_secrets: true\n    toolsets:\n      - type: shell\n        safer: true\n    hooks:\n      turn_start:\n        - type: command\n          command: mine\n      tool_response_transform:\n        - matcher: shell\n          hooks:\n            - type: command\n              command: rewrite\n",
        );
        let cfg = effective_hooks(
            &a,
            &HooksConfig::default(),
            &CliHooks::default(),
            InjectOptions {
                snapshot: true,
                ..InjectOptions::default()
            },
        );
        assert_eq!(
            listing(&cfg),
            [
                "pre_tool_use builtin safer_shell preempt [shorthand]",
                "session_start builtin add_environment_info [shorthand]",
                "session_start builtin snapshot [shorthand]",
                "turn_start command mine [yaml]",
                "turn_start builtin add_date [shorthand]",
                "turn_start builtin add_prompt_files [shorthand]",
                "turn_start builtin snapshot [shorthand]",
                "turn_end builtin snapshot [shorthand]",
                "before_llm_call builtin redact_secrets [shorthand]",
                "session_end builtin limit_large_tool_results [always]",
                "session_end builtin snapshot [shorthand]",
                "tool_response_transform command rewrite [yaml]",
                "tool_response_transform builtin redact_secrets [shorthand]",
                "tool_response_transform builtin limit_large_tool_results [always]",
                "tool_input_transform builtin redact_secrets [shorthand]",
            ]
        );
    }
}
