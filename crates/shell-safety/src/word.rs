//! Shell words reduced to the text a command would receive.
//!
//! Quotes and backslashes are removed the way the shell removes them, so `r\m`, `'rm'`, `"rm"`
//! and `r''m` all read `rm`. Expansions we cannot evaluate keep their source text (`$HOME`,
//! `$(cmd)`) and mark the word opaque, so rules can tell "unknown at run time" from a literal.

/// One evaluated shell word.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Word {
    /// Literal text after quote removal; unresolved expansions keep their source text.
    pub(crate) text: String,
    /// Part of the word came from an expansion or substitution, even one we resolved.
    pub(crate) computed: bool,
    /// Part of the word could not be resolved statically.
    pub(crate) opaque: bool,
    /// A substitution inside the word runs a downloader (`$(curl …)`, `<(wget …)`).
    pub(crate) fetches: bool,
    /// An unquoted glob or brace expansion appears, so the word may stand for many paths.
    pub(crate) glob: bool,
}

impl Word {
    /// A plain literal word (used for synthetic argv such as `find -exec` placeholders).
    pub(crate) fn literal(text: &str) -> Self {
        Self {
            text: text.to_owned(),
            ..Self::default()
        }
    }

    pub(crate) fn as_str(&self) -> &str {
        &self.text
    }

    /// Whether this word is an option (`-x`, `--long`), not an operand.
    pub(crate) fn is_option(&self) -> bool {
        self.text.len() > 1 && self.text.starts_with('-') && !self.opaque
    }
}

/// Normalises a command name: directories stripped (`/bin/rm` → `rm`) and lower-cased (a
/// case-insensitive filesystem runs `RM` as `rm`).
pub(crate) fn command_name(text: &str) -> String {
    let base = text.rsplit('/').next().unwrap_or(text);
    base.to_ascii_lowercase()
}

/// Appends an unquoted word's text with backslash escapes removed; reports whether an
/// unescaped glob character appeared.
pub(crate) fn push_unquoted(raw: &str, out: &mut String) -> bool {
    let mut glob = false;
    let mut chars = raw.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => match chars.next() {
                Some('\n') | None => {}
                Some(next) => out.push(next),
            },
            '*' | '?' | '[' => {
                glob = true;
                out.push(c);
            }
            _ => out.push(c),
        }
    }
    glob
}

/// Appends the content of a double-quoted string: only `\$`, `` \` ``, `\"`, `\\` and
/// backslash-newline are escapes there.
pub(crate) fn push_double_quoted(raw: &str, out: &mut String) {
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\\' {
            match chars.peek() {
                Some('$' | '`' | '"' | '\\') => {
                    if let Some(next) = chars.next() {
                        out.push(next);
                    }
                }
                Some('\n') => {
                    chars.next();
                }
                _ => out.push('\\'),
            }
        } else {
            out.push(c);
        }
    }
}

/// Appends the content of an ANSI-C string (`$'…'`), decoding the usual escapes so that
/// `$'\x72m'` reads `rm`.
pub(crate) fn push_ansi_c(raw: &str, out: &mut String) {
    let mut chars = raw.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let Some(esc) = chars.next() else {
            out.push('\\');
            break;
        };
        match esc {
            'n' => out.push('\n'),
            't' => out.push('\t'),
            'r' => out.push('\r'),
            'a' => out.push('\u{7}'),
            'b' => out.push('\u{8}'),
            'e' | 'E' => out.push('\u{1b}'),
            'f' => out.push('\u{c}'),
            'v' => out.push('\u{b}'),
            'x' => push_code(&mut chars, 16, 2, out),
            'u' => push_code(&mut chars, 16, 4, out),
            'U' => push_code(&mut chars, 16, 8, out),
            '0'..='7' => {
                let mut value = esc.to_digit(8).unwrap_or(0);
                for _ in 0..2 {
                    match chars.peek().and_then(|d| d.to_digit(8)) {
                        Some(d) => {
                            value = value * 8 + d;
                            chars.next();
                        }
                        None => break,
                    }
                }
                out.extend(char::from_u32(value));
            }
            '\\' | '\'' | '"' | '?' => out.push(esc),
            other => {
                out.push('\\');
                out.push(other);
            }
        }
    }
}

fn push_code(
    chars: &mut std::iter::Peekable<std::str::Chars<'_>>,
    radix: u32,
    max_digits: usize,
    out: &mut String,
) {
    let mut value = 0u32;
    let mut digits = 0;
    while digits < max_digits {
        match chars.peek().and_then(|d| d.to_digit(radix)) {
            Some(d) => {
                value = value.saturating_mul(radix).saturating_add(d);
                chars.next();
                digits += 1;
            }
            None => break,
        }
    }
    out.extend(char::from_u32(value));
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    fn unquoted(raw: &str) -> (String, bool) {
        let mut out = String::new();
        let glob = push_unquoted(raw, &mut out);
        (out, glob)
    }

    #[test]
    fn backslashes_are_removed_from_unquoted_words() {
        assert_eq!(unquoted(r"r\m"), ("rm".to_owned(), false));
        assert_eq!(unquoted("a\\\nb"), ("ab".to_owned(), false));
        assert_eq!(unquoted(r"\*.txt"), ("*.txt".to_owned(), false));
        assert_eq!(unquoted("*.txt"), ("*.txt".to_owned(), true));
    }

    #[test]
    fn double_quotes_keep_backslashes_that_escape_nothing() {
        let mut out = String::new();
        push_double_quoted(r#"a\"b\\c\$d\x"#, &mut out);
        assert_eq!(out, r#"a"b\c$d\x"#);
    }

    #[test]
    fn ansi_c_strings_decode_hex_octal_and_unicode() {
        let mut out = String::new();
        push_ansi_c(r"\x72m \162m \u0041\n\q", &mut out);
        assert_eq!(out, "rm rm A\n\\q");
    }

    #[test]
    fn command_names_lose_directories_and_case() {
        assert_eq!(command_name("/bin/rm"), "rm");
        assert_eq!(command_name("./RM"), "rm");
        assert_eq!(command_name("git"), "git");
    }
}
