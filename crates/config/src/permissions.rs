//! Tool permission patterns (docs/design.md, Permissions): `toolglob` or `toolglob:key=valueglob[:…]`.
//!
//! A pattern is read the way that errs on the safe side for its list:
//!
//! - **deny and ask** match generously: keys and values case-insensitively, and `*`, `?` and
//!   `[…]` cross `/`. For the shell tool's `cmd`, the pattern is tested against the whole line
//!   and against every command in it ([`CommandLine::forms`]: through pipes, lists,
//!   substitutions, wrappers such as `env`, `sudo` or `bash -c`, and with the program's
//!   directory stripped); a line whose program cannot be told before it runs matches every
//!   shell deny or ask pattern. Any other string is also tried as the path it names
//!   (`permission_paths`: absolute, relative, under `~`, `..` applied, symlinks followed),
//!   and an array's every element on its own. Such a rule never matches less than
//!   docker-agent's.
//! - **allow** matches strictly: keys exactly, values case-sensitively with Go's
//!   `filepath.Match` semantics (`*` and `?` do not cross `/`), never a value with a `..` path
//!   component the pattern does not spell. For the shell tool's `cmd`, a line is allowed only
//!   when each of its simple commands is allowed on its own ([`CommandLine::units`]), a
//!   wildcard never stands for shell syntax (`$`, `` ` ``, `;`, `&`, `|`, `<`, `>`, `(`, `)`,
//!   newline), and nothing in the line substitutes or redirects; a pattern without wildcards
//!   equal to the whole line allows exactly that line.
//!
//! In both, a trailing `*` after a prefix with no other glob characters is a plain prefix test
//! (`sudo*` matches `sudo rm -rf /`), as in docker-agent.

use std::cell::OnceCell;
use std::path::Path;

use serde_json::{Map, Value};
use tether_protocol::Decision;
use tether_shell_safety::CommandLine;

use crate::permission_glob::{Folded, Glob, Mode};
use crate::permission_paths::Anchors;

/// `allow`, `ask` and `deny` lists, checked deny first, then allow, then ask.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Permissions {
    pub allow: Vec<PermissionPattern>,
    pub ask: Vec<PermissionPattern>,
    pub deny: Vec<PermissionPattern>,
}

/// The tools whose `cmd` is a shell line (a background job runs one too).
const SHELL_TOOLS: &[&str] = &["shell", "run_background_job"];
const SHELL_KEY: &str = "cmd";

/// Tools that run a shell line under another name: the shell's deny and ask rules hold for
/// them too (a model denied `shell:cmd=rm*` must not get there through a background job),
/// while an allow rule for the shell does not extend to them.
const SHELL_ALIASES: &[(&str, &str)] = &[("run_background_job", "shell")];

/// Filesystem tools that reach the files another one names: `(tool, rule's tool, rule's key,
/// the tool's key, the tool's value is a directory it reads beneath)`. A deny or ask rule
/// written for the second holds for the first (`deny: write_file:path=/etc/*` also stops
/// `edit_file`; an ask on `read_file` also holds for `read_multiple_files` and for
/// `search_files_content` on a directory above the file); allow rules do not extend.
const FILE_ALIASES: &[(&str, &str, &str, &str, bool)] = &[
    ("edit_file", "write_file", "path", "path", false),
    ("write_file", "edit_file", "path", "path", false),
    ("read_multiple_files", "read_file", "path", "paths", false),
    ("search_files_content", "read_file", "path", "path", true),
];

/// The shell, when `tool` runs a shell line under another name ([`SHELL_ALIASES`]): guards
/// written for the shell (deny and ask rules, hooks whose matcher names it) hold for it too.
pub fn shell_alias(tool: &str) -> Option<&'static str> {
    SHELL_ALIASES
        .iter()
        .find(|(name, _)| *name == tool)
        .map(|(_, shell)| *shell)
}

impl Permissions {
    pub fn is_empty(&self) -> bool {
        self.allow.is_empty() && self.ask.is_empty() && self.deny.is_empty()
    }

