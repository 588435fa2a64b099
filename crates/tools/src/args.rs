//! Typed arguments: each tool deserialises its JSON object into a plain struct, so a missing
//! or mistyped field becomes one clear [`ToolError::InvalidArguments`]. Unknown fields are
//! ignored: models add extras and refusing them would only waste a turn.

use std::path::{Path, PathBuf};

use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::ToolError;

pub(crate) fn parse<T: DeserializeOwned>(
    tool: &str,
    args: &Map<String, Value>,
) -> Result<T, ToolError> {
    serde_json::from_value(Value::Object(args.clone()))
        .map_err(|e| ToolError::invalid(tool, e.to_string()))
}

/// A string argument the model wrote, checked: `Ok(None)` when it is empty (not given), an
/// error when it is only whitespace (a value that looks given but says nothing), longer than
/// `max` bytes, or holds a NUL byte (no program or path can take one).
pub(crate) fn text<'v>(name: &str, value: &'v str, max: usize) -> Result<Option<&'v str>, String> {
    if value.is_empty() {
        return Ok(None);
    }
    if value.trim().is_empty() {
        return Err(format!("`{name}` is blank"));
    }
    if value.len() > max {
        return Err(format!(
            "`{name}` is longer than {max} bytes ({} bytes)",
            value.len()
        ));
    }
    if value.contains('\0') {
        return Err(format!("`{name}` holds a NUL byte"));
    }
    Ok(Some(value))
}

/// Resolves a path the model wrote: `~` is the home directory, absolute paths stay as they
/// are, anything else (including `..` and the empty path) is relative to `working_dir`.
pub(crate) fn resolve(working_dir: &Path, given: &str) -> PathBuf {
    let home = std::env::var_os("HOME").map(PathBuf::from);
    resolve_in(working_dir, given, home.as_deref())
}

pub(crate) fn resolve_in(working_dir: &Path, given: &str, home: Option<&Path>) -> PathBuf {
    let expanded = match (given.strip_prefix('~'), home) {
        (Some(""), Some(home)) => Some(home.to_path_buf()),
        (Some(rest), Some(home)) if rest.starts_with('/') => Some(home.join(&rest[1..])),
        _ => None,
    };
    let path = expanded.unwrap_or_else(|| PathBuf::from(given));
    if path.is_absolute() {
        path
    } else {
        working_dir.join(path)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_resolve_against_the_working_directory_unless_absolute() {
        let wd = Path::new("/work/dir");
        let cases = [
            ("a.txt", "/work/dir/a.txt"),
            ("sub/b.txt", "/work/dir/sub/b.txt"),
            ("../up.txt", "/work/dir/../up.txt"),
            ("", "/work/dir/"),
            (".", "/work/dir/."),
            ("/etc/hosts", "/etc/hosts"),
        ];
        for (given, want) in cases {
            assert_eq!(resolve(wd, given), PathBuf::from(want), "{given}");
        }
    }

    #[test]
    fn text_arguments_refuse_blank_huge_and_nul_values() {
        assert_eq!(text("path", "", 8), Ok(None));
        assert_eq!(text("path", "a b", 8), Ok(Some("a b")));
        assert_eq!(text("path", " \t\n", 8), Err("`path` is blank".to_owned()));
        assert_eq!(
            text("path", "123456789", 8),
            Err("`path` is longer than 8 bytes (9 bytes)".to_owned())
        );
        assert_eq!(
            text("path", "a\0b", 8),
            Err("`path` holds a NUL byte".to_owned())
        );
    }

    #[test]
    fn a_tilde_is_the_home_directory() {
        let wd = Path::new("/work/dir");
        let home = Some(Path::new("/home/me"));
        let cases = [
            ("~", "/home/me"),
            ("~/notes.md", "/home/me/notes.md"),
            ("~user/x", "/work/dir/~user/x"),
        ];
        for (given, want) in cases {
            assert_eq!(resolve_in(wd, given, home), PathBuf::from(want), "{given}");
        }
        assert_eq!(resolve_in(wd, "~/x", None), PathBuf::from("/work/dir/~/x"));
    }
}
