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

/// The shell, when `tool` runs a shell line under another name ([`SHELL_ALIASES`]): guards
/// written for the shell (deny and ask rules, hooks whose matcher names it) hold for it too.
pub fn shell_alias(tool: &str) -> Option<&'static str> {
    SHELL_ALIASES
        .iter()
        .find(|(name, _)| *name == tool)
        .map(|(_, shell)| *shell)
}

/// Characters a wildcard of a shell allow pattern never stands for.
const SHELL_SYNTAX: &[char] = &['$', '`', ';', '&', '|', '<', '>', '(', ')', '\n', '\r'];

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
    guarded: Vec<(&'a str, Folded)>,
    args: &'a Map<String, Value>,
    line: OnceCell<Option<Line>>,
    /// Where the call's relative paths and `~` point.
    anchors: Anchors,
}

/// A parsed shell line and its forms lower-cased, as deny and ask patterns compare them.
struct Line {
    parsed: CommandLine,
    forms: Vec<Folded>,
    /// Commands whose rest comes only at run time ([`CommandLine::open_forms`]).
    open: Vec<Folded>,
}

/// A text lower-cased, as a string (for prefix tests) and as characters (for globs).
struct Folded {
    text: String,
    chars: Vec<char>,
}

impl Folded {
    fn new(text: &str) -> Self {
        let text = text.to_lowercase();
        Self {
            chars: text.chars().collect(),
            text,
        }
    }
}

