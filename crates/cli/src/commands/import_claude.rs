//! `tether hooks import-claude SETTINGS.json`: prints the Tether `hooks:` YAML equivalent to a
//! Claude Code settings file, to paste under an agent.
//!
//! Claude Code's hook protocol is close to ours (stdin JSON, exit 2 blocks, camelCase output
//! accepted, docs/design.md D13), so the work is renaming: events (`PreToolUse` → `pre_tool_use`)
//! and tool names inside matchers (`Bash` → `shell`, `Edit|MultiEdit` → `edit_file`, …). Each
//! command and http hook is marked `dialect: claude`, so the script itself runs unchanged: it
//! reads Claude's names and keys (`tool_input.command`) and `$CLAUDE_PROJECT_DIR`. Whatever has
//! no equivalent is kept visible as a YAML comment next to where it would go, never dropped
//! silently. Claude's `permissions` rules follow as a commented top-level `permissions:` block
//! (`Bash(npm run test:*)` → `shell:cmd=npm run test` and `shell:cmd=npm run test *`, strict
//! allow rules that do not cover chained commands); path rules are left to the user.
//! `PreToolUse` hooks go to the preempt lane (`preempt_yolo`), since Claude Code runs them
//! before its permission rules. The output is built as
//! text (with JSON-quoted scalars, which YAML reads as double-quoted strings) because the
//! comments are the point.

use std::fmt::Write as _;
use std::path::Path;

use serde_json::{Map, Value};
use tether_hooks::claude;
use tether_protocol::HookEvent;

use crate::common::user_error;
use crate::{out, status};

/// Our tools that Claude Code's `tool` stands for.
fn our_tools(tool: &str) -> Vec<&'static str> {
    claude::TOOLS
        .iter()
        .filter(|(_, c)| *c == tool)
        .map(|(ours, _)| *ours)
        .collect()
}

fn q(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_owned())
}

/// A matcher with Claude's tool names replaced; notes for names kept as written.
fn matcher(claude: &str, notes: &mut Vec<String>) -> String {
    let claude = claude.trim();
    if claude.is_empty() || claude == "*" || claude == ".*" {
        return "*".to_owned();
    }
    let plain = claude
        .split('|')
        .all(|p| !p.is_empty() && p.chars().all(|c| c.is_ascii_alphanumeric() || c == '_'));
    if !plain {
        notes.push(format!(
            "matcher `{claude}` is a regex; kept as written (Tether tools: shell, read_file, write_file, edit_file, list_directory, directory_tree, search_files_content, …)"
        ));
        return claude.to_owned();
    }
    let mut names: Vec<String> = Vec::new();
    for part in claude.split('|') {
        match our_tools(part) {
            ours if !ours.is_empty() => names.extend(ours.into_iter().map(str::to_owned)),
            _ => {
                notes.push(format!("no Tether tool for `{part}`; kept as written"));
                names.push(part.to_owned());
            }
        }
    }
    let mut unique = Vec::new();
    for n in names {
        if !unique.contains(&n) {
            unique.push(n);
        }
    }
    unique.join("|")
}

/// Notes for the Claude Code variables Tether does not set (`dialect: claude` hooks do get
/// `CLAUDE_PROJECT_DIR`).
fn command_notes(text: &str, notes: &mut Vec<String>) {
    let other: Vec<&str> = [
        "CLAUDE_ENV_FILE",
        "CLAUDE_CODE_REMOTE",
        "CLAUDE_PLUGIN_ROOT",
    ]
    .into_iter()
    .filter(|v| text.contains(v))
    .collect();
    if !other.is_empty() {
        notes.push(format!(
            "uses {} which Tether does not set",
            other.join(", ")
        ));
    }
}

/// `$NAME` → `${NAME}` (Claude accepts both in http headers; Tether only the braced form).
fn braced_env(value: &str) -> String {
    let mut out = String::new();
    let mut chars = value.chars().peekable();
    while let Some(c) = chars.next() {
        out.push(c);
        if c == '$'
            && chars
                .peek()
                .is_some_and(|n| n.is_ascii_alphabetic() || *n == '_')
        {
            out.push('{');
            while let Some(n) = chars
                .peek()
                .copied()
                .filter(|n| n.is_ascii_alphanumeric() || *n == '_')
            {
                out.push(n);
                chars.next();
            }
            out.push('}');
        }
    }
    out
}

fn comment_lines(out: &mut String, indent: &str, notes: &[String]) {
    for n in notes {
        let _ = writeln!(out, "{indent}# {n}");
    }
}

