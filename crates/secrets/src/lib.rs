//! Secret redaction: find credentials in text and replace them with [`REDACTED`].
//!
//! The `redact_secrets` builtin hook runs on every tool call, every model request and every tool
//! result, so the common case (text without secrets) must cost little more than one pass of a
//! keyword automaton. The crate is therefore shaped as data plus a small engine:
//!
//! - [`rules()`] is a static table written from vendors' public token formats (no maintained
//!   Rust rule set exists). Each rule carries keywords, a regex and a value check.
//! - The engine compiles everything once, lazily, then per call runs one aho-corasick pass over
//!   the text and evaluates a rule's regex only near its keywords' occurrences: in a window
//!   around them (vendor tokens) or anchored at them (key-name rules such as `password=`).
//! - Only a rule's named group `secret` is replaced, so framing such as `AWS_SECRET_ACCESS_KEY=`
//!   stays readable. Overlapping findings merge into one span; the marker itself never matches,
//!   so redaction is idempotent.

mod assignment;
mod compile;
mod engine;
mod error;
mod keywords;
mod rule;
mod rules;
mod value;

use std::borrow::Cow;

pub use error::SecretsError;
pub use rule::{Anchor, Assignment, Rule, ValueCheck};

/// The marker that replaces every detected secret span.
pub const REDACTED: &str = "[REDACTED]";

/// One detected secret: the byte span of `text` that [`redact`] replaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Finding {
    /// Id of the rule that produced the span (the leftmost-longest one when several overlapped).
    pub rule_id: &'static str,
    /// Byte offset where the replaced span starts (always a `char` boundary).
    pub start: usize,
    /// Byte offset one past the end of the replaced span (always a `char` boundary).
    pub end: usize,
}

/// Replaces every detected secret in `text` with [`REDACTED`].
///
/// Returns [`Cow::Borrowed`] when nothing was found, so the clean path does not allocate.
#[must_use]
pub fn redact(text: &str) -> Cow<'_, str> {
    let findings = find(text);
    if findings.is_empty() {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    let mut cursor = 0;
    for finding in &findings {
        out.push_str(&text[cursor..finding.start]);
        out.push_str(REDACTED);
        cursor = finding.end;
    }
    out.push_str(&text[cursor..]);
    Cow::Owned(out)
}

/// Returns the spans [`redact`] would replace: sorted, non-overlapping byte ranges of `text`.
#[must_use]
pub fn find(text: &str) -> Vec<Finding> {
    engine::engine().find(text)
}

/// Redacts every string inside `value` (object values and array items, recursively; object keys
/// and non-string scalars are left alone). Returns `true` if anything changed.
pub fn redact_json(value: &mut serde_json::Value) -> bool {
    match value {
        serde_json::Value::String(text) => match redact(text) {
            Cow::Borrowed(_) => false,
            Cow::Owned(redacted) => {
                *text = redacted;
                true
            }
        },
        serde_json::Value::Array(items) => items
            .iter_mut()
            .fold(false, |changed, item| redact_json(item) | changed),
        serde_json::Value::Object(map) => map
            .values_mut()
            .fold(false, |changed, item| redact_json(item) | changed),
        serde_json::Value::Null | serde_json::Value::Bool(_) | serde_json::Value::Number(_) => {
            false
        }
    }
}

/// The built-in rule table, in priority order (earlier rules win ties between equal spans).
#[must_use]
pub fn rules() -> &'static [Rule] {
    rules::RULES
}

/// Builds the keyword automaton and compiles every rule now, so that no later search pays for
/// it (a process's first search otherwise compiles the rules its text wakes: tens of
/// milliseconds when most do). Callers that know redaction is coming run it on a spare thread.
pub fn prepare() {
    engine::engine().compile_all();
}

/// Reports whether every built-in rule compiled. A rule that failed is skipped by [`redact`]
/// (the others keep working), so callers that configure redaction (e.g. `tether hooks check`)
/// should surface this error instead of trusting a partial rule set.
///
/// # Errors
///
/// The first problem found while compiling the rule table; see [`SecretsError`].
pub fn self_check() -> Result<(), SecretsError> {
    engine::engine()
        .problems()
        .first()
        .cloned()
        .map_or(Ok(()), Err)
}
