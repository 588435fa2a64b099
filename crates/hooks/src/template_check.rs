//! A load-time check of model-hook prompts for what Go's template parser rejects and `gotmpl`
//! accepts: unbalanced `if`/`range`/`with`/`define`/`block` … `end`, a stray `else` or `end`,
//! `break`/`continue` outside `range`, unknown functions, undefined variables, `template`
//! calls to names never defined. It also rejects `.Field` references to fields the Input does
//! not have where dot is the Input (Go fails those at the first render, which on
//! `pre_tool_use` would deny every call).
//!
//! It is a small lexer over the actions, not a parser: expressions are left to `gotmpl`, which
//! parses the template right after this check passes.

use crate::template::{EXTRA_FUNCS, INPUT_FIELDS};

/// A problem at a 1-based line and column (in characters) of the template text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TemplateIssue {
    pub(crate) line: usize,
    pub(crate) column: usize,
    pub(crate) message: String,
}

/// Go's builtin template functions.
const GO_FUNCS: [&str; 19] = [
    "and", "call", "html", "index", "slice", "js", "len", "not", "or", "print", "printf",
    "println", "urlquery", "eq", "ge", "gt", "le", "lt", "ne",
];

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Construct {
    If,
    Range,
    With,
    Define,
    Block,
}

impl Construct {
    const fn name(self) -> &'static str {
        match self {
            Self::If => "if",
            Self::Range => "range",
            Self::With => "with",
            Self::Define => "define",
            Self::Block => "block",
        }
    }
}

#[derive(Debug)]
struct Open {
    block: Construct,
    line: usize,
    column: usize,
    /// A plain `{{else}}` was seen: only `{{end}}` may follow.
    else_seen: bool,
    /// Variables visible before this block opened.
    vars_mark: usize,
}

#[derive(Debug, Clone, PartialEq)]
enum Tok {
    Ident(String),
    /// `.A.B` (`chained` when it follows `)` and so applies to an expression, not to dot).
    Field {
        first: String,
        chained: bool,
    },
    /// `$x` (`$` for the root); `field` is the first field after it, if any.
    Var {
        name: String,
        field: Option<String>,
    },
    Str(String),
    Punct(&'static str),
    Other,
}

#[derive(Debug)]
struct Token {
    tok: Tok,
    offset: usize,
}

/// Positions of byte offsets, computed once.
struct Positions<'a> {
    src: &'a str,
}

impl Positions<'_> {
    fn at(&self, offset: usize) -> (usize, usize) {
        let before = &self.src[..offset.min(self.src.len())];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let column = before[line_start..].chars().count() + 1;
        (line, column)
    }
}

