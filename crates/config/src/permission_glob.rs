//! The globs of permission patterns, read generously (deny and ask) or strictly (allow); see
//! `permissions` for what each reading promises.

/// A text lower-cased, as a string (for prefix tests) and as characters (for globs).
pub(crate) struct Folded {
    pub(crate) text: String,
    pub(crate) chars: Vec<char>,
}

impl Folded {
    pub(crate) fn new(text: &str) -> Self {
        let text = text.to_lowercase();
        Self {
            chars: text.chars().collect(),
            text,
        }
    }
}

/// Characters a wildcard of a shell allow pattern never stands for.
pub(crate) const SHELL_SYNTAX: &[char] = &['$', '`', ';', '&', '|', '<', '>', '(', ')', '\n', '\r'];

/// How a glob is matched (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Mode {
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
pub(crate) struct Glob {
    pattern: Vec<char>,
    lower: Vec<char>,
    /// `Some(prefix)` when the pattern is `prefix*` with no other glob characters.
    prefix: Option<String>,
    lower_prefix: Option<String>,
    /// The pattern spells a `..` path component itself.
    climbs: bool,
}

impl Glob {
    pub(crate) fn parse(source: &str) -> Result<Self, String> {
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
    pub(crate) fn is_literal(&self, text: &str) -> bool {
        !self
            .pattern
            .iter()
            .any(|c| matches!(c, '*' | '?' | '[' | '\\'))
            && self.pattern.iter().copied().eq(text.chars())
    }

    /// The generous reading (deny and ask) of a lower-cased text.
    pub(crate) fn matches_folded(&self, text: &Folded) -> bool {
        match &self.lower_prefix {
            Some(prefix) => text.text.starts_with(prefix.as_str()),
            None => glob_match(&self.lower, &text.chars, Mode::Generous),
        }
    }

    /// The generous reading of a lower-cased text that more text may follow: whether some
    /// continuation of it matches.
    pub(crate) fn matches_open(&self, text: &Folded) -> bool {
        match &self.lower_prefix {
            Some(prefix) => {
                text.text.starts_with(prefix.as_str()) || prefix.starts_with(&text.text)
            }
            None => glob_match_in(&self.lower, &text.chars, Mode::Generous, true),
        }
    }

    /// The strict reading (allow).
    pub(crate) fn matches(&self, text: &str, mode: Mode) -> bool {
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
pub(crate) fn has_parent_component(text: &str) -> bool {
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

pub(crate) fn glob_match(p: &[char], t: &[char], mode: Mode) -> bool {
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