    /// Deny patterns first, then allow, then ask; `None` when nothing matches.
    pub fn check(&self, tool: &str, args: &Map<String, Value>) -> Option<Decision> {
        self.check_names(&[tool], args)
    }

    /// [`Self::check`] for a tool known by several names (an MCP tool's model-visible name
    /// and its `mcp:SERVER:TOOL` name): a rule matching any of them applies.
    pub fn check_names(&self, tools: &[&str], args: &Map<String, Value>) -> Option<Decision> {
        self.check_in(tools, args, None)
    }

    /// [`Self::check_names`] for a call whose relative paths point under `cwd`, so that deny
    /// and ask rules see where they point.
    pub fn check_in(
        &self,
        tools: &[&str],
        args: &Map<String, Value>,
        cwd: Option<&Path>,
    ) -> Option<Decision> {
        let mut call = Call::new(args, tools);
        call.anchors = Anchors::new(cwd);
        if any_denies(&self.deny, &call) {
            Some(Decision::Deny)
        } else if allowed(&self.allow, &call) {
            Some(Decision::Allow)
        } else if any_denies(&self.ask, &call) {
            Some(Decision::Ask)
        } else {
            None
        }
    }

    /// Appends another checker's lists (user-config global permissions after the file's).
    pub fn extend(&mut self, other: Self) {
        self.allow.extend(other.allow);
        self.ask.extend(other.ask);
        self.deny.extend(other.deny);
    }
}

/// Whether `patterns`, read as allow rules, allow the call (see the module doc); for the
/// session's own approvals as for the `allow` list.
pub fn approvals_allow(
    patterns: &[PermissionPattern],
    tools: &[&str],
    args: &Map<String, Value>,
    cwd: Option<&Path>,
) -> bool {
    let mut call = Call::new(args, tools);
    call.anchors = Anchors::new(cwd);
    allowed(patterns, &call)
}

/// One call: the tool's names (as written and lower-cased) and its arguments, with its shell
/// line parsed at most once.
struct Call<'a> {
    tools: Vec<(&'a str, Folded)>,
    /// `tools` and the shell, if one of them runs a shell line ([`SHELL_ALIASES`]): the names
    /// deny and ask rules are matched against.
    guarded: Vec<Guard<'a>>,
    args: &'a Map<String, Value>,
    line: OnceCell<Option<Line>>,
    /// Where the call's relative paths and `~` point.
    anchors: Anchors,
}

/// A name deny and ask rules are matched against, and how the call's arguments read under it.
struct Guard<'a> {
    tool: (&'a str, Folded),
    /// `(rule's key, the call's key)` when the name is another tool's ([`FILE_ALIASES`]).
    key: Option<(&'static str, &'static str)>,
    /// The call's value is a directory whose every descendant it reaches.
    beneath: bool,
}

impl<'a> Guard<'a> {
    fn new(tool: &'a str) -> Self {
        Self {
            tool: (tool, Folded::new(tool)),
            key: None,
            beneath: false,
        }
    }

    /// The call's key a rule's `key` reads under this name.
    fn key<'k>(&self, key: &'k str) -> &'k str {
        match self.key {
            Some((rule, call)) if key.eq_ignore_ascii_case(rule) => call,
            _ => key,
        }
    }
}

/// A parsed shell line and its forms lower-cased, as deny and ask patterns compare them.
struct Line {
    parsed: CommandLine,
    forms: Vec<Folded>,
    /// Commands whose rest comes only at run time ([`CommandLine::open_forms`]).
    open: Vec<Folded>,
}

