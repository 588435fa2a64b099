//! Agent `commands:`: named prompts run as `/NAME [ARGS…]`, in docker-agent's formats (a map
//! or a list of one-entry maps; each value a string, or `{description, instruction}`).
//!
//! docker-agent evaluates `${…}` in a command as a JavaScript template literal. Tether has no
//! JavaScript engine; it evaluates the expressions agent files use, parsed here at load so a
//! command it cannot run is an error at its file:line:col, never a silently wrong prompt:
//!
//! - `${env.NAME}` and `${env.NAME || 'default'}` (an unset or empty variable takes the
//!   default), and a bare `${NAME}` (docker-agent's older placeholder for the variable),
//! - `${args}` (the arguments joined with `,`), `${args[N]}`, `${args.join('SEP')}`,
//!   `${args.length}`,
//! - `${TOOL({key: 'value', n: 1, flag: true})}`: the agent's tool, called through the
//!   approval chain, its output in place;
//!
//! and docker-agent's older `!TOOL(key=value …)` form.

use serde_json::{Map, Value};

/// One command.
#[derive(Debug, Clone, PartialEq)]
pub struct Command {
    pub name: String,
    /// Shown in listings; empty for the string form.
    pub description: String,
    pub instruction: String,
    /// `instruction`, split into text and expressions.
    pub parts: Vec<Part>,
    /// The agent the session switches to before the instruction (if any) is sent; with no
    /// instruction, what is typed after the command is the prompt.
    pub agent: Option<String>,
}

/// A piece of a command's instruction.
#[derive(Debug, Clone, PartialEq)]
pub enum Part {
    Text(String),
    /// `${env.NAME}` / `${env.NAME || 'default'}`.
    Env {
        name: String,
        default: String,
    },
    /// `${args}`: every argument, joined with `,` (JavaScript's array to string).
    Args,
    /// `${args[N]}`.
    Arg(usize),
    /// `${args.join('SEP')}`.
    ArgsJoined(String),
    /// `${args.length}`.
    ArgCount,
    /// `${TOOL({…})}` or `!TOOL(k=v …)`.
    Tool {
        name: String,
        args: Map<String, Value>,
    },
}

impl Command {
    /// Whether the instruction reads the arguments (else they are appended after it).
    pub fn uses_args(&self) -> bool {
        self.parts.iter().any(|p| {
            matches!(
                p,
                Part::Args | Part::Arg(_) | Part::ArgsJoined(_) | Part::ArgCount
            )
        })
    }
}

/// Splits `text` into parts; `Err` names the first expression Tether cannot evaluate.
pub fn parse(text: &str) -> Result<Vec<Part>, String> {
    let mut parts = Vec::new();
    let mut buf = String::new();
    let mut rest = text;
    while !rest.is_empty() {
        if let Some(after) = rest.strip_prefix("${") {
            let end = expression_end(after)
                .ok_or_else(|| format!("unclosed `${{` in `{}`", clip(rest)))?;
            let expr = after[..end].trim();
            flush(&mut buf, &mut parts);
            parts.push(expression(expr)?);
            rest = &after[end + 1..];
        } else if let Some((part, used)) = bang_tool(rest) {
            flush(&mut buf, &mut parts);
            parts.push(part);
            rest = &rest[used..];
        } else {
            let ch = rest.chars().next().unwrap_or_default();
            buf.push(ch);
            rest = &rest[ch.len_utf8()..];
        }
    }
    flush(&mut buf, &mut parts);
    Ok(parts)
}

fn flush(buf: &mut String, parts: &mut Vec<Part>) {
    if !buf.is_empty() {
        parts.push(Part::Text(std::mem::take(buf)));
    }
}

fn clip(s: &str) -> String {
    s.chars().take(40).collect()
}

/// The index of the `}` closing an expression, skipping quoted strings and nested braces.
fn expression_end(s: &str) -> Option<usize> {
    let mut depth = 0usize;
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '\'' | '"' | '`' => quote = Some(c),
            '{' => depth += 1,
            '}' if depth == 0 => return Some(i),
            '}' => depth -= 1,
            _ => {}
        }
    }
    None
}

fn is_ident(s: &str) -> bool {
    let mut chars = s.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$' || c == '-')
}

