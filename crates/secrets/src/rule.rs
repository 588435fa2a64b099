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
    /// Upper bound in bytes for a match, required when `pattern` is unbounded (e.g. PEM blocks)
    /// and the rule is searched in windows. Bounded patterns get their bound from the regex.
    pub max_len: Option<usize>,
    /// Where, relative to a keyword occurrence, a match can start.
    pub anchor: Anchor,
    /// Whether the keyword is part of a name followed by `:` or `=` (after the rest of the name,
    /// an optional quote and blanks), as in `db_password: …`, and what comes after. Occurrences
    /// without one, like `password_hash(` or `token.len()`, are skipped before any regex runs.
    pub assignment: Assignment,
}

/// What a rule's keyword occurrences must be followed by: a necessary condition for a match,
/// checked in a few bytes so that most occurrences of common words never reach a regex.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Assignment {
    /// Nothing: the keyword need not name an assigned value.
    NotRequired,
    /// The rest of the name, optional quotes, backslashes and blanks, then `:` or `=`.
    Any,
    /// `=` right after the rest of the name, as in `DB_PASSWORD=…`.
    Tight,
    /// As [`Assignment::Any`], then blanks and a quote or backslash (`token: "…"`).
    Quoted,
    /// As [`Assignment::Any`], then blanks and anything but a quote or backslash (`token: …`).
    Unquoted,
    /// As [`Assignment::Unquoted`], and the value is the rest of the line (`token: abc123…`
    /// in YAML or INI): 8 to 256 bytes of visible ASCII other than quotes, backslashes,
    /// brackets and `<>,;&`, then a `#` comment or the end of the line. Code such as
    /// `token = self.next()` stops here instead of reaching the rule's regex.
    LineValue,
}

/// Where a rule's matches start relative to its keywords. Key-name rules fire on common words
/// (`token`, `password`), so instead of scanning windows around every occurrence they try one
/// anchored match at a position derived from it, which fails within a few bytes on ordinary code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Anchor {
    /// Anywhere within `max_len` bytes of a keyword occurrence: the regex scans a window.
    Window,
    /// Exactly where a keyword occurrence starts (the pattern begins with its keywords).
    Keyword,
    /// At the start of the line holding a keyword occurrence, at most 128 bytes before it.
    LineStart,
    /// At the start of the whitespace-delimited word holding a keyword occurrence, at most 96
    /// bytes before it.
    WordStart,
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
            anchor: Anchor::Window,
            assignment: Assignment::NotRequired,
        }
    }

    /// The same rule restricted to keyword occurrences that name an assigned value.
    pub(crate) const fn assignment(self) -> Self {
        self.assigned(Assignment::Any)
    }

    /// The same rule restricted to keyword occurrences followed by `assignment`.
    pub(crate) const fn assigned(self, assignment: Assignment) -> Self {
        Self { assignment, ..self }
    }

    /// The same rule searched from another anchor.
    pub(crate) const fn anchor(self, anchor: Anchor) -> Self {
        Self { anchor, ..self }
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