/// Checks `src`; the first problem found, in source order.
pub(crate) fn check(src: &str) -> Result<(), TemplateIssue> {
    let pos = Positions { src };
    let issue = |offset: usize, message: String| {
        let (line, column) = pos.at(offset);
        TemplateIssue {
            line,
            column,
            message,
        }
    };
    let mut stack: Vec<Open> = Vec::new();
    let mut vars: Vec<String> = vec!["$".to_owned()];
    let mut defined: Vec<String> = Vec::new();
    let mut called: Vec<(String, usize)> = Vec::new();
    let mut at = 0;
    while let Some(found) = src[at..].find("{{") {
        let start = at + found;
        let (tokens, end) = lex_action(src, start).map_err(|(o, m)| issue(o, m))?;
        at = end;
        let Some(first) = tokens.first() else {
            continue;
        };
        let mut rest = &tokens[1..];
        // Dot is the Input outside `with`, `range` and definitions (an opening action's own
        // pipeline still sees the outer dot).
        let dot_is_input = stack.iter().all(|o| o.block == Construct::If);
        let keyword = match &first.tok {
            Tok::Ident(w) => w.as_str(),
            _ => "",
        };
        match keyword {
            "if" | "range" | "with" | "define" | "block" => {
                let block = match keyword {
                    "if" => Construct::If,
                    "range" => Construct::Range,
                    "with" => Construct::With,
                    "define" => Construct::Define,
                    _ => Construct::Block,
                };
                if block == Construct::Define && !stack.is_empty() {
                    return Err(issue(
                        first.offset,
                        "{{define}} is only allowed at the top level of a template".to_owned(),
                    ));
                }
                if matches!(block, Construct::Define | Construct::Block) {
                    match rest.first() {
                        Some(Token {
                            tok: Tok::Str(name),
                            ..
                        }) => defined.push(name.clone()),
                        _ => {
                            return Err(issue(
                                first.offset,
                                format!("{{{{{keyword}}}}} needs a quoted template name"),
                            ));
                        }
                    }
                    rest = &rest[1..];
                }
                if matches!(block, Construct::If | Construct::Range | Construct::With)
                    && rest.is_empty()
                {
                    return Err(issue(first.offset, format!("missing value for {keyword}")));
                }
                let (line, column) = pos.at(start);
                stack.push(Open {
                    block,
                    line,
                    column,
                    else_seen: false,
                    vars_mark: vars.len(),
                });
                if block == Construct::Define {
                    // A definition sees only `$`.
                    vars.push("$".to_owned());
                }
            }
            "else" => {
                let Some(open) = stack.last_mut() else {
                    return Err(issue(first.offset, "unexpected {{else}}".to_owned()));
                };
                if matches!(open.block, Construct::Define | Construct::Block) || open.else_seen {
                    return Err(issue(
                        first.offset,
                        format!("unexpected {{{{else}}}} in {{{{{}}}}}", open.block.name()),
                    ));
                }
                match rest.first().map(|t| &t.tok) {
                    Some(Tok::Ident(w)) if w == "if" || w == "with" => {
                        if w.as_str() != open.block.name() {
                            return Err(issue(
                                first.offset,
                                format!("{{{{else {w}}}}} is only allowed inside {{{{{w}}}}}"),
                            ));
                        }
                        rest = &rest[1..];
                    }
                    None => open.else_seen = true,
                    Some(_) => {
                        return Err(issue(
                            first.offset,
                            "unexpected words after else".to_owned(),
                        ));
                    }
                }
            }
            "end" => {
                let Some(open) = stack.pop() else {
                    return Err(issue(first.offset, "unexpected {{end}}".to_owned()));
                };
                vars.truncate(open.vars_mark);
                rest = &[];
            }
            "break" | "continue" => {
                let in_range = stack
                    .iter()
                    .rev()
                    .take_while(|o| o.block != Construct::Define && o.block != Construct::Block)
                    .any(|o| o.block == Construct::Range);
                if !in_range {
                    return Err(issue(
                        first.offset,
                        format!("{{{{{keyword}}}}} outside {{{{range}}}}"),
                    ));
                }
                rest = &[];
            }
            "template" => match rest.first() {
                Some(Token {
                    tok: Tok::Str(name),
                    offset,
                }) => {
                    called.push((name.clone(), *offset));
                    rest = &rest[1..];
                }
                _ => {
                    return Err(issue(
                        first.offset,
                        "{{template}} needs a quoted template name".to_owned(),
                    ));
                }
            },
            _ => rest = &tokens,
        }
        check_pipeline(rest, &mut vars, dot_is_input).map_err(|(o, m)| issue(o, m))?;
    }
    if let Some(open) = stack.last() {
        return Err(TemplateIssue {
            line: open.line,
            column: open.column,
            message: format!(
                "unclosed {{{{{}}}}}: add a matching {{{{end}}}}",
                open.block.name()
            ),
        });
    }
    if let Some((name, offset)) = called.iter().find(|(n, _)| !defined.contains(n)) {
        return Err(issue(
            *offset,
            format!("template {name:?} is not defined (define it with {{{{define {name:?}}}}})"),
        ));
    }
    Ok(())
}