/// One Claude hook as a Tether hook definition at `indent` (the `- ` line included); false
/// when only a comment was written.
fn hook(out: &mut String, indent: &str, event: HookEvent, h: &Map<String, Value>) -> bool {
    let mut notes = Vec::new();
    let kind = h.get("type").and_then(Value::as_str).unwrap_or("command");
    let timeout = h.get("timeout").and_then(Value::as_u64);
    let is_async = h.get("async").and_then(Value::as_bool).unwrap_or(false);
    let mut lines: Vec<String> = Vec::new();
    match kind {
        "command" => {
            let text = h.get("command").and_then(Value::as_str).unwrap_or_default();
            command_notes(text, &mut notes);
            lines.push("type: command".to_owned());
            lines.push(format!("command: {}", q(text)));
            lines.push("dialect: claude".to_owned());
        }
        "http" => {
            let url = h.get("url").and_then(Value::as_str).unwrap_or_default();
            lines.push("type: http".to_owned());
            lines.push(format!("url: {}", q(url)));
            lines.push("dialect: claude".to_owned());
            if let Some(headers) = h.get("headers").and_then(Value::as_object) {
                lines.push("headers:".to_owned());
                for (k, v) in headers {
                    let v = braced_env(v.as_str().unwrap_or_default());
                    lines.push(format!("  {}: {}", q(k), q(&v)));
                }
            }
            if let Some(vars) = h.get("allowedEnvVars").and_then(Value::as_array) {
                let vars: Vec<String> = vars.iter().filter_map(Value::as_str).map(q).collect();
                lines.push(format!("allowed_env: [{}]", vars.join(", ")));
            }
        }
        other => {
            let what = h
                .get("prompt")
                .and_then(Value::as_str)
                .map(|p| format!(": {}", q(p)))
                .unwrap_or_default();
            let _ = writeln!(
                out,
                "{indent}# no equivalent for a `type: {other}` hook{what}\n{indent}# (a `type: model` hook with a Go-template `prompt` is the closest)"
            );
            return false;
        }
    }
    if let Some(t) = timeout {
        lines.push(format!("timeout: {t}"));
    }
    if is_async {
        if event.can_block() {
            notes.push(format!(
                "`async: true` dropped: `{event}` hooks can block, so Tether awaits them"
            ));
        } else {
            lines.push("async: true".to_owned());
        }
    }
    for key in h.keys() {
        if !matches!(
            key.as_str(),
            "type" | "command" | "timeout" | "async" | "url" | "headers" | "allowedEnvVars"
        ) {
            notes.push(format!("`{key}` has no Tether equivalent; dropped"));
        }
    }
    comment_lines(out, indent, &notes);
    for (i, line) in lines.iter().enumerate() {
        let lead = if i == 0 { "- " } else { "  " };
        let _ = writeln!(out, "{indent}{lead}{line}");
    }
    true
}

/// The Tether `hooks:` YAML for a Claude Code settings document.
pub(crate) fn convert(settings: &Value, source: &str) -> Result<String, String> {
    let Some(hooks) = settings.get("hooks") else {
        return Err(format!("`{source}` has no `hooks` section"));
    };
    let Some(hooks) = hooks.as_object() else {
        return Err(format!("`hooks` in `{source}` is not an object"));
    };
    let mut out = format!(
        "# Converted from {source} by `tether hooks import-claude`.\n# Paste under an agent (`agents.<name>.hooks`).\nhooks:\n"
    );
    // Tether's event order, so the listing reads like `tether hooks check`.
    let mut known: Vec<(HookEvent, &str, &Vec<Value>)> = Vec::new();
    for (name, groups) in hooks {
        let groups = groups
            .as_array()
            .ok_or_else(|| format!("`hooks.{name}` is not a list"))?;
        match claude::EVENTS.iter().find(|(c, _)| c == name) {
            Some((_, event)) => known.push((*event, name, groups)),
            None => {
                let _ = writeln!(
                    out,
                    "  # no Tether event for Claude Code's `{name}`; its {} hook group(s) were not converted",
                    groups.len()
                );
            }
        }
    }
    known.sort_by_key(|(e, _, _)| e.index());
    let mut empty = true;
    for (event, claude_name, groups) in known {
        let _ = writeln!(out, "  {event}:  # {claude_name}");
        for group in groups {
            let Some(group) = group.as_object() else {
                continue;
            };
            let defs = group
                .get("hooks")
                .and_then(Value::as_array)
                .map(Vec::as_slice)
                .unwrap_or_default();
            let claude_matcher = group.get("matcher").and_then(Value::as_str).unwrap_or("");
            if event.uses_matcher() {
                let mut notes = Vec::new();
                let m = matcher(claude_matcher, &mut notes);
                comment_lines(&mut out, "    ", &notes);
                let mut body = String::new();
                let mut any = false;
                for d in defs.iter().filter_map(Value::as_object) {
                    any |= hook(&mut body, "        ", event, d);
                }
                if any && event == HookEvent::PreToolUse {
                    // Claude Code runs PreToolUse hooks before its permission rules: the
                    // preempt lane is where an allow rule cannot skip them.
                    let _ = writeln!(
                        out,
                        "    - matcher: {}\n      preempt_yolo: true  # before permission rules and --yolo, as in Claude Code\n      hooks:",
                        q(&m)
                    );
                } else if any {
                    let _ = writeln!(out, "    - matcher: {}\n      hooks:", q(&m));
                } else {
                    let _ = writeln!(out, "    # matcher {}: nothing Tether can run", q(&m));
                }
                out.push_str(&body);
            } else {
                if !claude_matcher.is_empty() && claude_matcher != "*" {
                    let _ = writeln!(
                        out,
                        "    # Claude matcher `{claude_matcher}` dropped: `{event}` hooks always run (the hook can read `source`/`reason` from its input)"
                    );
                }
                for d in defs.iter().filter_map(Value::as_object) {
                    hook(&mut out, "    ", event, d);
                }
            }
            empty = false;
        }
    }
    if empty {
        out.push_str("  {}\n");
    }
    if let Some(permissions) = settings.get("permissions").and_then(Value::as_object) {
        out.push_str(&permissions_block(permissions));
    }
    Ok(out)
}

