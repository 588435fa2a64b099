//! `type: policy` hooks: Cedar policy sets, parsed (and validated against their schema) once
//! at load, so a decision never parses.

use std::sync::Arc;

use cedar_policy::PolicySet;
use tether_protocol::HookEvent;

use crate::diagnostic::{Origin, TextOrigin};

/// The events a policy hook may run on: the ones that take a tool verdict, and the prompt.
pub const POLICY_EVENTS: [HookEvent; 4] = [
    HookEvent::PreToolUse,
    HookEvent::ToolGuard,
    HookEvent::PermissionRequest,
    HookEvent::UserPromptSubmit,
];

/// A parsed Cedar policy set.
#[derive(Debug, Clone)]
pub struct PolicyHook {
    pub set: Arc<PolicySet>,
    /// `policy:` as written, or `inline` for `policy_text:`.
    pub source: String,
    /// How many policies (and templates) the set holds.
    pub count: usize,
    /// Whether a `schema:` validated the set at load.
    pub validated: bool,
    /// The policy text: what identifies the set (equality, de-duplication).
    pub text: Arc<str>,
    /// Where the text lives, to point at a policy in it.
    pub at: TextAt,
}

/// Where a piece of Cedar text lives, to turn its byte offsets into origins.
#[derive(Debug, Clone)]
pub enum TextAt {
    /// A file of its own (its name as written, for messages).
    File(Arc<str>),
    /// A string of the agent file.
    Inline(TextOrigin),
}

impl TextAt {
    /// The origin of byte `offset` of `text`; `path` is the key path for a file's origin.
    pub fn origin(&self, text: &str, offset: usize, path: &str) -> Origin {
        let (line, column) = line_col(text, offset);
        match self {
            Self::File(name) => Origin::new(Some(name.clone()), line as u64, column as u64, path),
            Self::Inline(t) => t.at(line, column),
        }
    }
}

impl PartialEq for PolicyHook {
    fn eq(&self, other: &Self) -> bool {
        self.text == other.text && self.validated == other.validated
    }
}

impl Eq for PolicyHook {}

impl std::hash::Hash for PolicyHook {
    fn hash<H: std::hash::Hasher>(&self, state: &mut H) {
        self.text.hash(state);
        self.validated.hash(state);
    }
}

/// The 1-based line and column (in characters) of byte `offset` in `text`.
pub(crate) fn line_col(text: &str, offset: usize) -> (usize, usize) {
    let offset = offset.min(text.len());
    let before = text.get(..offset).unwrap_or(text);
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let column = before.get(line_start..).map_or(0, |s| s.chars().count()) + 1;
    (line, column)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_become_one_based_lines_and_columns() {
        let text = "ab\ncdé\nf";
        assert_eq!(line_col(text, 0), (1, 1));
        assert_eq!(line_col(text, 3), (2, 1));
        assert_eq!(line_col(text, 7), (2, 4));
        assert_eq!(line_col(text, 8), (3, 1));
        assert_eq!(line_col(text, 99), (3, 2));
    }
}