/// Checks one action's pipeline: declared variables, function names, Input fields.
fn check_pipeline(
    tokens: &[Token],
    vars: &mut Vec<String>,
    dot_is_input: bool,
) -> Result<(), (usize, String)> {
    // Declarations (`$x :=`, `$i, $v :=`) come first and are visible to the rest.
    let decl_end = tokens
        .iter()
        .position(|t| t.tok == Tok::Punct(":=") || t.tok == Tok::Punct("="));
    let mut body = tokens;
    if let Some(end) = decl_end {
        let declares = tokens[end].tok == Tok::Punct(":=");
        for t in &tokens[..end] {
            if let Tok::Var { name, .. } = &t.tok {
                if declares {
                    vars.push(name.clone());
                } else if !vars.contains(name) {
                    return Err((t.offset, format!("undefined variable {name:?}")));
                }
            }
        }
        body = &tokens[end + 1..];
    }
    for t in body {
        match &t.tok {
            Tok::Ident(name) => {
                if matches!(name.as_str(), "true" | "false" | "nil") {
                    continue;
                }
                if !GO_FUNCS.contains(&name.as_str()) && !EXTRA_FUNCS.contains(&name.as_str()) {
                    return Err((
                        t.offset,
                        format!(
                            "function {name:?} not defined (functions: {}, {})",
                            EXTRA_FUNCS.join(", "),
                            GO_FUNCS.join(", ")
                        ),
                    ));
                }
            }
            Tok::Var { name, field } => {
                if !vars.contains(name) {
                    return Err((t.offset, format!("undefined variable {name:?}")));
                }
                if name == "$"
                    && let Some(f) = field
                {
                    check_field(t.offset, f)?;
                }
            }
            Tok::Field {
                first,
                chained: false,
            } if dot_is_input => check_field(t.offset, first)?,
            Tok::Field { .. } | Tok::Str(_) | Tok::Punct(_) | Tok::Other => {}
        }
    }
    Ok(())
}

fn check_field(offset: usize, field: &str) -> Result<(), (usize, String)> {
    if INPUT_FIELDS.contains(&field) {
        return Ok(());
    }
    Err((
        offset,
        format!(
            "the hook Input has no field {field:?} (fields: {})",
            INPUT_FIELDS.join(", ")
        ),
    ))
}

fn is_ident_char(c: char) -> bool {
    c.is_alphanumeric() || c == '_'
}

