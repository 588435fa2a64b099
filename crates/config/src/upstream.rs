//! The fields docker-agent's agent-file format has that Tether does not implement yet. A key
//! the strict loader does not accept is reported as "not supported yet" when docker-agent has
//! it (so a user knows the file is valid, just ahead of Tether), and as unknown otherwise.

use tether_protocol::HookEvent;

/// docker-agent's field names per object, by the object's kind.
const FIELDS: &[(&str, &[&str])] = &[
    (
        "file",
        &[
            "agents",
            "budget",
            "budgets",
            "commands",
            "flavors",
            "mcps",
            "metadata",
            "models",
            "permissions",
            "providers",
            "rag",
            "runtime",
            "skills",
            "toolsets",
            "version",
        ],
    ),
    (
        "agent",
        &[
            "add_date",
            "add_description_parameter",
            "add_environment_info",
            "add_prompt_files",
            "add_prompt_files_depth",
            "budgets",
            "cache",
            "code_mode_tools",
            "commands",
            "compaction_model",
            "compaction_threshold",
            "description",
            "fallback",
            "force_handoff",
            "handoffs",
            "harness",
            "hooks",
            "inject_memories",
            "inject_memories_strategy",
            "instruction",
            "instruction_file",
            "max_consecutive_tool_calls",
            "max_inject_memories",
            "max_iterations",
            "max_old_tool_call_tokens",
            "max_tool_result_tokens",
            "model",
            "num_history_items",
            "readonly",
            "redact_secrets",
            "routing",
            "safety",
            "session_compaction",
            "skills",
            "structured_output",
            "sub_agents",
            "toolsets",
            "use_commands",
            "use_skills",
            "use_toolsets",
            "welcome_message",
        ],
    ),
    (
        "model",
        &[
            "auth",
            "base_url",
            "bypass_models_gateway",
            "capabilities",
            "compaction_model",
            "compaction_threshold",
            "cost",
            "description",
            "first_available",
            "frequency_penalty",
            "max_tokens",
            "model",
            "output_capabilities",
            "parallel_tool_calls",
            "presence_penalty",
            "provider",
            "provider_opts",
            "routing",
            "task_budget",
            "temperature",
            "thinking_budget",
            "title_model",
            "token_key",
            "top_p",
            "track_usage",
        ],
    ),
    (
        "provider",
        &[
            "api_type",
            "auth",
            "base_url",
            "compaction_model",
            "frequency_penalty",
            "max_tokens",
            "parallel_tool_calls",
            "presence_penalty",
            "provider",
            "provider_opts",
            "task_budget",
            "temperature",
            "thinking_budget",
            "token_key",
            "top_p",
            "track_usage",
            "unload_api",
        ],
    ),
    (
        "toolset",
        &[
            "allow_list",
            "allow_private_ips",
            "allowed_domains",
            "allowed_servers",
            "api_config",
            "args",
            "blocked_domains",
            "blocked_servers",
            "command",
            "config",
            "defer",
            "deny_list",
            "env",
            "escape_html",
            "file_types",
            "headers",
            "ignore_vcs",
            "instruction",
            "lifecycle",
            "max_output_bytes",
            "model",
            "models",
            "name",
            "path",
            "post_edit",
            "rag_config",
            "readonly",
            "recall",
            "ref",
            "remote",
            "shared",
            "shell",
            "sudo_askpass",
            "timeout",
            "tools",
            "toon",
            "type",
            "url",
            "version",
            "webhook_config",
            "working_dir",
        ],
    ),
    (
        "hook",
        &[
            "args",
            "command",
            "env",
            "model",
            "name",
            "on_error",
            "prompt",
            "schema",
            "timeout",
            "type",
            "working_dir",
        ],
    ),
    ("hooks", &[]),
    ("matcher", &["hooks", "matcher", "preempt_yolo"]),
    ("fallback", &["cooldown", "models", "retries"]),
];

/// docker-agent's fields of an object kind (`file`, `agent`, `model`, `provider`, `toolset`,
/// `hook`, `matcher`, `hooks` (the newer events), `fallback`).
pub fn upstream_fields(kind: &str) -> &'static [&'static str] {
    FIELDS
        .iter()
        .find(|(k, _)| *k == kind)
        .map_or(&[], |(_, fields)| fields)
}

/// The kind of object at a loader key path (`agents.root.toolsets[0]` → `toolset`).
fn kind(path: &str) -> Option<&'static str> {
    if path.is_empty() {
        return Some("file");
    }
    let segments: Vec<&str> = path.split('.').collect();
    let last = *segments.last()?;
    let bare = |s: &str| s.split('[').next().unwrap_or(s).to_owned();
    match segments.as_slice() {
        ["agents", _] => Some("agent"),
        ["models", _] => Some("model"),
        ["providers", _] => Some("provider"),
        ["mcps", _] => Some("toolset"),
        [.., "hooks"] => Some("hooks"),
        [.., "fallback"] => Some("fallback"),
        [.., prev, _] if bare(prev) == "hooks" => {
            // `hooks.EVENT[i]`: a matcher entry of a tool event, else a hook of a flat event.
            match HookEvent::from_wire_name(&bare(last)) {
                Some(e) if e.uses_matcher() => Some("matcher"),
                _ => Some("hook"),
            }
        }
        _ if last.starts_with("hooks[") => Some("hook"),
        _ if bare(last) == "toolsets" => Some("toolset"),
        _ => None,
    }
}

/// docker-agent has `field` where Tether's loader met it: it is valid there, just not
/// supported by Tether yet.
pub(crate) fn is_upstream_field(path: &str, field: &str) -> bool {
    kind(path).is_some_and(|k| {
        FIELDS
            .iter()
            .any(|(kind, fields)| *kind == k && fields.contains(&field))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_map_to_the_object_kind() {
        let got: Vec<Option<&str>> = [
            "",
            "agents.root",
            "models.m",
            "providers.p",
            "agents.root.toolsets[2]",
            "agents.root.hooks",
            "agents.root.hooks.stop[0]",
            "agents.root.hooks.pre_tool_use[0]",
            "agents.root.hooks.pre_tool_use[0].hooks[1]",
            "agents.root.fallback",
            "agents.root.commands",
        ]
        .iter()
        .map(|p| kind(p))
        .collect();
        assert_eq!(
            got,
            vec![
                Some("file"),
                Some("agent"),
                Some("model"),
                Some("provider"),
                Some("toolset"),
                Some("hooks"),
                Some("hook"),
                Some("matcher"),
                Some("hook"),
                Some("fallback"),
                None
            ]
        );
    }

    #[test]
    fn only_docker_agent_fields_are_upstream() {
        assert!(is_upstream_field("agents.root", "harness"));
        assert!(is_upstream_field("agents.root", "budgets"));
        assert!(!is_upstream_field("agents.root", "harnes"));
        assert!(!is_upstream_field("models.m", "harness"));
    }
}