impl<'a> Call<'a> {
    fn new(args: &'a Map<String, Value>, tools: &[&'a str]) -> Self {
        let aliases = SHELL_ALIASES
            .iter()
            .filter(|(tool, _)| tools.contains(tool))
            .map(|(_, shell)| *shell);
        let guarded = tools.iter().copied().chain(aliases);
        Self {
            tools: tools.iter().map(|t| (*t, Folded::new(t))).collect(),
            guarded: guarded.map(|t| (t, Folded::new(t))).collect(),
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
    fn denies(&self, (tool, folded): &(&str, Folded), call: &Call<'_>) -> bool {
        self.tool.matches_folded(folded)
            && self.args.iter().all(|(key, glob)| {
                call.args
                    .iter()
                    .filter(|(k, _)| k.eq_ignore_ascii_case(key))
                    .any(|(k, v)| match call.line(tool) {
                        Some(line) if k.eq_ignore_ascii_case(SHELL_KEY) && v.is_string() => {
                            line.parsed.is_opaque()
                                || line.forms.iter().any(|f| glob.matches_folded(f))
                                || line.open.iter().any(|f| glob.matches_open(f))
                        }
                        _ => value_denied(glob, v, &call.anchors, 0),
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

/// How a glob is matched (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mode {
    /// Deny and ask: case-insensitive, wildcards cross `/`.
    Generous,
    /// Allow: case-sensitive, wildcards stop at `/`, no unspelled `..`.
    Strict,
    /// Allow for one shell command: [`Mode::Strict`], and wildcards never stand for shell
    /// syntax.
    StrictShell,
}

/// A compiled glob, kept as written and lower-cased.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Glob {
    pattern: Vec<char>,
    lower: Vec<char>,
    /// `Some(prefix)` when the pattern is `prefix*` with no other glob characters.
    prefix: Option<String>,
    lower_prefix: Option<String>,
    /// The pattern spells a `..` path component itself.
    climbs: bool,
}

impl Glob {
    fn parse(source: &str) -> Result<Self, String> {
        let pattern: Vec<char> = source.chars().collect();
        validate(&pattern).map_err(|e| format!("invalid glob `{source}`: {e}"))?;
        let prefix = source
            .strip_suffix('*')
            .filter(|p| !p.contains(['*', '?', '[', '\\']))
            .map(str::to_owned);
        Ok(Self {
            lower: source.to_lowercase().chars().collect(),
            pattern,
            lower_prefix: prefix.as_deref().map(str::to_lowercase),
            prefix,
            climbs: has_parent_component(source),
        })
    }

    /// No glob characters, and the text is exactly `text`.
    fn is_literal(&self, text: &str) -> bool {
        !self
            .pattern
            .iter()
            .any(|c| matches!(c, '*' | '?' | '[' | '\\'))
            && self.pattern.iter().copied().eq(text.chars())
    }

    /// The generous reading (deny and ask) of a lower-cased text.
    fn matches_folded(&self, text: &Folded) -> bool {
        match &self.lower_prefix {
            Some(prefix) => text.text.starts_with(prefix.as_str()),
            None => glob_match(&self.lower, &text.chars, Mode::Generous),
        }
    }

    /// The generous reading of a lower-cased text that more text may follow: whether some
    /// continuation of it matches.
    fn matches_open(&self, text: &Folded) -> bool {
        match &self.lower_prefix {
            Some(prefix) => {
                text.text.starts_with(prefix.as_str()) || prefix.starts_with(&text.text)
            }
            None => glob_match_in(&self.lower, &text.chars, Mode::Generous, true),
        }
    }

    /// The strict reading (allow).
    fn matches(&self, text: &str, mode: Mode) -> bool {
        match mode {
            Mode::Generous => self.matches_folded(&Folded::new(text)),
            Mode::Strict | Mode::StrictShell => {
                if !self.climbs && has_parent_component(text) {
                    return false;
                }
                if let Some(prefix) = &self.prefix {
                    return text
                        .strip_prefix(prefix.as_str())
                        .is_some_and(|rest| mode == Mode::Strict || !rest.contains(SHELL_SYNTAX));
                }
                let text: Vec<char> = text.chars().collect();
                glob_match(&self.pattern, &text, mode)
            }
        }
    }
}

/// Whether `text` has a `..` component (`..`, `../x`, `x/..`, `x/../y`, also after spaces).
fn has_parent_component(text: &str) -> bool {
    text.split(|c: char| c == '/' || c.is_whitespace() || c == '=')
        .any(|part| part == "..")
}

fn validate(p: &[char]) -> Result<(), &'static str> {
    let mut i = 0;
    while i < p.len() {
        match p[i] {
            '\\' => {
                if i + 1 >= p.len() {
                    return Err("trailing backslash");
                }
                i += 2;
            }
            '[' => i = class_end(p, i).ok_or("unclosed `[`")?,
            _ => i += 1,
        }
    }
    Ok(())
}

/// Index just past the `]` closing the class that starts at `start`.
fn class_end(p: &[char], start: usize) -> Option<usize> {
    let mut i = start + 1;
    if p.get(i) == Some(&'^') {
        i += 1;
    }
    let mut first = true;
    while i < p.len() {
        match p[i] {
            ']' if !first => return Some(i + 1),
            '\\' => i += 2,
            _ => i += 1,
        }
        first = false;
    }
    None
}

fn class_matches(class: &[char], c: char) -> bool {
    let (negated, body) = match class.first() {
        Some('^') => (true, &class[1..]),
        _ => (false, class),
    };
    let mut i = 0;
    let mut hit = false;
    while i < body.len() {
        let lo = if body[i] == '\\' && i + 1 < body.len() {
            i += 1;
            body[i]
        } else {
            body[i]
        };
        if i + 2 < body.len() && body[i + 1] == '-' {
            let hi = body[i + 2];
            hit |= lo <= c && c <= hi;
            i += 3;
        } else {
            hit |= lo == c;
            i += 1;
        }
    }
    hit != negated
}

/// Whether a wildcard (`*`, `?`, a class) may stand for `c` in `mode`.
fn wild(c: char, mode: Mode) -> bool {
    match mode {
        Mode::Generous => true,
        Mode::Strict => c != '/',
        Mode::StrictShell => c != '/' && !SHELL_SYNTAX.contains(&c),
    }
}

fn glob_match(p: &[char], t: &[char], mode: Mode) -> bool {
    glob_match_in(p, t, mode, false)
}

/// With `open`, whether `t` followed by some text matches: once `t` is used up, whatever the
/// rest of the pattern asks for can follow.
fn glob_match_in(p: &[char], t: &[char], mode: Mode, open: bool) -> bool {
    let (mut pi, mut ti) = (0, 0);
    // Backtrack point for the last `*`: (pattern index after it, text index it consumed to).
    let mut star: Option<(usize, usize)> = None;
    while ti < t.len() {
        let step = match p.get(pi) {
            Some('*') => {
                star = Some((pi + 1, ti));
                pi += 1;
                continue;
            }
            Some('?') if wild(t[ti], mode) => Some(pi + 1),
            Some('[') => match class_end(p, pi) {
                Some(end) if wild(t[ti], mode) && class_matches(&p[pi + 1..end - 1], t[ti]) => {
                    Some(end)
                }
                _ => None,
            },
            Some('\\') if p.get(pi + 1) == Some(&t[ti]) => Some(pi + 2),
            Some(&c) if c != '\\' && c != '?' && c == t[ti] => Some(pi + 1),
            _ => None,
        };
        match step {
            Some(next) => {
                pi = next;
                ti += 1;
            }
            None => match star {
                Some((sp, st)) if wild(t[st], mode) => {
                    star = Some((sp, st + 1));
                    pi = sp;
                    ti = st + 1;
                }
                _ => return false,
            },
        }
    }
    open || p[pi..].iter().all(|&c| c == '*')
}

#[cfg(test)]
#[path = "permissions_tests.rs"]
mod tests;