/// Lexes the action starting at `start` (`{{`); returns its tokens and the offset after `}}`.
/// Comments yield no tokens.
fn lex_action(src: &str, start: usize) -> Result<(Vec<Token>, usize), (usize, String)> {
    let bytes = src.as_bytes();
    let mut i = start + 2;
    // `{{- ` trims the text before; the dash needs a space after it.
    if src[i..].starts_with("- ") || src[i..].starts_with("-\t") || src[i..].starts_with("-\n") {
        i += 2;
    }
    let inner = src[i..].trim_start();
    if inner.starts_with("/*") {
        let body = i + (src[i..].len() - inner.len());
        let Some(close) = src[body..].find("*/") else {
            return Err((start, "unclosed comment".to_owned()));
        };
        let after = body + close + 2;
        let tail = &src[after..];
        let tail_trimmed = tail.trim_start_matches([' ', '\t', '\n', '\r']);
        let tail_trimmed = tail_trimmed.strip_prefix('-').map_or(tail_trimmed, |t| t);
        if !tail_trimmed.starts_with("}}") {
            return Err((start, "comment ends before closing delimiter".to_owned()));
        }
        return Ok((Vec::new(), src.len() - tail_trimmed.len() + 2));
    }
    let mut tokens = Vec::new();
    let mut prev_close_paren = false;
    while i < src.len() {
        let rest = &src[i..];
        if rest.starts_with("}}") {
            return Ok((tokens, i + 2));
        }
        if (rest.starts_with(" -}}") || rest.starts_with("\t-}}") || rest.starts_with("\n-}}"))
            && !tokens.is_empty()
        {
            return Ok((tokens, i + 4));
        }
        let Some(c) = rest.chars().next() else { break };
        let offset = i;
        let after_paren = prev_close_paren;
        prev_close_paren = false;
        match c {
            ' ' | '\t' | '\r' | '\n' => i += 1,
            '"' => {
                let mut j = i + 1;
                let mut value = String::new();
                loop {
                    match bytes.get(j) {
                        None | Some(b'\n') => {
                            return Err((offset, "unterminated quoted string".to_owned()));
                        }
                        // Go's escapes are all ASCII; a backslash before any other character
                        // fails its unquoting (and stepping two bytes would split it here).
                        Some(b'\\') => match bytes.get(j + 1) {
                            Some(b) if b.is_ascii() => j += 2,
                            Some(_) => {
                                return Err((j, "invalid escape in quoted string".to_owned()));
                            }
                            None => {
                                return Err((offset, "unterminated quoted string".to_owned()));
                            }
                        },
                        Some(b'"') => break,
                        Some(_) => {
                            let ch = src[j..].chars().next().unwrap_or('\0');
                            value.push(ch);
                            j += ch.len_utf8();
                        }
                    }
                }
                // Escapes are not decoded: names only need to match plain text.
                tokens.push(Token {
                    tok: Tok::Str(value),
                    offset,
                });
                i = j + 1;
            }
            '`' => {
                let Some(close) = src[i + 1..].find('`') else {
                    return Err((offset, "unterminated raw quoted string".to_owned()));
                };
                tokens.push(Token {
                    tok: Tok::Str(src[i + 1..i + 1 + close].to_owned()),
                    offset,
                });
                i += close + 2;
            }
            '\'' => {
                let mut j = i + 1;
                while let Some(&b) = bytes.get(j) {
                    match b {
                        b'\\' => j += 2,
                        b'\'' => break,
                        b'\n' => {
                            return Err((offset, "unterminated character constant".to_owned()));
                        }
                        _ => j += 1,
                    }
                }
                if j >= src.len() {
                    return Err((offset, "unterminated character constant".to_owned()));
                }
                tokens.push(Token {
                    tok: Tok::Other,
                    offset,
                });
                i = j + 1;
            }
            '.' => {
                let name: String = rest[1..]
                    .chars()
                    .take_while(|c| is_ident_char(*c))
                    .collect();
                let mut j = i + 1 + name.len();
                while src[j..].starts_with('.') {
                    let more = src[j + 1..]
                        .chars()
                        .take_while(|c| is_ident_char(*c))
                        .count();
                    if more == 0 {
                        break;
                    }
                    j += 1 + src[j + 1..]
                        .chars()
                        .take(more)
                        .map(char::len_utf8)
                        .sum::<usize>();
                }
                let tok = if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
                    Tok::Other
                } else {
                    Tok::Field {
                        first: name,
                        chained: after_paren,
                    }
                };
                tokens.push(Token { tok, offset });
                i = j.max(i + 1);
            }
            '$' => {
                let name: String = rest[1..]
                    .chars()
                    .take_while(|c| is_ident_char(*c))
                    .collect();
                let mut j = i + 1 + name.len();
                let field = if src[j..].starts_with('.') {
                    let f: String = src[j + 1..]
                        .chars()
                        .take_while(|c| is_ident_char(*c))
                        .collect();
                    j += 1;
                    while j < src.len()
                        && (is_ident_char(src[j..].chars().next().unwrap_or(' '))
                            || src[j..].starts_with('.'))
                    {
                        j += src[j..].chars().next().map_or(1, char::len_utf8);
                    }
                    (!f.is_empty()).then_some(f)
                } else {
                    None
                };
                tokens.push(Token {
                    tok: Tok::Var {
                        name: format!("${name}"),
                        field,
                    },
                    offset,
                });
                i = j;
            }
            '(' | '|' | ',' => {
                let p = match c {
                    '(' => "(",
                    '|' => "|",
                    _ => ",",
                };
                tokens.push(Token {
                    tok: Tok::Punct(p),
                    offset,
                });
                i += 1;
            }
            ')' => {
                tokens.push(Token {
                    tok: Tok::Punct(")"),
                    offset,
                });
                prev_close_paren = true;
                i += 1;
            }
            ':' if rest.starts_with(":=") => {
                tokens.push(Token {
                    tok: Tok::Punct(":="),
                    offset,
                });
                i += 2;
            }
            '=' => {
                tokens.push(Token {
                    tok: Tok::Punct("="),
                    offset,
                });
                i += 1;
            }
            c if c.is_alphabetic() || c == '_' => {
                let word: String = rest.chars().take_while(|c| is_ident_char(*c)).collect();
                i += word.len();
                tokens.push(Token {
                    tok: Tok::Ident(word),
                    offset,
                });
            }
            c => {
                // Numbers (`-3`, `0x1F`, `1e3`) and anything else gotmpl will judge.
                let len: usize = rest
                    .chars()
                    .take_while(|ch| {
                        !matches!(ch, ' ' | '\t' | '\r' | '\n' | '(' | ')' | '|' | ',' | '}')
                    })
                    .map(char::len_utf8)
                    .sum();
                i += len.max(c.len_utf8());
                tokens.push(Token {
                    tok: Tok::Other,
                    offset,
                });
            }
        }
    }
    Err((start, "unclosed action".to_owned()))
}
