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
    fn synthetic_origins_print_no_location() {
        let d = Diagnostic::new(Origin::synthetic("--hook-stop"), "blank");
        assert_eq!(d.to_string(), "--hook-stop: blank");
    }
}
