//! Validated hook configuration: what the engine dispatches.
//!
//! Every event holds an ordered list of [`MatcherEntry`]s (flat events use one entry with
//! [`Matcher::Any`]), so selection is the same code for both shapes. Matchers are compiled
//! once, here, at load.

use std::fmt;
use std::time::Duration;

use regex::Regex;
use tether_protocol::HookEvent;

use crate::diagnostic::{Origin, TextOrigin};
use crate::evaluator::{Evaluator, EvaluatorPolicy};

/// A hook's `timeout` when none (or a value ≤ 0) is given.
pub const DEFAULT_HOOK_TIMEOUT: Duration = Duration::from_secs(60);

/// Response shapes a model hook may name in `schema`.
pub const MODEL_HOOK_SCHEMAS: [&str; 1] = ["pre_tool_use_decision"];

/// What runs.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum HookKind {
    /// Shell text run with `$SHELL -c`.
    Command { command: String },
    /// An in-process builtin, by registered name.
    Builtin { name: String },
    /// An LLM call whose reply is interpreted as the hook's answer.
    Model {
        model: String,
        prompt: String,
        schema: Option<String>,
        /// Where `prompt` was written, so template errors point at their own line.
        prompt_origin: TextOrigin,
        /// `system_prompt`: the literal system message, replacing the default one.
        system_prompt: Option<String>,
    },
    /// A classifier call (an `evaluators:` entry, resolved at load) whose choice the policy
    /// maps to a permission decision or to an agent.
    Evaluator {
        evaluator: Evaluator,
        policy: EvaluatorPolicy,
    },
    /// A POST of the Input JSON to a webhook; a 2xx body is read like command stdout.
    Http {
        /// `http://` or `https://`.
        url: String,
        /// In file order; values may use `${VAR}` for names listed in `allowed_env`.
        headers: Vec<(String, String)>,
        allowed_env: Vec<String>,
    },
    /// A call to a tool of one of the agent's MCP servers; the tool's text result is read like
    /// command stdout, an `isError` result is a hook failure.
    Mcp {
        /// The server: an MCP toolset's `name`, `ref` name or reported name.
        server: String,
        tool: String,
        /// The arguments; `None` sends the hook Input itself. String values may be `${path}`
        /// references into the Input (`${tool_input.path}`).
        input: Option<ArgsTemplate>,
        /// `mcp:SERVER:TOOL`, shown in logs and notices.
        target: String,
    },
    /// Cedar policies evaluated in process (see `crate::policy`).
    Policy(crate::policy::PolicyHook),
}

impl HookKind {
    /// The `type:` of a hook definition (`mcp_tool` is docker-agent's name of `mcp`).
    pub const TYPE_NAMES: [&'static str; 8] = [
        "command",
        "builtin",
        "model",
        "evaluator",
        "http",
        "mcp",
        "mcp_tool",
        "policy",
    ];
}

/// An `mcp` hook's `input:` as written (`Eq` by value: YAML gives no NaN here that matters).
#[derive(Debug, Clone, PartialEq)]
pub struct ArgsTemplate(pub serde_json::Value);

impl Eq for ArgsTemplate {}

impl std::hash::Hash for ArgsTemplate {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.0.to_string().hash(state);
    }
}

/// What a failing hook does on events that do not fail closed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub enum OnError {
    /// Show a warning and go on (default).
    #[default]
    Warn,
    /// Go on silently.
    Ignore,
    /// Treat the failure as a block.
    Block,
}

impl OnError {
    pub const NAMES: [&'static str; 3] = ["warn", "ignore", "block"];

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "warn" => Some(Self::Warn),
            "ignore" => Some(Self::Ignore),
            "block" => Some(Self::Block),
            _ => None,
        }
    }

    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Warn => "warn",
            Self::Ignore => "ignore",
            Self::Block => "block",
        }
    }
}

/// The protocol dialect a command or http hook speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Dialect {
    /// docker-agent's Input (the default).
    #[default]
    DockerAgent,
    /// Claude Code's: its event and tool names, `tool_input.command` / `file_path`, and
    /// `CLAUDE_PROJECT_DIR`, so a hook script written for Claude Code runs unchanged.
    Claude,
}

impl Dialect {
    pub const NAMES: [&'static str; 2] = ["docker-agent", "claude"];

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "docker-agent" => Some(Self::DockerAgent),
            "claude" => Some(Self::Claude),
            _ => None,
        }
    }

    pub const fn as_str(self) -> &'static str {
        match self {
            Self::DockerAgent => "docker-agent",
            Self::Claude => "claude",
        }
    }
}

