//! `file://` URIs for paths, and back; the language id a document is opened with.

use std::path::{Path, PathBuf};

/// The `file://` URI of an absolute path, bytes outside the unreserved set percent-encoded.
pub(crate) fn from_path(path: &Path) -> String {
    use std::os::unix::ffi::OsStrExt;
    let mut out = String::from("file://");
    for &b in path.as_os_str().as_bytes() {
        if b.is_ascii_alphanumeric() || b"/-._~".contains(&b) {
            out.push(char::from(b));
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}

/// The path of a `file://` URI; `None` for any other scheme or a malformed escape.
pub(crate) fn to_path(uri: &str) -> Option<PathBuf> {
    use std::os::unix::ffi::OsStringExt;
    let rest = uri.strip_prefix("file://")?;
    // `file://localhost/…` and `file:///…` are the same file.
    let rest = rest.strip_prefix("localhost").unwrap_or(rest);
    if !rest.starts_with('/') {
        return None;
    }
    let bytes = rest.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' {
            let hex = std::str::from_utf8(bytes.get(i + 1..i + 3)?).ok()?;
            out.push(u8::from_str_radix(hex, 16).ok()?);
            i += 3;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    if out.contains(&0) {
        return None;
    }
    Some(PathBuf::from(std::ffi::OsString::from_vec(out)))
}

/// What a URI is shown as: its path when it is a file.
pub(crate) fn display(uri: &str) -> String {
    to_path(uri).map_or_else(|| uri.to_owned(), |p| p.display().to_string())
}

/// The LSP language id of a file, by its extension or name (`plaintext` when unknown).
pub(crate) fn language_id(path: &Path) -> &'static str {
    const BY_EXTENSION: &[(&str, &str)] = &[
        ("go", "go"),
        ("py", "python"),
        ("pyi", "python"),
        ("js", "javascript"),
        ("mjs", "javascript"),
        ("cjs", "javascript"),
        ("jsx", "javascriptreact"),
        ("ts", "typescript"),
        ("mts", "typescript"),
        ("cts", "typescript"),
        ("tsx", "typescriptreact"),
        ("rs", "rust"),
        ("c", "c"),
        ("h", "c"),
        ("cpp", "cpp"),
        ("cc", "cpp"),
        ("cxx", "cpp"),
        ("hpp", "cpp"),
        ("hh", "cpp"),
        ("java", "java"),
        ("rb", "ruby"),
        ("php", "php"),
        ("cs", "csharp"),
        ("swift", "swift"),
        ("kt", "kotlin"),
        ("kts", "kotlin"),
        ("scala", "scala"),
        ("lua", "lua"),
        ("sh", "shellscript"),
        ("bash", "shellscript"),
        ("zsh", "shellscript"),
        ("ps1", "powershell"),
        ("sql", "sql"),
        ("html", "html"),
        ("htm", "html"),
        ("css", "css"),
        ("scss", "scss"),
        ("less", "less"),
        ("json", "json"),
        ("yaml", "yaml"),
        ("yml", "yaml"),
        ("toml", "toml"),
        ("xml", "xml"),
        ("md", "markdown"),
        ("vue", "vue"),
        ("svelte", "svelte"),
        ("ex", "elixir"),
        ("exs", "elixir"),
        ("erl", "erlang"),
        ("hs", "haskell"),
        ("ml", "ocaml"),
        ("dart", "dart"),
        ("zig", "zig"),
        ("tf", "terraform"),
    ];
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    match name.as_str() {
        "dockerfile" => return "dockerfile",
        "makefile" | "gnumakefile" => return "makefile",
        _ => {}
    }
    let ext = path
        .extension()
        .map(|e| e.to_string_lossy().to_ascii_lowercase())
        .unwrap_or_default();
    BY_EXTENSION
        .iter()
        .find(|(e, _)| *e == ext)
        .map_or("plaintext", |(_, id)| id)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn paths_with_odd_bytes_survive_the_round_trip() {
        for p in ["/tmp/a b/c%d.py", "/x/ü/ä.sh", "/plain/file.ts"] {
            let uri = from_path(Path::new(p));
            assert!(uri.starts_with("file:///"), "{uri}");
            assert!(!uri[7..].contains(' '), "{uri}");
            assert_eq!(to_path(&uri).unwrap(), Path::new(p));
        }
        assert_eq!(to_path("file:///a%20b"), Some(PathBuf::from("/a b")));
        assert_eq!(to_path("file://localhost/a"), Some(PathBuf::from("/a")));
        assert_eq!(to_path("http://x/a"), None);
        assert_eq!(to_path("file:///a%2"), None);
        assert_eq!(to_path("file:///a%00b"), None);
        assert_eq!(to_path("file://host/a"), None);
    }

    #[test]
    fn the_language_id_comes_from_the_extension_or_the_name() {
        assert_eq!(language_id(Path::new("/a/b.PY")), "python");
        assert_eq!(language_id(Path::new("/a/run.sh")), "shellscript");
        assert_eq!(language_id(Path::new("/a/Dockerfile")), "dockerfile");
        assert_eq!(language_id(Path::new("/a/notes")), "plaintext");
    }
}
