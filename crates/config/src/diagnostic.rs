//! Config diagnostics: every problem in an agent file points at `file:line:col` and names the
//! key path, so a user can jump straight to it.

use std::fmt;
use std::sync::Arc;

/// Where something was written.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Origin {
    /// The file, as the user named it; `None` for values that came from flags.
    pub file: Option<Arc<str>>,
    /// 1-based; 0 when unknown.
    pub line: u64,
    /// 1-based; 0 when unknown.
    pub column: u64,
    /// The key path, e.g. `agents.root.hooks.pre_tool_use[0].hooks[1]`.
    pub path: String,
}

impl Origin {
    pub fn new(file: Option<Arc<str>>, line: u64, column: u64, path: impl Into<String>) -> Self {
        Self {
            file,
            line,
            column,
            path: path.into(),
        }
    }

    /// An origin with no location (values built in code or from flags).
    pub fn synthetic(path: impl Into<String>) -> Self {
        Self::new(None, 0, 0, path)
    }

    /// `file:line:col`, or just the file, or nothing.
    pub fn location(&self) -> String {
        match (&self.file, self.line) {
            (Some(f), 0) => f.to_string(),
            (Some(f), l) => format!("{f}:{l}:{}", self.column),
            (None, 0) => String::new(),
            (None, l) => format!("{l}:{}", self.column),
        }
    }
}

/// Where a text value (a model hook's prompt) was written, so a position inside the text can
/// be reported at its own `file:line:col`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct TextOrigin {
    /// The value's own location.
    pub origin: Origin,
    /// File line and column of each text line's first character, when the text appears in the
    /// file verbatim (a literal block or a one-line scalar); empty when it does not (folded,
    /// escaped or multi-line flow text), and positions then fall back to `origin`.
    pub lines: Vec<(u64, u64)>,
}

impl TextOrigin {
    /// An origin with no line map.
    pub fn unmapped(origin: Origin) -> Self {
        Self {
            origin,
            lines: Vec::new(),
        }
    }

    /// Maps `text`, whose value starts at `origin` in `source`, line by line; each mapped line
    /// is checked against the file so a wrong guess never points at the wrong place.
    pub fn new(origin: Origin, source: &str, text: &str) -> Self {
        let file_lines: Vec<&str> = source.lines().collect();
        let text_lines: Vec<&str> = text
            .strip_suffix('\n')
            .unwrap_or(text)
            .split('\n')
            .collect();
        let mut lines = Vec::with_capacity(text_lines.len());
        for (k, text_line) in text_lines.iter().enumerate() {
            let line = origin.line + k as u64;
            let Some(file_line) = usize::try_from(line)
                .ok()
                .and_then(|l| l.checked_sub(1))
                .and_then(|i| file_lines.get(i))
            else {
                return Self::unmapped(origin);
            };
            let mut column = origin.column.max(1);
            let skip = usize::try_from(column - 1).unwrap_or(usize::MAX);
            let at: String = file_line.chars().skip(skip).collect();
            let quoted = k == 0
                && text_lines.len() == 1
                && (at.starts_with('"') || at.starts_with('\''))
                && !text_line.starts_with(&at[..1]);
            if quoted {
                column += 1;
            }
            let at = if quoted { &at[1..] } else { at.as_str() };
            if !text_line.is_empty() && !at.starts_with(text_line) {
                return Self::unmapped(origin);
            }
            lines.push((line, column));
        }
        Self { origin, lines }
    }

    /// The origin of a 1-based `line` and `column` (in characters) inside the text.
    pub fn at(&self, line: usize, column: usize) -> Origin {
        let mapped = line
            .checked_sub(1)
            .and_then(|i| self.lines.get(i))
            .map(|(l, c)| (*l, c + column.saturating_sub(1) as u64));
        match mapped {
            Some((l, c)) => Origin::new(self.origin.file.clone(), l, c, self.origin.path.clone()),
            None => self.origin.clone(),
        }
    }
}

/// One problem in a config file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub origin: Origin,
    pub message: String,
    pub hint: Option<String>,
    /// The offending source line with a caret under the column, when the source is known.
    pub snippet: Option<String>,
}

impl Diagnostic {
    pub fn new(origin: Origin, message: impl Into<String>) -> Self {
        Self {
            origin,
            message: message.into(),
            hint: None,
            snippet: None,
        }
    }

    #[must_use]
    pub fn with_hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }

    /// Renders the source line under the message.
    #[must_use]
    pub fn with_source(mut self, source: &str) -> Self {
        self.snippet = render_snippet(source, self.origin.line, self.origin.column);
        self
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let loc = self.origin.location();
        if !loc.is_empty() {
            write!(f, "{loc}: ")?;
        }
        if !self.origin.path.is_empty() {
            write!(f, "{}: ", self.origin.path)?;
        }
        f.write_str(&self.message)?;
        if let Some(snippet) = &self.snippet {
            write!(f, "\n{snippet}")?;
        }
        if let Some(hint) = &self.hint {
            write!(f, "\n  hint: {hint}")?;
        }
        Ok(())
    }
}

fn render_snippet(source: &str, line: u64, column: u64) -> Option<String> {
    let idx = usize::try_from(line.checked_sub(1)?).ok()?;
    let text = source.lines().nth(idx)?;
    let gutter = line.to_string();
    let pad = " ".repeat(gutter.len());
    // Columns count characters; tabs stay tabs so the caret lines up.
    let prefix: String = text
        .chars()
        .take(usize::try_from(column.saturating_sub(1)).unwrap_or(0))
        .map(|c| if c == '\t' { '\t' } else { ' ' })
        .collect();
    Some(format!(" {pad} |\n {gutter} | {text}\n {pad} | {prefix}^"))
}

/// Every problem found while loading a file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostics(pub Vec<Diagnostic>);

impl fmt::Display for Diagnostics {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn display_has_location_path_snippet_and_hint() {
        let d = Diagnostic::new(
            Origin::new(Some("a.yaml".into()), 2, 5, "agents.root"),
            "unknown field `modle`",
        )
        .with_hint("did you mean `model`?")
        .with_source("agents:\n  root:\n");
        assert_eq!(
            d.to_string(),
            "a.yaml:2:5: agents.root: unknown field `modle`\n   |\n 2 |   root:\n   |     ^\n  hint: did you mean `model`?"
        );
    }

    #[test]
    fn text_origins_map_literal_blocks_and_one_line_values() {
        let source = "p: |\n  first\n    second {{ x }}\nq: \"one {{ y }}\"\n";
        let at = |line, column| Origin::new(Some("a.yaml".into()), line, column, "p");
        let block = TextOrigin::new(at(2, 3), source, "first\n  second {{ x }}\n");
        assert_eq!(block.lines, [(2, 3), (3, 3)]);
        assert_eq!(block.at(2, 10).location(), "a.yaml:3:12");
        let quoted = TextOrigin::new(at(4, 4), source, "one {{ y }}");
        assert_eq!(quoted.at(1, 5).location(), "a.yaml:4:9");
        let folded = TextOrigin::new(at(2, 3), source, "first second");
        assert_eq!(
            (folded.lines.len(), folded.at(1, 4).location()),
            (0, "a.yaml:2:3".to_owned())
        );
    }

    #[test]
    fn synthetic_origins_print_no_location() {
        let d = Diagnostic::new(Origin::synthetic("--hook-stop"), "blank");
        assert_eq!(d.to_string(), "--hook-stop: blank");
    }
}