/// Where a hook came from (shown by `tether hooks check`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HookSource {
    /// The agent file's `hooks:` section.
    Yaml,
    /// A `--hook-*` flag.
    Cli,
    /// An agent flag such as `add_date: true` or a shell toolset's `safer: true`.
    Shorthand,
    /// Injected for every agent (`limit_large_tool_results`).
    Always,
    /// The user config's `settings.hooks`.
    User,
    /// A file of the user config's `hooks.d/` (its origin names the file).
    DropIn,
}

impl HookSource {
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::Yaml => "yaml",
            Self::Cli => "cli",
            Self::Shorthand => "shorthand",
            Self::Always => "always",
            Self::User => "user",
            Self::DropIn => "drop-in",
        }
    }
}

impl fmt::Display for HookSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One validated hook definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HookSpec {
    pub kind: HookKind,
    /// Builtin parameters; part of the de-duplication key for every type.
    pub args: Vec<String>,
    pub timeout: Duration,
    pub name: Option<String>,
    /// Relative paths join the executor's working directory.
    pub working_dir: Option<String>,
    /// Added to (or overriding) the executor's environment, in order.
    pub env: Vec<(String, String)>,
    pub on_error: OnError,
    /// `async: true` (observational events only): started, never awaited, output ignored.
    pub run_async: bool,
    /// `dialect: claude`: the hook reads and writes Claude Code's spellings.
    pub dialect: Dialect,
    /// `strict_output: true`: stdout must be empty or one JSON Output object the event
    /// understands; anything else is a hook failure.
    pub strict_output: bool,
    /// `persistent: true` (command hooks): one process per session answers every event, a
    /// line of JSON in, a line out.
    pub persistent: bool,
    /// `command` hooks: `sandbox:` as written; `None` takes the user default.
    pub sandbox: Option<crate::HookSandbox>,
    pub source: HookSource,
    pub origin: Origin,
}

impl HookSpec {
    fn with_kind(kind: HookKind, source: HookSource, origin: Origin) -> Self {
        Self {
            kind,
            args: Vec::new(),
            timeout: DEFAULT_HOOK_TIMEOUT,
            name: None,
            working_dir: None,
            env: Vec::new(),
            on_error: OnError::Warn,
            run_async: false,
            dialect: Dialect::DockerAgent,
            strict_output: false,
            persistent: false,
            sandbox: None,
            source,
            origin,
        }
    }

    pub fn command(command: impl Into<String>, source: HookSource, origin: Origin) -> Self {
        Self::with_kind(
            HookKind::Command {
                command: command.into(),
            },
            source,
            origin,
        )
    }

    pub fn builtin(
        name: impl Into<String>,
        args: Vec<String>,
        source: HookSource,
        origin: Origin,
    ) -> Self {
        let mut spec = Self::with_kind(HookKind::Builtin { name: name.into() }, source, origin);
        spec.args = args;
        spec
    }

    /// `command`, `builtin`, `model`, `evaluator`, `http` or `mcp`.
    pub const fn type_name(&self) -> &'static str {
        match self.kind {
            HookKind::Command { .. } => "command",
            HookKind::Builtin { .. } => "builtin",
            HookKind::Model { .. } => "model",
            HookKind::Evaluator { .. } => "evaluator",
            HookKind::Http { .. } => "http",
            HookKind::Mcp { .. } => "mcp",
            HookKind::Policy(_) => "policy",
        }
    }

    /// The command text, builtin name, model spec, evaluator name or URL.
    pub fn target(&self) -> &str {
        match &self.kind {
            HookKind::Command { command } => command,
            HookKind::Builtin { name } => name,
            HookKind::Model { model, .. } => model,
            HookKind::Evaluator { evaluator, .. } => &evaluator.name,
            HookKind::Http { url, .. } => url,
            HookKind::Mcp { target, .. } => target,
            HookKind::Policy(p) => &p.source,
        }
    }

    /// `name`, else the command, builtin name, model spec or URL.
    pub fn display_name(&self) -> &str {
        self.name.as_deref().unwrap_or_else(|| self.target())
    }
}

/// An environment variable name: `[A-Za-z_][A-Za-z0-9_]*`.
pub(crate) fn is_env_name(name: &str) -> bool {
    name.chars()
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
}