/// A quoted JavaScript string literal, unquoted.
fn string_literal(s: &str) -> Option<String> {
    let s = s.trim();
    let q = s.chars().next()?;
    if !matches!(q, '\'' | '"' | '`') || s.len() < 2 || !s.ends_with(q) {
        return None;
    }
    let inner = &s[1..s.len() - 1];
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.next()? {
                'n' => out.push('\n'),
                't' => out.push('\t'),
                other => out.push(other),
            }
        } else if c == q {
            return None;
        } else {
            out.push(c);
        }
    }
    Some(out)
}

const SUPPORTED: &str = "Tether evaluates `env.NAME`, `env.NAME || 'default'`, `args`, `args[N]`, `args.join('SEP')`, `args.length` and `TOOL({key: value, …})`";

fn expression(expr: &str) -> Result<Part, String> {
    let unsupported = || format!("the expression `${{{expr}}}` is not supported yet ({SUPPORTED})");
    if let Some(rest) = expr.strip_prefix("env.") {
        let (name, default) = match rest.split_once("||") {
            Some((n, d)) => (n.trim(), string_literal(d).ok_or_else(unsupported)?),
            None => (rest.trim(), String::new()),
        };
        if !is_ident(name) {
            return Err(unsupported());
        }
        return Ok(Part::Env {
            name: name.to_owned(),
            default,
        });
    }
    if expr == "args" {
        return Ok(Part::Args);
    }
    // A bare `${NAME}` is the environment variable, as docker-agent's older placeholders were.
    if is_ident(expr) && !expr.contains('-') {
        return Ok(Part::Env {
            name: expr.to_owned(),
            default: String::new(),
        });
    }
    if expr == "args.length" {
        return Ok(Part::ArgCount);
    }
    if let Some(i) = expr.strip_prefix("args[").and_then(|r| r.strip_suffix(']')) {
        return i.trim().parse().map(Part::Arg).map_err(|_| unsupported());
    }
    if let Some(sep) = expr
        .strip_prefix("args.join(")
        .and_then(|r| r.strip_suffix(')'))
    {
        let sep = if sep.trim().is_empty() {
            ",".to_owned()
        } else {
            string_literal(sep).ok_or_else(unsupported)?
        };
        return Ok(Part::ArgsJoined(sep));
    }
    if let Some((name, rest)) = expr.split_once('(')
        && is_ident(name.trim())
        && let Some(body) = rest.trim_end().strip_suffix(')')
    {
        let body = body.trim();
        let args = if body.is_empty() {
            Map::new()
        } else {
            object_literal(body).ok_or_else(unsupported)?
        };
        return Ok(Part::Tool {
            name: name.trim().to_owned(),
            args,
        });
    }
    Err(unsupported())
}

/// `{key: 'v', "k2": 2, flag: true}` as JSON.
fn object_literal(s: &str) -> Option<Map<String, Value>> {
    let inner = s.strip_prefix('{')?.strip_suffix('}')?;
    let mut out = Map::new();
    for entry in split_top(inner, ',') {
        let entry = entry.trim();
        if entry.is_empty() {
            continue;
        }
        let (key, value) = split_top(entry, ':')
            .into_iter()
            .collect::<Vec<_>>()
            .split_first()
            .map(|(k, v)| ((*k).to_owned(), v.join(":")))?;
        let key = string_literal(&key).unwrap_or_else(|| key.trim().to_owned());
        if key.is_empty() {
            return None;
        }
        out.insert(key, literal(value.trim())?);
    }
    Some(out)
}

fn literal(v: &str) -> Option<Value> {
    if let Some(s) = string_literal(v) {
        return Some(Value::String(s));
    }
    match v {
        "true" => return Some(Value::Bool(true)),
        "false" => return Some(Value::Bool(false)),
        "null" => return Some(Value::Null),
        _ => {}
    }
    if let Ok(i) = v.parse::<i64>() {
        return Some(Value::from(i));
    }
    v.parse::<f64>()
        .ok()
        .and_then(serde_json::Number::from_f64)
        .map(Value::Number)
}

