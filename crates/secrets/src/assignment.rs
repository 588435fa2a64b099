//! The few bytes after a name that tell whether it is assigned a value (`name = …`,
//! `name: "…"`), checked before an assignment rule's regex runs: on ordinary code most
//! keyword occurrences (`token = self.next()`) stop here.

use crate::Assignment;

/// Where the name around a keyword occurrence ends and what follows it (see [`assigned_value`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Separator {
    /// The separator (`:` or `=`) follows the name directly.
    pub(crate) tight: bool,
    /// After the separator (read as one byte, or as `:=` / `=>`) and blanks comes a quote or a
    /// backslash.
    pub(crate) quoted: bool,
    /// After the one-byte separator and blanks comes something else.
    pub(crate) unquoted: bool,
    /// After the one-byte separator and blanks comes a line value (see [`is_line_value`]).
    pub(crate) line_value: bool,
}

impl Separator {
    pub(crate) fn allows(self, assignment: Assignment) -> bool {
        match assignment {
            Assignment::NotRequired | Assignment::Any => true,
            Assignment::Tight => self.tight,
            Assignment::Quoted => self.quoted,
            Assignment::Unquoted => self.unquoted,
            Assignment::LineValue => self.line_value,
        }
    }
}

/// The separator after the name around a keyword ending at `end`, if the name is followed by
/// `:` or `=`: the rest of the name (`_key`, `_API_KEY`), then at most a few quotes,
/// backslashes and blanks. A necessary condition for every assignment rule's match (and its
/// flags for the narrower [`Assignment`]s), checked in a few bytes.
pub(crate) fn assigned_value(text: &str, end: usize) -> Option<Separator> {
    let bytes = text.as_bytes();
    let name_end = bytes[end..]
        .iter()
        .take(64)
        .position(|b| !(b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.')))
        .map_or(bytes.len(), |n| end + n);
    let at = name_end
        + bytes[name_end..]
            .iter()
            .take(12)
            .position(|b| !matches!(b, b'"' | b'\'' | b'\\' | b' ' | b'\t'))?;
    let separator = bytes[at];
    if !matches!(separator, b':' | b'=') {
        return None;
    }
    // Where the value starts: the first byte after `from` that is not a blank.
    let value_at = |from: usize| {
        bytes
            .get(from..)
            .and_then(|rest| rest.iter().position(|b| !matches!(b, b' ' | b'\t')))
            .map(|blanks| from + blanks)
    };
    let is_quote = |b: &u8| matches!(b, b'"' | b'\'' | b'`' | b'\\');
    let first_at = value_at(at + 1);
    let first = first_at.map(|i| &bytes[i]);
    let long = matches!(
        (separator, bytes.get(at + 1)),
        (b':', Some(b'=')) | (b'=', Some(b'>'))
    );
    Some(Separator {
        tight: at == name_end && separator == b'=',
        quoted: first.is_some_and(is_quote)
            || (long && value_at(at + 2).is_some_and(|i| is_quote(&bytes[i]))),
        unquoted: first.is_some_and(|b| !is_quote(b)),
        line_value: first_at.is_some_and(|i| is_line_value(&bytes[i..])),
    })
}

/// Shortest and longest value of an [`Assignment::LineValue`] rule.
const LINE_VALUE_LEN: (usize, usize) = (8, 256);

/// Whether `value` starts with what [`Assignment::LineValue`] asks for: at least 8 bytes of
/// visible ASCII other than quotes, backslashes, brackets and `<>,;&`, ending at a `#` or at the
/// end of the line (blanks before it allowed). Values are at most 256 bytes, so only that many
/// are read: on a long run, only a `#` inside can end the value.
pub(crate) fn is_line_value(value: &[u8]) -> bool {
    let (min, max) = LINE_VALUE_LEN;
    let in_value = |b: &&u8| {
        (0x21..=0x7E).contains(*b)
            && !matches!(
                b,
                b'"' | b'\''
                    | b'`'
                    | b'\\'
                    | b'<'
                    | b'>'
                    | b'('
                    | b')'
                    | b'{'
                    | b'}'
                    | b'['
                    | b']'
                    | b','
                    | b';'
                    | b'&'
            )
    };
    let run = value.iter().take(max + 1).take_while(in_value).count();
    if run < min {
        return false;
    }
    if value[min..run].contains(&b'#') {
        return true;
    }
    run <= max
        && matches!(
            value[run..].iter().find(|b| !matches!(b, b' ' | b'\t')),
            None | Some(b'#' | b'\r' | b'\n')
        )
}