impl<'a> Call<'a> {
    fn new(args: &'a Map<String, Value>, tools: &[&'a str]) -> Self {
        let aliases = SHELL_ALIASES
            .iter()
            .filter(|(tool, _)| tools.contains(tool))
            .map(|(_, shell)| *shell);
        let files = FILE_ALIASES
            .iter()
            .filter(|(tool, ..)| tools.contains(tool))
            .map(|&(_, rule, rule_key, key, beneath)| Guard {
                key: Some((rule_key, key)),
                beneath,
                ..Guard::new(rule)
            });
        let guarded = tools.iter().copied().chain(aliases).map(Guard::new);
        Self {
            tools: tools.iter().map(|t| (*t, Folded::new(t))).collect(),
            guarded: guarded.chain(files).collect(),
            args,
            line: OnceCell::new(),
            anchors: Anchors::default(),
        }
    }

    /// The parsed `cmd` of a shell call.
    fn line(&self, tool: &str) -> Option<&Line> {
        if !SHELL_TOOLS.contains(&tool) {
            return None;
        }
        self.line
            .get_or_init(|| {
                let parsed = CommandLine::parse(self.args.get(SHELL_KEY)?.as_str()?);
                let forms = parsed.forms().iter().map(|f| Folded::new(f)).collect();
                let open = parsed.open_forms().iter().map(|f| Folded::new(f)).collect();
                Some(Line {
                    parsed,
                    forms,
                    open,
                })
            })
            .as_ref()
    }
}

fn any_denies(patterns: &[PermissionPattern], call: &Call<'_>) -> bool {
    patterns
        .iter()
        .any(|p| call.guarded.iter().any(|tool| p.denies(tool, call)))
}

fn allowed(patterns: &[PermissionPattern], call: &Call<'_>) -> bool {
    // Keys that differ only in case leave it open which one a tool reads.
    if patterns.is_empty() || has_case_twins(call.args) {
        return false;
    }
    call.tools.iter().any(|tool| {
        let Some(line) = call.line(tool.0) else {
            return patterns
                .iter()
                .any(|p| p.allows(tool, call.args, None, &call.anchors));
        };
        let whole = call
            .args
            .get(SHELL_KEY)
            .and_then(Value::as_str)
            .unwrap_or("");
        let outright = patterns.iter().any(|p| {
            (!p.has_key(SHELL_KEY) && p.allows(tool, call.args, None, &call.anchors))
                || p.allows_exactly(tool, call.args, whole, &call.anchors)
        });
        // Otherwise every simple command must be allowed by some pattern on its own.
        outright
            || line.parsed.units().is_some_and(|units| {
                !units.is_empty()
                    && units.iter().all(|unit| {
                        patterns
                            .iter()
                            .any(|p| p.allows(tool, call.args, Some(unit), &call.anchors))
                    })
            })
    })
}

fn has_case_twins(args: &Map<String, Value>) -> bool {
    let keys: Vec<&String> = args.keys().collect();
    keys.iter().enumerate().any(|(i, a)| {
        keys[i + 1..]
            .iter()
            .any(|b| a.len() == b.len() && a.eq_ignore_ascii_case(b))
    })
}

/// One parsed pattern.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PermissionPattern {
    pub source: String,
    tool: Glob,
    args: Vec<(String, Glob)>,
}

impl PermissionPattern {
    pub fn parse(source: &str) -> Result<Self, String> {
        if source.trim().is_empty() {
            return Err("empty permission pattern".to_owned());
        }
        let mut tool_parts = Vec::new();
        let mut args = Vec::new();
        for segment in source.split(':') {
            match segment.split_once('=') {
                Some((key, value)) => args.push((key.to_owned(), Glob::parse(value)?)),
                // Segments without `=` name the tool until the first argument condition.
                None if args.is_empty() => tool_parts.push(segment),
                None => {}
            }
        }
        Ok(Self {
            source: source.to_owned(),
            tool: Glob::parse(&tool_parts.join(":"))?,
            args,
        })
    }

    /// Read as a deny or ask rule: the tool glob matches and every argument condition holds
    /// for some argument whose key matches case-insensitively (a missing argument never does).
    fn denies(&self, guard: &Guard<'_>, call: &Call<'_>) -> bool {
        let (tool, folded) = &guard.tool;
        self.tool.matches_folded(folded)
            && self.args.iter().all(|(key, glob)| {
                let key = guard.key(key);
                call.args
                    .iter()
                    .filter(|(k, _)| k.eq_ignore_ascii_case(key))
                    .any(|(k, v)| match call.line(tool) {
                        Some(line) if k.eq_ignore_ascii_case(SHELL_KEY) && v.is_string() => {
                            line.parsed.is_opaque()
                                || line.forms.iter().any(|f| glob.matches_folded(f))
                                || line.open.iter().any(|f| glob.matches_open(f))
                        }
                        _ => {
                            value_denied(glob, v, &call.anchors, 0)
                                || (guard.beneath && beneath_denied(glob, v, &call.anchors))
                        }
                    })
            })
    }