/// Splits on `sep` outside quotes, brackets and braces.
fn split_top(s: &str, sep: char) -> Vec<&str> {
    let mut out = Vec::new();
    let (mut depth, mut start) = (0i32, 0);
    let mut quote: Option<char> = None;
    let mut escaped = false;
    for (i, c) in s.char_indices() {
        if let Some(q) = quote {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '\'' | '"' | '`' => quote = Some(c),
            '{' | '[' | '(' => depth += 1,
            '}' | ']' | ')' => depth -= 1,
            c if c == sep && depth == 0 => {
                out.push(&s[start..i]);
                start = i + c.len_utf8();
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out
}

/// `!tool_name(key=value …)` at the start of `s`: the part and the bytes it used.
fn bang_tool(s: &str) -> Option<(Part, usize)> {
    let rest = s.strip_prefix('!')?;
    let name_len = rest
        .char_indices()
        .find(|(_, c)| !(c.is_ascii_alphanumeric() || *c == '_'))
        .map_or(rest.len(), |(i, _)| i);
    if name_len == 0 || !rest[name_len..].starts_with('(') {
        return None;
    }
    let body_start = name_len + 1;
    let mut quote: Option<char> = None;
    let mut depth = 1;
    let mut end = None;
    for (i, c) in rest[body_start..].char_indices() {
        if let Some(q) = quote {
            if c == q {
                quote = None;
            }
            continue;
        }
        match c {
            '\'' | '"' => quote = Some(c),
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    end = Some(body_start + i);
                    break;
                }
            }
            _ => {}
        }
    }
    let end = end?;
    let mut args = Map::new();
    for pair in split_words(&rest[body_start..end]) {
        let (k, v) = pair.split_once('=')?;
        let value = literal(v).unwrap_or_else(|| Value::String(v.to_owned()));
        args.insert(k.trim().to_owned(), value);
    }
    Some((
        Part::Tool {
            name: rest[..name_len].to_owned(),
            args,
        },
        1 + end + 1,
    ))
}

/// Words separated by spaces, quotes removed (`cmd="ls -l" n=2`).
fn split_words(s: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    let mut quote: Option<char> = None;
    for c in s.chars() {
        match (quote, c) {
            (None, '"' | '\'') => quote = Some(c),
            (Some(q), c) if c == q => quote = None,
            (None, ' ') => {
                if !cur.is_empty() {
                    out.push(std::mem::take(&mut cur));
                }
            }
            _ => cur.push(c),
        }
    }
    if !cur.is_empty() {
        out.push(cur);
    }
    out
}

/// `/NAME rest` split into the command name and its arguments (quotes group words).
pub fn split_invocation(input: &str) -> Option<(&str, Vec<String>)> {
    let rest = input.trim_start().strip_prefix('/')?;
    let (name, args) = rest.split_once(char::is_whitespace).unwrap_or((rest, ""));
    (!name.is_empty()).then(|| (name, split_words(args.trim())))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn the_supported_expressions_parse() {
        assert_eq!(
            parse("${SERVICE}").unwrap(),
            vec![Part::Env {
                name: "SERVICE".into(),
                default: String::new()
            }]
        );
        let parts = parse(
            "Hi ${env.USER || 'you'}: ${args[0]} (${args.length}) ${args.join(' + ')} ${shell({cmd: \"echo hi\", timeout: 5})} !read_file(path=\"a b.txt\")",
        )
        .unwrap();
        assert_eq!(
            parts,
            vec![
                Part::Text("Hi ".into()),
                Part::Env {
                    name: "USER".into(),
                    default: "you".into()
                },
                Part::Text(": ".into()),
                Part::Arg(0),
                Part::Text(" (".into()),
                Part::ArgCount,
                Part::Text(") ".into()),
                Part::ArgsJoined(" + ".into()),
                Part::Text(" ".into()),
                Part::Tool {
                    name: "shell".into(),
                    args: json!({"cmd": "echo hi", "timeout": 5})
                        .as_object()
                        .unwrap()
                        .clone()
                },
                Part::Text(" ".into()),
                Part::Tool {
                    name: "read_file".into(),
                    args: json!({"path": "a b.txt"}).as_object().unwrap().clone()
                },
            ]
        );
    }

    #[test]
    fn other_javascript_is_named_as_not_supported() {
        for bad in [
            "${Math.max(1, 2)}",
            "${env.A ? 'x' : 'y'}",
            "${args.map(a => a)}",
            "${x",
        ] {
            let e = parse(bad).unwrap_err();
            assert!(
                e.contains("not supported yet") || e.contains("unclosed"),
                "{bad}: {e}"
            );
        }
        assert_eq!(parse("plain text, no $ expressions!").unwrap().len(), 1);
    }

    #[test]
    fn invocations_split_like_a_shell() {
        assert_eq!(
            split_invocation("/fix \"two words\" b"),
            Some(("fix", vec!["two words".into(), "b".into()]))
        );
        assert_eq!(split_invocation("/df"), Some(("df", vec![])));
        assert_eq!(split_invocation("no slash"), None);
    }
}
