//! Tool permission patterns (docs/design.md, Permissions): `toolglob` or `toolglob:key=valueglob[:…]`.
//!
//! Globs follow Go's `filepath.Match` (`*` and `?` do not cross `/`, `[…]` classes, `\`
//! escapes), except that a trailing `*` after a prefix with no other glob characters is a plain
//! prefix test, so `sudo*` matches `sudo rm -rf /`. Matching is case-insensitive.

use serde_json::{Map, Value};

/// `allow`, `ask` and `deny` lists, checked deny first, then allow, then ask.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Permissions {
    pub allow: Vec<PermissionPattern>,
    pub ask: Vec<PermissionPattern>,
    pub deny: Vec<PermissionPattern>,
}

/// What a permission checker decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PermissionVerdict {
    Allow,
    Ask,
    Deny,
}

impl Permissions {
    pub fn is_empty(&self) -> bool {
        self.allow.is_empty() && self.ask.is_empty() && self.deny.is_empty()
    }

    /// Deny patterns first, then allow, then ask; `None` when nothing matches.
    pub fn check(&self, tool: &str, args: &Map<String, Value>) -> Option<PermissionVerdict> {
        self.check_names(&[tool], args)
    }

    /// [`Self::check`] for a tool known by several names (an MCP tool's model-visible name
    /// and its `mcp:SERVER:TOOL` name): a rule matching any of them applies.
    pub fn check_names(
        &self,
        tools: &[&str],
        args: &Map<String, Value>,
    ) -> Option<PermissionVerdict> {
        let any = |list: &[PermissionPattern]| {
            list.iter()
                .any(|p| tools.iter().any(|tool| p.matches(tool, args)))
        };
        if any(&self.deny) {
            Some(PermissionVerdict::Deny)
        } else if any(&self.allow) {
            Some(PermissionVerdict::Allow)
        } else if any(&self.ask) {
            Some(PermissionVerdict::Ask)
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
                Some((key, value)) => {
                    args.push((key.to_lowercase(), Glob::parse(value)?));
                }
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

    /// Tool glob matches and every argument condition holds (a missing argument never does).
    pub fn matches(&self, tool: &str, args: &Map<String, Value>) -> bool {
        self.tool.matches(tool)
            && self.args.iter().all(|(key, glob)| {
                args.iter()
                    .find(|(k, _)| k.to_lowercase() == *key)
                    .is_some_and(|(_, v)| glob.matches(&stringify(v)))
            })
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

/// A compiled, lower-cased glob.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Glob {
    pattern: Vec<char>,
    /// `Some(prefix)` when the pattern is `prefix*` with no other glob characters.
    prefix: Option<String>,
}

impl Glob {
    fn parse(source: &str) -> Result<Self, String> {
        let lower = source.to_lowercase();
        let pattern: Vec<char> = lower.chars().collect();
        validate(&pattern).map_err(|e| format!("invalid glob `{source}`: {e}"))?;
        let prefix = lower
            .strip_suffix('*')
            .filter(|p| !p.contains(['*', '?', '[', '\\']))
            .map(str::to_owned);
        Ok(Self { pattern, prefix })
    }

    fn matches(&self, text: &str) -> bool {
        let lower = text.to_lowercase();
        if let Some(prefix) = &self.prefix {
            return lower.starts_with(prefix.as_str());
        }
        let text: Vec<char> = lower.chars().collect();
        glob_match(&self.pattern, &text)
    }
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

fn glob_match(p: &[char], t: &[char]) -> bool {
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
            Some('?') if t[ti] != '/' => Some(pi + 1),
            Some('[') => match class_end(p, pi) {
                Some(end) if t[ti] != '/' && class_matches(&p[pi + 1..end - 1], t[ti]) => Some(end),
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
                // `*` never crosses `/`.
                Some((sp, st)) if t[st] != '/' => {
                    star = Some((sp, st + 1));
                    pi = sp;
                    ti = st + 1;
                }
                _ => return false,
            },
        }
    }
    p[pi..].iter().all(|&c| c == '*')
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn args(v: Value) -> Map<String, Value> {
        v.as_object().cloned().unwrap_or_default()
    }

    #[test]
    fn pattern_table() {
        let cases: &[(&str, &str, Value, bool)] = &[
            ("read_*", "read_file", json!({}), true),
            ("read_*", "write_file", json!({}), false),
            ("READ_FILE", "read_file", json!({}), true),
            (
                "shell:cmd=ls*",
                "shell",
                json!({"cmd": "ls -la /tmp"}),
                true,
            ),
            ("shell:cmd=ls*", "shell", json!({"cmd": "rm -rf /"}), false),
            ("shell:cmd=ls*", "shell", json!({}), false),
            (
                "shell:cmd=ls*:cwd=.",
                "shell",
                json!({"cmd": "ls", "cwd": "."}),
                true,
            ),
            (
                "shell:cmd=ls*:cwd=.",
                "shell",
                json!({"cmd": "ls", "cwd": "/"}),
                false,
            ),
            (
                "shell:cmd=*sudo*",
                "shell",
                json!({"cmd": "echo x; sudo rm"}),
                true,
            ),
            ("sudo*", "sudo rm -rf /", json!({}), true),
            (
                "edit_file:path=/etc/*",
                "edit_file",
                json!({"path": "/etc/passwd"}),
                true,
            ),
            (
                "edit_file:path=/etc/*",
                "edit_file",
                json!({"path": "/etc/ssh/config"}),
                true,
            ),
            (
                "edit_file:path=/etc/*.conf",
                "edit_file",
                json!({"path": "/etc/a.conf"}),
                true,
            ),
            (
                "edit_file:path=/etc/*.conf",
                "edit_file",
                json!({"path": "/etc/ssh/a.conf"}),
                false,
            ),
            ("mcp:github:*", "mcp:github:create_issue", json!({}), true),
            ("mcp:github:*", "mcp:gitlab:create_issue", json!({}), false),
            ("*", "anything", json!({}), true),
            ("shell:timeout=30", "shell", json!({"timeout": 30}), true),
            ("shell:timeout=3?", "shell", json!({"timeout": 31.5}), false),
            ("[rw]ead_file", "read_file", json!({}), true),
            ("[^r]ead_file", "read_file", json!({}), false),
            ("?ead_file", "read_file", json!({}), true),
            (
                "shell:cmd=git *:ignored",
                "shell",
                json!({"cmd": "git status"}),
                true,
            ),
        ];
        for (pattern, tool, a, want) in cases {
            let p = PermissionPattern::parse(pattern).unwrap();
            assert_eq!(
                p.matches(tool, &args(a.clone())),
                *want,
                "{pattern} vs {tool} {a}"
            );
        }
    }

    #[test]
    fn invalid_globs_are_errors() {
        assert_eq!(
            PermissionPattern::parse("read_[abc").unwrap_err(),
            "invalid glob `read_[abc`: unclosed `[`"
        );
        assert_eq!(
            PermissionPattern::parse("  ").unwrap_err(),
            "empty permission pattern"
        );
    }

    #[test]
    fn deny_beats_allow_beats_ask() {
        let p = |s: &str| PermissionPattern::parse(s).unwrap();
        let perms = Permissions {
            allow: vec![p("shell")],
            ask: vec![p("*")],
            deny: vec![p("shell:cmd=*sudo*")],
        };
        let a = |cmd: &str| args(json!({ "cmd": cmd }));
        assert_eq!(
            perms.check("shell", &a("sudo ls")),
            Some(PermissionVerdict::Deny)
        );
        assert_eq!(
            perms.check("shell", &a("ls")),
            Some(PermissionVerdict::Allow)
        );
        assert_eq!(
            perms.check("read_file", &a("")),
            Some(PermissionVerdict::Ask)
        );
        assert_eq!(Permissions::default().check("x", &a("")), None);
    }
}