    /// Read as an allow rule, with `unit` (one simple command) standing for a shell call's
    /// `cmd`: keys match exactly and values strictly; a value that names a path through a
    /// symlink is allowed only when where it really points is allowed too.
    fn allows(
        &self,
        tool: &(&str, Folded),
        args: &Map<String, Value>,
        unit: Option<&str>,
        anchors: &Anchors,
    ) -> bool {
        self.tool.matches_folded(&tool.1)
            && self
                .args
                .iter()
                .all(|(key, glob)| match (unit, key.as_str()) {
                    (Some(unit), SHELL_KEY) => glob.matches(unit, Mode::StrictShell),
                    _ => args.get(key).is_some_and(|v| {
                        glob.matches(&stringify(v), Mode::Strict)
                            && v.as_str()
                                .and_then(|s| anchors.real_spelling(s))
                                .is_none_or(|real| glob.matches(&real, Mode::Strict))
                    }),
                })
    }

    /// A shell allow rule whose `cmd` has no wildcard and equals the whole line.
    fn allows_exactly(
        &self,
        tool: &(&str, Folded),
        args: &Map<String, Value>,
        line: &str,
        anchors: &Anchors,
    ) -> bool {
        self.args
            .iter()
            .any(|(key, glob)| key == SHELL_KEY && glob.is_literal(line))
            && self.allows(tool, args, None, anchors)
    }

    fn has_key(&self, key: &str) -> bool {
        self.args.iter().any(|(k, _)| k == key)
    }
}

/// A deny or ask glob against one argument value: as docker-agent renders it, then (for a
/// string) every spelling of the path it may name, and (for an array) each element.
fn value_denied(glob: &Glob, v: &Value, anchors: &Anchors, depth: usize) -> bool {
    glob.matches_folded(&Folded::new(&stringify(v)))
        || match v {
            Value::String(s) => anchors
                .spellings(s)
                .iter()
                .any(|f| glob.matches_folded(&Folded::new(f))),
            Value::Array(items) if depth < 8 => items
                .iter()
                .any(|item| value_denied(glob, item, anchors, depth + 1)),
            _ => false,
        }
}

/// A deny or ask glob against a directory a tool reads beneath: whether some path below any
/// spelling of it matches.
fn beneath_denied(glob: &Glob, v: &Value, anchors: &Anchors) -> bool {
    let Some(dir) = v.as_str() else {
        return false;
    };
    let spellings = anchors.spellings(dir);
    std::iter::once(dir)
        .chain(spellings.iter().map(String::as_str))
        .any(|d| {
            let open = if d.ends_with('/') {
                d.to_owned()
            } else {
                format!("{d}/")
            };
            glob.matches_open(&Folded::new(&open))
        })
}

/// Go's `%v` / `%g` rendering of an argument value.
fn stringify(v: &Value) -> String {
    match v {
        Value::String(s) => s.clone(),
        Value::Null => "<nil>".to_owned(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => match n.as_f64() {
            Some(f) if f.fract() == 0.0 && f.abs() < 1e21 => format!("{f:.0}"),
            Some(f) => f.to_string(),
            None => n.to_string(),
        },
        Value::Array(items) => {
            let parts: Vec<String> = items.iter().map(stringify).collect();
            format!("[{}]", parts.join(" "))
        }
        Value::Object(m) => {
            let parts: Vec<String> = m
                .iter()
                .map(|(k, v)| format!("{k}:{}", stringify(v)))
                .collect();
            format!("map[{}]", parts.join(" "))
        }
    }
}

#[cfg(test)]
#[path = "permissions_tests.rs"]
mod tests;