/// The `${NAME}` references of an http hook's header value, in order. A `$` not followed by
/// `{` is literal text; an unterminated `${` or a name that is not `[A-Za-z_][A-Za-z0-9_]*` is
/// an error.
pub fn env_references(value: &str) -> Result<Vec<&str>, String> {
    let mut names = Vec::new();
    each_reference(value, |_, name| {
        if !is_env_name(name) {
            return Err(format!("invalid variable name `{name}` in `${{{name}}}`"));
        }
        names.push(name);
        Ok(())
    })?;
    Ok(names)
}

/// Replaces every `${NAME}` of `value` with `lookup(NAME)`; a variable `lookup` does not know
/// is an error naming it.
pub fn expand_env(value: &str, lookup: impl Fn(&str) -> Option<String>) -> Result<String, String> {
    let mut out = String::with_capacity(value.len());
    let tail = each_reference(value, |text, name| {
        out.push_str(text);
        let v = lookup(name).ok_or_else(|| format!("environment variable `{name}` is not set"))?;
        out.push_str(&v);
        Ok(())
    })?;
    out.push_str(tail);
    Ok(out)
}

/// Walks the `${NAME}` references of `value` left to right, calling `each(text before, NAME)`
/// and stopping at its first error; returns the text after the last reference. An unterminated
/// `${` is an error.
fn each_reference<'v>(
    value: &'v str,
    mut each: impl FnMut(&'v str, &'v str) -> Result<(), String>,
) -> Result<&'v str, String> {
    let mut rest = value;
    while let Some(at) = rest.find("${") {
        let after = &rest[at + 2..];
        let Some(end) = after.find('}') else {
            return Err(format!("unterminated `${{` in `{value}`"));
        };
        each(&rest[..at], &after[..end])?;
        rest = &after[end + 1..];
    }
    Ok(rest)
}

/// Which tools an entry applies to.
#[derive(Debug, Clone)]
pub enum Matcher {
    /// Absent, `""` or `"*"`: every tool (and every flat event).
    Any,
    /// A regex anchored as `^(?:…)$` over the tool name.
    Pattern { source: String, regex: Regex },
}

impl Matcher {
    /// Compiles a matcher as written in YAML (docs/design.md D11).
    pub fn compile(source: &str) -> Result<Self, regex::Error> {
        if source.is_empty() || source == "*" {
            return Ok(Self::Any);
        }
        let regex = Regex::new(&format!("^(?:{source})$"))?;
        Ok(Self::Pattern {
            source: source.to_owned(),
            regex,
        })
    }

    pub fn matches(&self, tool_name: &str) -> bool {
        match self {
            Self::Any => true,
            Self::Pattern { regex, .. } => regex.is_match(tool_name),
        }
    }

    /// The matcher as written (`*` for [`Matcher::Any`]).
    pub fn source(&self) -> &str {
        match self {
            Self::Any => "*",
            Self::Pattern { source, .. } => source,
        }
    }
}

impl PartialEq for Matcher {
    fn eq(&self, other: &Self) -> bool {
        self.source() == other.source()
    }
}

impl Eq for Matcher {}

/// A group of hooks sharing a matcher.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MatcherEntry {
    pub matcher: Matcher,
    /// Runs on the pre-approval lane (`pre_tool_use` only; ignored elsewhere).
    pub preempt_yolo: bool,
    pub hooks: Vec<HookSpec>,
    pub origin: Origin,
}

impl MatcherEntry {
    /// An entry that applies to everything.
    pub fn any(hooks: Vec<HookSpec>, origin: Origin) -> Self {
        Self {
            matcher: Matcher::Any,
            preempt_yolo: false,
            hooks,
            origin,
        }
    }
}

/// The hooks of one agent, per event, in dispatch (config) order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HooksConfig {
    events: [Vec<MatcherEntry>; HookEvent::ALL.len()],
}

impl HooksConfig {
    pub fn entries(&self, event: HookEvent) -> &[MatcherEntry] {
        &self.events[event.index()]
    }

    pub fn push(&mut self, event: HookEvent, entry: MatcherEntry) {
        self.events[event.index()].push(entry);
    }

    /// Puts an entry before every other entry of the event.
    pub fn prepend(&mut self, event: HookEvent, entry: MatcherEntry) {
        self.events[event.index()].insert(0, entry);
    }

