//! Vetting captured values. A regex can say "this is what follows `password=`"; only a look at
//! the value can say whether it is a secret or `${DB_PASSWORD}`, `<your-token>`, `args.token`.
//! The checks are deliberately conservative: a miss on a weak, word-like password is preferable
//! to redacting ordinary code, which would corrupt tool arguments the model wrote.

use crate::ValueCheck;

/// Minimum length (in characters) of a value captured by a key-name rule.
const MIN_GENERIC_LEN: usize = 8;

/// Whole values (lower-cased) that are samples, defaults or type names, never real secrets.
const PLACEHOLDER_WORDS: &[&str] = &[
    "admin", "changeit", "default", "empty", "guest", "hidden", "masked", "mysql", "nil", "none",
    "null", "optional", "pass", "postgres", "required", "root", "sample", "string", "unset",
    "user", "username", "value",
];

/// Fragments (lower-cased) that mark a value as a placeholder wherever they occur.
const PLACEHOLDER_FRAGMENTS: &[&str] = &[
    "${",
    "$(",
    "{{",
    "}}",
    "%(",
    "<",
    ">",
    "...",
    "\u{2026}",
    "***",
    "xxxx",
    "[redacted]",
    "example",
    "password",
    "passwd",
    "secret",
    "changeme",
    "change_me",
    "change-me",
    "placeholder",
    "replaceme",
    "replace_me",
    "replace-me",
    "notasecret",
    "not_a_secret",
    "not-a-secret",
];

/// Words that, as a whole segment of a value (split on anything but letters and digits), mark
/// a sample such as `my-test-token-1`, `your_api_key_here` or `foo(bar)`.
const PLACEHOLDER_SEGMENTS: &[&str] = &[
    "admin",
    "apikey",
    "baz",
    "changeme",
    "demo",
    "dummy",
    "example",
    "fake",
    "fixme",
    "foo",
    "bar",
    "here",
    "key",
    "mock",
    "my",
    "pass",
    "passwd",
    "password",
    "placeholder",
    "qux",
    "redacted",
    "sample",
    "secret",
    "test",
    "testing",
    "todo",
    "token",
    "user",
    "value",
    "xxx",
    "your",
];

/// Whether `value`, captured by a rule with `check`, counts as a secret.
pub(crate) fn accepts(check: ValueCheck, value: &str) -> bool {
    match check {
        ValueCheck::Any => true,
        ValueCheck::Token => is_plausible_token(value),
        ValueCheck::Credential => is_plausible_credential(value),
        ValueCheck::Quoted => is_plausible_literal(value),
        ValueCheck::Bare => is_plausible_literal(value) && !reads_as_code(value),
    }
}

/// Vendor tokens: only documentation samples are rejected.
fn is_plausible_token(value: &str) -> bool {
    !value.contains("EXAMPLE") && longest_run(value) < 8
}

/// Passwords in URLs and `user:password` pairs: short ones are plausible, but not one or two
/// characters, a short lower-case word or a short number (`letme:in`, `Aladdin:opensesame`,
/// `abc:123` in documentation).
fn is_plausible_credential(value: &str) -> bool {
    let short_word = value.len() <= 10 && value.bytes().all(|b| b.is_ascii_lowercase());
    let short_number = value.len() < 6 && value.bytes().all(|b| b.is_ascii_digit());
    value.len() >= 3
        && !short_word
        && !short_number
        && !is_placeholder(value)
        && !is_upper_snake(value)
        && !is_format_directive(value)
}

/// Values of key-name rules: long enough, not a placeholder, not a plain word or path.
fn is_plausible_literal(value: &str) -> bool {
    if is_placeholder(value) || value.chars().count() < MIN_GENERIC_LEN || is_path_or_url(value) {
        return false;
    }
    let has_digit = value.bytes().any(|b| b.is_ascii_digit());
    let wordish = value
        .bytes()
        .all(|b| b.is_ascii_alphabetic() || b"_-./:".contains(&b));
    if !has_digit && wordish {
        return is_random_letters(value);
    }
    true
}

/// Templates, samples and masked values.
fn is_placeholder(value: &str) -> bool {
    if value.is_empty() || value.starts_with(['$', '%']) || longest_run(value) == value.len() {
        return true;
    }
    if value.starts_with('{') && value.ends_with('}') {
        return true;
    }
    let lower = value.to_ascii_lowercase();
    PLACEHOLDER_WORDS.contains(&lower.as_str())
        || PLACEHOLDER_FRAGMENTS.iter().any(|f| lower.contains(f))
        || lower
            .split(|c: char| !c.is_ascii_alphanumeric())
            .any(|segment| PLACEHOLDER_SEGMENTS.contains(&segment))
}

/// `PASSWORD`, `DB_PASS`, `YOUR_TOKEN`: names standing in for a value in documentation.
fn is_upper_snake(value: &str) -> bool {
    value.bytes().all(|b| b.is_ascii_uppercase() || b == b'_')
}

/// `%s`, `%v`, `%d` and friends: format strings, not values.
fn is_format_directive(value: &str) -> bool {
    matches!(value, "%s" | "%v" | "%d" | "%q" | "%+v" | "{}" | "?")
}

