//! What a rule is. Plain data with `&'static` fields so the whole table is a `static` and costs
//! nothing until the first redaction compiles it.

/// One secret family: how to spot it cheaply (keywords) and exactly (regex), and how to vet the
/// captured value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Rule {
    /// Stable identifier, e.g. `github-classic-pat`.
    pub id: &'static str,
    /// One line for documentation: what the rule detects.
    pub description: &'static str,
    /// Literal strings (matched ASCII case-insensitively) of which every match contains at least
    /// one. The regex only runs near their occurrences.
    pub keywords: &'static [&'static str],
    /// The regex. If it has a named group `secret`, only that group is replaced.
    pub pattern: &'static str,
    /// How the captured value is vetted before it counts as a finding.
    pub check: ValueCheck,
    /// Upper bound in bytes for a match, required when `pattern` is unbounded (e.g. PEM blocks).
    /// Bounded patterns get their bound from the regex itself.
    pub max_len: Option<usize>,
}

/// How a captured value is vetted. Vendor formats are precise, so they need little; key-name
/// rules (`password=…`) capture whatever follows and must reject code, templates and samples.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ValueCheck {
    /// Accept every match (structured blocks such as PEM keys and JWTs).
    Any,
    /// A vendor token: reject only documentation samples (`…EXAMPLE…`, long runs of one char).
    Token,
    /// A password inside a URL or a `user:password` pair: reject placeholders and templates.
    Credential,
    /// A quoted string literal assigned to a secret-looking key: additionally reject short
    /// values and plain words.
    Quoted,
    /// An unquoted value (env files, YAML, CLI flags, headers): additionally reject values that
    /// read as code (identifiers, dotted paths).
    Bare,
}

impl Rule {
    /// A vendor token rule with [`ValueCheck::Token`].
    pub(crate) const fn token(
        id: &'static str,
        description: &'static str,
        keywords: &'static [&'static str],
        pattern: &'static str,
    ) -> Self {
        Self {
            id,
            description,
            keywords,
            pattern,
            check: ValueCheck::Token,
            max_len: None,
        }
    }

    /// The same rule with another value check.
    pub(crate) const fn check(self, check: ValueCheck) -> Self {
        Self { check, ..self }
    }

    /// The same rule with an explicit match-length cap (for unbounded patterns).
    pub(crate) const fn max_len(self, max_len: usize) -> Self {
        Self {
            max_len: Some(max_len),
            ..self
        }
    }
}
