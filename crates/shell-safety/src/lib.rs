//! The `safer_shell` classifier: how destructive is this shell command?
//!
//! The reference implementation matches regexes against the command text, which a quote, a
//! backslash or a `$(…)` defeats. We parse the command with tree-sitter-bash instead and look at
//! every simple command it contains, wherever it sits: in pipelines and lists, inside `$(…)`,
//! backticks and process substitutions, in `if`/`for`/`while`/`case` bodies and function bodies,
//! behind wrappers (`sudo`, `env`, `xargs`, `timeout`, …) and inside shell strings handed to
//! `bash -c`, `eval` or `find -exec` (parsed again, to a bounded depth).
//!
//! Shape: `script` turns source text into a small owned model (simple commands with evaluated
//! words, redirections, pipelines, functions); `analyzer` walks that model, peeling wrappers
//! (`wrappers`) and asking the destructive taxonomy (`rules`) and the read-only set
//! (`safe`) about each command; `findings` words and combines the results. The verdict for a
//! whole command is its most severe finding.
//!
//! Classification never fails: anything we cannot read (syntax errors, computed command names,
//! nesting too deep) asks for confirmation.

mod analyzer;
mod commands;
mod findings;
mod parser;
mod paths;
mod plain;
mod rules;
mod safe;
mod scan;
mod script;
mod word;
mod wrappers;

use std::fmt;

pub use commands::CommandLine;
pub use plain::plain_words;

/// The reason text of a confirmation that no destructive rule explains (same text as the
/// reference `safer_shell`).
pub const CONFIRMATION_REASON: &str = "Shell command requires safer-mode confirmation.";

/// Prefix of every reason produced by a destructive rule (same text as the reference).
pub const DESTRUCTIVE_REASON_PREFIX: &str = "Command matches destructive operation: ";

/// Classifies a shell command as it would be run by `bash -c`.
///
/// Returns [`Verdict::Safe`] only when every simple command is in the read-only set and nothing
/// is written to a file; otherwise the most severe [`Finding`]. Never panics: unparseable input
/// asks with [`BlastRadius::Unknown`].
///
/// ```
/// use tether_shell_safety::{BlastRadius, Verdict, classify};
///
/// assert_eq!(classify("git status && ls -la"), Verdict::Safe);
/// let finding = classify("ls; sudo rm -rf /").finding().cloned();
/// assert_eq!(
///     finding.map(|f| (f.blast_radius, f.category, f.command)),
///     Some((BlastRadius::High, Some("fs-delete"), "sudo rm -rf /".to_owned()))
/// );
/// ```
pub fn classify(command: &str) -> Verdict {
    analyzer::classify_top(command)
}

/// What `safer_shell` should do with a command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// Read-only: let it run without an opinion.
    Safe,
    /// Force a confirmation, showing this finding.
    Ask(Finding),
}

impl Verdict {
    /// The finding, if the verdict asks.
    pub fn finding(&self) -> Option<&Finding> {
        match self {
            Self::Safe => None,
            Self::Ask(finding) => Some(finding),
        }
    }

    /// Whether the command may run without confirmation.
    pub fn is_safe(&self) -> bool {
        matches!(self, Self::Safe)
    }
}

/// Why a command needs confirmation.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    /// How much could be lost.
    pub blast_radius: BlastRadius,
    /// Taxonomy tag such as `fs-delete` or `dk-volume-del`; `None` when no rule matched and the
    /// command is merely not known to be safe.
    pub category: Option<&'static str>,
    /// Human text naming what matched, e.g. "Command matches destructive operation: recursive
    /// delete of `/`", or [`CONFIRMATION_REASON`].
    pub reason: String,
    /// The simple command (or redirected statement) that matched, as written.
    pub command: String,
}

/// How much a command could destroy; rendered as a badge on the confirmation prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BlastRadius {
    /// Easily undone or confined to one ordinary file.
    Low,
    /// Real loss, but bounded (a directory, a container, a package).
    Medium,
    /// System-wide or irreversible (root or home, block devices, force-push, data volumes).
    High,
    /// We could not tell.
    Unknown,
}

impl BlastRadius {
    /// The wire name used in hook metadata: `low`, `medium`, `high` or `unknown`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Low => "low",
            Self::Medium => "medium",
            Self::High => "high",
            Self::Unknown => "unknown",
        }
    }

    /// Rank used to pick the most severe finding: high > unknown > medium > low, as in the
    /// reference (an unreadable command may be anything, so it outranks a known medium).
    pub(crate) fn severity(self) -> u8 {
        match self {
            Self::Low => 1,
            Self::Medium => 2,
            Self::Unknown => 3,
            Self::High => 4,
        }
    }

    /// One step more severe; used when a command runs with elevated privileges.
    pub(crate) fn raised(self) -> Self {
        match self {
            Self::Low => Self::Medium,
            Self::Medium | Self::High => Self::High,
            Self::Unknown => Self::Unknown,
        }
    }
}

impl fmt::Display for BlastRadius {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Failures inside the classifier. None escapes [`classify`]: each becomes an
/// [`BlastRadius::Unknown`] confirmation whose reason quotes the error.
#[derive(Debug, thiserror::Error)]
pub(crate) enum Error {
    /// The bundled grammar does not match the tree-sitter runtime. Returned by
    /// `parser::parse` when a thread first builds its parser; not retryable (a build problem).
    #[error("shell grammar could not be loaded: {0}")]
    Language(#[from] tree_sitter::LanguageError),
    /// tree-sitter returned no tree (it only does so when cancelled). Returned by
    /// `parser::parse`; not retryable.
    #[error("shell parser produced no syntax tree")]
    NoTree,
    /// The command is longer than we are willing to parse. Returned by `parser::parse`; not
    /// retryable (the same command is just as long next time).
    #[error("command is {len} bytes long; at most {max} bytes are inspected")]
    TooLong {
        /// Length of the command in bytes.
        len: usize,
        /// The limit.
        max: usize,
    },
}