    /// Appends every event's entries of `other` after this config's own (docs/design.md D15).
    pub fn append(&mut self, other: Self) {
        for (mine, theirs) in self.events.iter_mut().zip(other.events) {
            mine.extend(theirs);
        }
    }

    pub fn is_empty(&self) -> bool {
        self.events.iter().all(Vec::is_empty)
    }

    /// Marks every hook as coming from `source`.
    pub fn set_source(&mut self, source: HookSource) {
        for entry in self.events.iter_mut().flatten() {
            for h in &mut entry.hooks {
                h.source = source;
            }
        }
    }

    /// Gives every command hook without `sandbox:` this one.
    pub fn default_sandbox(&mut self, sandbox: &crate::HookSandbox) {
        for entry in self.events.iter_mut().flatten() {
            for h in &mut entry.hooks {
                if matches!(h.kind, HookKind::Command { .. }) && h.sandbox.is_none() {
                    h.sandbox = Some(sandbox.clone());
                }
            }
        }
    }

    /// Every hook of every event, with its event and entry.
    pub fn iter(&self) -> impl Iterator<Item = (HookEvent, &MatcherEntry, &HookSpec)> {
        HookEvent::ALL.into_iter().flat_map(move |event| {
            self.entries(event)
                .iter()
                .flat_map(move |entry| entry.hooks.iter().map(move |h| (event, entry, h)))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn matchers_are_anchored_regexes() {
        let m = Matcher::compile("shell|edit_file").unwrap();
        assert!(m.matches("shell"));
        assert!(m.matches("edit_file"));
        assert!(!m.matches("shell2"));
        assert!(!m.matches("my_shell"));
        let m = Matcher::compile("read_.*").unwrap();
        assert!(m.matches("read_file"));
        assert!(!m.matches("xread_file"));
    }

    #[test]
    fn empty_and_star_match_everything() {
        for src in ["", "*"] {
            let m = Matcher::compile(src).unwrap();
            assert_eq!(m, Matcher::Any);
            assert!(m.matches("anything"));
        }
    }

    #[test]
    fn an_invalid_regex_is_an_error() {
        assert!(Matcher::compile("shell(").is_err());
    }

    #[test]
    fn env_references_are_braced_names_and_bare_dollars_are_text() {
        assert_eq!(
            env_references("Bearer ${TOKEN} $HOME ${A_1}"),
            Ok(vec!["TOKEN", "A_1"])
        );
        assert_eq!(
            env_references("x ${TOKEN"),
            Err("unterminated `${` in `x ${TOKEN`".to_owned())
        );
        assert_eq!(
            env_references("${1X}"),
            Err("invalid variable name `1X` in `${1X}`".to_owned())
        );
    }

    #[test]
    fn expand_env_substitutes_and_names_missing_variables() {
        let lookup = |n: &str| (n == "TOKEN").then(|| "s3cr3t".to_owned());
        assert_eq!(
            expand_env("Bearer ${TOKEN}; $x", lookup),
            Ok("Bearer s3cr3t; $x".to_owned())
        );
        assert_eq!(
            expand_env("${OTHER}", lookup),
            Err("environment variable `OTHER` is not set".to_owned())
        );
    }

    #[test]
    fn display_name_prefers_the_name() {
        let mut h = HookSpec::command("echo hi", HookSource::Yaml, Origin::synthetic(""));
        assert_eq!(h.display_name(), "echo hi");
        h.name = Some("greeter".into());
        assert_eq!(h.display_name(), "greeter");
    }

    #[test]
    fn append_keeps_every_event() {
        let mut a = HooksConfig::default();
        let mut b = HooksConfig::default();
        let hook = |c: &str| HookSpec::command(c, HookSource::Yaml, Origin::synthetic(""));
        a.push(
            HookEvent::Stop,
            MatcherEntry::any(vec![hook("a")], Origin::synthetic("")),
        );
        b.push(
            HookEvent::Stop,
            MatcherEntry::any(vec![hook("b")], Origin::synthetic("")),
        );
        b.push(
            HookEvent::TurnEnd,
            MatcherEntry::any(vec![hook("c")], Origin::synthetic("")),
        );
        a.append(b);
        let all: Vec<_> = a
            .iter()
            .map(|(e, _, h)| (e, h.target().to_owned()))
            .collect();
        assert_eq!(
            all,
            [
                (HookEvent::TurnEnd, "c".to_owned()),
                (HookEvent::Stop, "a".to_owned()),
                (HookEvent::Stop, "b".to_owned()),
            ]
        );
    }
}