/// One Claude Code permission rule as Tether patterns (docs/design.md, Permissions), or why it cannot be.
fn permission_rule(rule: &str) -> Result<Vec<String>, String> {
    let rule = rule.trim();
    let (tool, spec) = match rule.split_once('(') {
        Some((tool, rest)) => match rest.strip_suffix(')') {
            Some(spec) => (tool, Some(spec)),
            None => return Err(format!("`{rule}`: not a rule Tether can read")),
        },
        None => (rule, None),
    };
    let ours = our_tools(tool);
    if ours.is_empty() {
        return Err(format!("`{rule}`: no Tether tool for `{tool}`"));
    }
    match spec.filter(|s| !s.is_empty() && *s != "*") {
        None => Ok(ours.iter().map(|t| (*t).to_owned()).collect()),
        Some(spec) if tool == "Bash" => {
            // `npm run test:*` is Claude's prefix form: the command alone or followed by
            // arguments (a word boundary, so not `npm run testx`). `:` separates conditions in
            // ours. As allow rules both are strict: chained commands are not covered.
            let values = spec.strip_suffix(":*").map_or_else(
                || vec![spec.to_owned()],
                |prefix| vec![prefix.to_owned(), format!("{prefix} *")],
            );
            if values.iter().any(|v| v.contains(':')) {
                return Err(format!(
                    "`{rule}`: a `:` inside the command cannot be written in a Tether pattern"
                ));
            }
            Ok(values.iter().map(|v| format!("shell:cmd={v}")).collect())
        }
        Some(_) => Err(format!(
            "`{rule}`: Claude matches these paths gitignore-style; write the `{}:path=…` pattern by hand",
            ours[0]
        )),
    }
}

/// Claude Code's `permissions` as a commented top-level `permissions:` block: it belongs at the
/// top of the agent file, not under the agent where the hooks go.
fn permissions_block(permissions: &Map<String, Value>) -> String {
    let mut lists: Vec<(&str, Vec<String>)> = Vec::new();
    let mut notes = Vec::new();
    for key in ["allow", "ask", "deny"] {
        let rules = permissions
            .get(key)
            .and_then(Value::as_array)
            .map(Vec::as_slice)
            .unwrap_or_default();
        let mut patterns = Vec::new();
        for rule in rules.iter().filter_map(Value::as_str) {
            match permission_rule(rule) {
                Ok(p) => patterns.extend(p),
                Err(why) => notes.push(format!("{key} {why}; not converted")),
            }
        }
        if !patterns.is_empty() {
            lists.push((key, patterns));
        }
    }
    for key in permissions.keys() {
        if !matches!(key.as_str(), "allow" | "ask" | "deny") {
            notes.push(format!(
                "permissions.{key} has no Tether equivalent; dropped"
            ));
        }
    }
    if lists.is_empty() && notes.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "\n# Claude Code's permissions, as Tether's top-level `permissions` (uncomment at the top\n# level of the agent file, beside `agents:`):\n",
    );
    if !lists.is_empty() {
        out.push_str("# permissions:\n");
        for (key, patterns) in &lists {
            let quoted: Vec<String> = patterns.iter().map(|p| q(p)).collect();
            let _ = writeln!(out, "#   {key}: [{}]", quoted.join(", "));
        }
    }
    comment_lines(&mut out, "", &notes);
    out
}

pub(crate) fn run(path: &Path) -> anyhow::Result<u8> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| user_error(format!("cannot read `{}`: {e}", path.display())))?;
    let settings: Value = serde_json::from_str(&text)
        .map_err(|e| user_error(format!("`{}` is not JSON: {e}", path.display())))?;
    let yaml = convert(&settings, &path.display().to_string()).map_err(user_error)?;
    out::line(yaml.trim_end())?;
    Ok(status::OK)
}

#[cfg(test)]
#[path = "import_claude_tests.rs"]
mod tests;
