//! The crate's one error type. Redaction itself never fails (it is a pure function of the text);
//! errors can only come from compiling the static rule table, which tests pin down.

/// A problem with the built-in rule table, reported by [`crate::self_check`].
#[derive(Debug, Clone, thiserror::Error)]
pub enum SecretsError {
    /// A rule's regex does not compile. Returned by [`crate::self_check`]; the rule is skipped.
    /// Not retryable: the table is static, so this is a bug in the crate.
    #[error("secret rule `{rule_id}` has an invalid pattern: {source}")]
    InvalidPattern {
        /// Id of the offending rule.
        rule_id: &'static str,
        /// What the regex compiler said.
        #[source]
        source: Box<regex::Error>,
    },
    /// A rule can match unboundedly long text and declares no `max_len`, so its keyword windows
    /// cannot be sized. Returned by [`crate::self_check`]; the rule is skipped. Not retryable.
    #[error("secret rule `{rule_id}` can match text of unbounded length but declares no `max_len`")]
    UnboundedPattern {
        /// Id of the offending rule.
        rule_id: &'static str,
    },
    /// A rule has no keywords, so the pre-filter could never select it. Returned by
    /// [`crate::self_check`]; the rule is skipped. Not retryable.
    #[error("secret rule `{rule_id}` has no keywords")]
    NoKeywords {
        /// Id of the offending rule.
        rule_id: &'static str,
    },
    /// The keyword automaton could not be built. Returned by [`crate::self_check`]; redaction
    /// then evaluates every rule over the whole text (slow but complete). Not retryable.
    #[error("secret keyword pre-filter could not be built: {0}")]
    Prefilter(#[from] aho_corasick::BuildError),
    /// The keyword automaton has no unanchored start state. Returned by [`crate::self_check`];
    /// handled like [`SecretsError::Prefilter`]. Not retryable.
    #[error("secret keyword pre-filter has no unanchored start state")]
    PrefilterStart,
}