/// File paths and URLs, which name where a secret lives rather than being one.
fn is_path_or_url(value: &str) -> bool {
    value.starts_with(['/', '~'])
        || value.starts_with("./")
        || value.starts_with("../")
        || value.contains("://")
}

/// A letters-only value that changes case often, like a random token, rather than CamelCase.
fn is_random_letters(value: &str) -> bool {
    let bytes = value.as_bytes();
    if bytes.len() < 16 || !bytes.iter().all(u8::is_ascii_alphabetic) {
        return false;
    }
    let changes = bytes
        .windows(2)
        .filter(|w| w[0].is_ascii_uppercase() != w[1].is_ascii_uppercase())
        .count();
    changes * 3 >= bytes.len()
}

/// Identifiers and dotted paths (`token_v2`, `args.token`, `Config::API_KEY`) unless the parts
/// look random (digits and letters interleaved, as in `a1b2c3d4`).
fn reads_as_code(value: &str) -> bool {
    value
        .split("::")
        .flat_map(|part| part.split(['.']))
        .all(|segment| is_identifier(segment) && !looks_random(segment))
}

fn is_identifier(segment: &str) -> bool {
    let mut bytes = segment.bytes();
    bytes
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && bytes.all(|b| b.is_ascii_alphanumeric() || b == b'_')
}

/// Digits and letters interleaved at least twice, or all three character classes in a long run.
fn looks_random(segment: &str) -> bool {
    let bytes = segment.as_bytes();
    let switches = bytes
        .windows(2)
        .filter(|w| {
            (w[0].is_ascii_digit() && w[1].is_ascii_alphabetic())
                || (w[0].is_ascii_alphabetic() && w[1].is_ascii_digit())
        })
        .count();
    let has = |f: fn(&u8) -> bool| bytes.iter().any(f);
    switches >= 2
        || is_random_letters(segment)
        || (bytes.len() >= 12
            && has(u8::is_ascii_uppercase)
            && has(u8::is_ascii_lowercase)
            && has(u8::is_ascii_digit))
}

/// Length of the longest run of one repeated byte.
fn longest_run(value: &str) -> usize {
    let bytes = value.as_bytes();
    let mut best = 0;
    let mut run = 0;
    for (i, b) in bytes.iter().enumerate() {
        run = if i > 0 && bytes[i - 1] == *b {
            run + 1
        } else {
            1
        };
        best = best.max(run);
    }
    best
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn verdicts(check: ValueCheck, values: &[&str]) -> Vec<(String, bool)> {
        values
            .iter()
            .map(|v| ((*v).to_owned(), accepts(check, v)))
            .collect()
    }

    #[test]
    fn bare_values_reject_code_templates_and_samples() {
        let values = [
            "token_v2",
            "args.token",
            "Config::API_KEY",
            "${DB_PASSWORD}",
            "$TOKEN",
            "<your-token>",
            "changeme123",
            "my-test-token-1",
            "********",
            "xxxxxxxxxxxx",
            "[REDACTED]",
            "/run/secrets/db",
            "short1",
            "TokenStreamIterator",
            "true",
        ];
        let expected: Vec<(String, bool)> =
            values.iter().map(|v| ((*v).to_owned(), false)).collect();
        assert_eq!(verdicts(ValueCheck::Bare, &values), expected);
    }

    #[test]
    fn bare_values_accept_random_looking_strings() {
        let values = [
            "s3cr3tP4ss",
            "a1b2c3d4e5",
            "hunter2hunter2",
            "dGVzdGluZzE=",
            "qWeRtYuIoPaSdFgH",
        ];
        let expected: Vec<(String, bool)> =
            values.iter().map(|v| ((*v).to_owned(), true)).collect();
        assert_eq!(verdicts(ValueCheck::Bare, &values), expected);
    }

    #[test]
    fn quoted_values_accept_literals_with_digits_but_not_words_or_samples() {
        assert_eq!(
            verdicts(
                ValueCheck::Quoted,
                &[
                    "letmein42",
                    "Password",
                    "P@ssw0rd",
                    "password123",
                    "foo(b%5Dc"
                ]
            ),
            vec![
                ("letmein42".to_owned(), true),
                ("Password".to_owned(), false),
                ("P@ssw0rd".to_owned(), true),
                ("password123".to_owned(), false),
                ("foo(b%5Dc".to_owned(), false),
            ]
        );
    }

    #[test]
    fn credentials_reject_names_directives_and_short_words_but_not_short_passwords() {
        assert_eq!(
            verdicts(
                ValueCheck::Credential,
                &["PASSWORD", "%s", "pass", "pw4", "s3cret"]
            ),
            vec![
                ("PASSWORD".to_owned(), false),
                ("%s".to_owned(), false),
                ("pass".to_owned(), false),
                ("pw4".to_owned(), true),
                ("s3cret".to_owned(), true),
            ]
        );
    }

    #[test]
    fn tokens_reject_documentation_samples_only() {
        assert_eq!(
            verdicts(
                ValueCheck::Token,
                &["AKIAIOSFODNN7EXAMPLE", "ghp_AAAAAAAAAAbc", "ghp_Ab3dE"]
            ),
            vec![
                ("AKIAIOSFODNN7EXAMPLE".to_owned(), false),
                ("ghp_AAAAAAAAAAbc".to_owned(), false),
                ("ghp_Ab3dE".to_owned(), true),
            ]
        );
    }
}
