//! What each builtin does, for the generated reference docs (`docs/hooks.md`). A test checks
//! that every registered builtin has an entry.

/// One builtin's documentation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct BuiltinDoc {
    pub name: &'static str,
    /// The events it is meant for.
    pub events: &'static str,
    pub args: &'static str,
    pub output: &'static str,
}

const fn doc(
    name: &'static str,
    events: &'static str,
    args: &'static str,
    output: &'static str,
) -> BuiltinDoc {
    BuiltinDoc {
        name,
        events,
        args,
        output,
    }
}

pub const CATALOG: &[BuiltinDoc] = &[
    doc(
        "add_context",
        "any event whose context is used (session_start, turn_start, user_prompt_submit, post_tool_use, stop, …)",
        "Go templates over the Input (required)",
        "Each argument rendered with the Input's Go field names (`{{ .SessionID }}`, `{{ .AgentName }}`, `{{ .Cwd }}`, `{{ .HookEventName }}`, `{{ .ToolName }}`, `{{ toJSON .ToolInput }}`, …); blank results are dropped, the rest joined by newlines. An unknown field is a load error.",
    ),
    doc(
        "add_date",
        "turn_start",
        "none",
        "`Today's date: YYYY-MM-DD` (local time zone).",
    ),
    doc(
        "add_environment_info",
        "session_start",
        "none",
        "The working directory, whether it is a git repository, the OS and the CPU architecture.",
    ),
    doc(
        "add_prompt_files",
        "turn_start",
        "file names, optionally first `--depth=N`",
        "Each file's contents, found walking up from the working directory, then in the home directory (or `$DOCKER_AGENT_KIT_DIR/prompt_files/`); joined by a blank line. With `--depth=N` (the agent field `add_prompt_files_depth`), the same names found 1 to N directory levels below the working directory are listed by path, not loaded. Only regular files whose real path stays inside the working tree or the directory they were found in are read (see Private files and prompt files).",
    ),
    doc(
        "add_git_status",
        "turn_start",
        "none",
        "`git status --short --branch`, capped at 4 KiB. Nothing outside a repository.",
    ),
    doc(
        "add_git_diff",
        "turn_start",
        "none, or `[\"full\"]`",
        "`git diff --stat` (or the full diff), capped at 4 KiB. Nothing for a clean tree.",
    ),
    doc(
        "add_directory_listing",
        "session_start",
        "none",
        "The working directory's visible top-level entries, sorted, at most 100.",
    ),
    doc(
        "add_user_info",
        "session_start",
        "none",
        "The user name, full name and host name.",
    ),
    doc(
        "add_recent_commits",
        "session_start",
        "none, or `[\"N\"]` (default 10)",
        "`git log --oneline -n N`, capped at 4 KiB.",
    ),
    doc(
        "max_iterations",
        "before_llm_call",
        "`[\"N\"]` (required)",
        "Blocks the model call after N calls in a run: a hard stop, no resume.",
    ),
    doc(
        "elide_repeated_tool_results",
        "before_llm_call",
        "none, or `[\"min_chars=N\"]` (default 200)",
        "In the outgoing messages, each tool result identical to an earlier one (at least N characters, not an error) becomes `` [same output as the earlier `TOOL` call ID; elided to save context] ``. The session keeps every result.",
    ),
    doc(
        "redact_secrets",
        "tool_input_transform, pre_tool_use, before_llm_call, tool_response_transform",
        "none",
        "Replaces secrets with `[REDACTED]` in tool arguments (only changed keys, merged onto the call's), outgoing messages, and tool output.",
    ),
    doc(
        "limit_large_tool_results",
        "tool_response_transform, session_end (always on)",
        "none",
        "A `filesystem`/`shell`/`mcp`/`a2a` result over 50 KiB or 2,000 lines goes to a file; the model sees a notice and the tail. Files live until the session ends.",
    ),
    doc(
        "safer_shell",
        "pre_tool_use with `preempt_yolo: true`",
        "none",
        "Asks before any shell command not known to be read-only, with `blast_radius`, `category` and `reason` for the confirmation; read-only commands pass silently.",
    ),
    doc(
        "snapshot",
        "session_start, turn_start, turn_end, pre_tool_use, post_tool_use, session_end",
        "none",
        "Records the working tree in a shadow git repository (never the project's `.git`) and keeps undo checkpoints for `/undo` and `/snapshots`.",
    ),
    doc(
        "unload",
        "on_agent_switch",
        "none",
        "POSTs `{\"model\": …}` to each departing DMR model's unload endpoint to free its memory; failures never block: the run stays `ok`, its `error` (hook log, `hooks fire`'s `hooks[].error`) says what was not unloaded, and `TETHER_LOG=debug` prints it.",
    ),
    doc(
        "http_post",
        "any",
        "`[url, body]`",
        "POSTs the body to an http(s) URL (private addresses refused); errors never block: the run stays `ok`, its `error` (hook log, `hooks fire`'s `hooks[].error`) says what was not delivered, and `TETHER_LOG=debug` prints it.",
    ),
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_registered_builtin_is_documented_and_nothing_else() {
        let mut registry = crate::Registry::new(tether_exec::Shell::detect(None, None));
        super::super::register_defaults(&mut registry);
        let mut documented: Vec<&str> = CATALOG.iter().map(|d| d.name).collect();
        documented.sort_unstable();
        assert_eq!(registry.builtin_names(), documented);
    }
}
