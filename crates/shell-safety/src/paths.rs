//! What a path operand points at, for rating the blast radius of a write or a delete.
//!
//! The classifier never touches the filesystem (it must be pure and fast), so paths are judged
//! by their shape: `/`, `~`, `.` and `*` are everything; `/etc`, `/usr` and friends are the
//! system; `~/.ssh` and shell start-up files are credentials; `$DIR/` may be any of those at run
//! time (an empty variable turns `rm -rf "$DIR/"*` into `rm -rf /*`).

use crate::word::Word;

/// Kind of path, from harmless to everything.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Target {
    /// A relative path or one under a scratch directory.
    Ordinary,
    /// An ordinary path with a glob: may be many files.
    Glob,
    /// Under the home directory, not sensitive.
    HomeChild,
    /// Contains an expansion we could not resolve.
    Opaque,
    /// Credentials, shell start-up files, shell history.
    Sensitive,
    /// Operating-system directories (`/etc`, `/usr`, …) and top-level directories.
    System,
    /// A block device (`/dev/sda`, `/dev/nvme0n1`, `/dev/disk2`).
    Device,
    /// The root, a home directory, or the whole working directory (`.`, `..`, `*`).
    Critical,
}

const SYSTEM_DIRS: &[&str] = &[
    "bin",
    "boot",
    "dev",
    "etc",
    "lib",
    "lib32",
    "lib64",
    "libx32",
    "opt",
    "proc",
    "root",
    "sbin",
    "srv",
    "sys",
    "usr",
    "var",
    "System",
    "Library",
    "Applications",
    "private",
    "snap",
    "nix",
];

const SCRATCH_DIRS: &[&str] = &["tmp", "mnt", "media", "workspace", "work", "scratch"];

const BLOCK_DEVICES: &[&str] = &[
    "sd", "hd", "vd", "xvd", "nvme", "mmcblk", "disk", "rdisk", "md", "dm-", "loop", "mapper",
    "sr", "nbd", "zd",
];

/// Home entries holding credentials or configuration that runs code at login.
const SENSITIVE_HOME: &[&str] = &[
    ".ssh",
    ".aws",
    ".gnupg",
    ".kube",
    ".azure",
    ".netrc",
    ".git-credentials",
    ".docker",
    ".npmrc",
    ".pypirc",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".config/gcloud",
    ".config/gh",
    ".bashrc",
    ".bash_profile",
    ".bash_login",
    ".bash_logout",
    ".profile",
    ".zshrc",
    ".zprofile",
    ".zshenv",
    ".zlogin",
    ".config/fish",
    ".gitconfig",
];

/// Home entries whose contents are secrets (reading them leaks credentials).
const CREDENTIAL_HOME: &[&str] = &[
    ".ssh",
    ".aws",
    ".gnupg",
    ".kube",
    ".azure",
    ".netrc",
    ".git-credentials",
    ".docker/config.json",
    ".npmrc",
    ".pypirc",
    ".cargo/credentials",
    ".cargo/credentials.toml",
    ".config/gcloud",
    ".config/gh/hosts.yml",
];

const HISTORY_FILES: &[&str] = &[
    ".bash_history",
    ".zsh_history",
    ".history",
    ".sh_history",
    ".python_history",
    ".node_repl_history",
    ".psql_history",
    ".mysql_history",
    ".lesshst",
    ".local/share/fish/fish_history",
];

const CREDENTIAL_SYSTEM: &[&str] = &["etc/shadow", "etc/gshadow", "etc/sudoers", "etc/ssh"];

/// A path split into components, with `~`/`$HOME` and `..` resolved where possible.
struct Parsed<'a> {
    absolute: bool,
    home: bool,
    components: Vec<&'a str>,
}

fn parse(text: &str) -> Parsed<'_> {
    let (absolute, home, rest) = if let Some(rest) = strip_home(text) {
        (false, true, rest)
    } else if let Some(rest) = text.strip_prefix('/') {
        (true, false, rest)
    } else {
        (false, false, text)
    };
    let mut components: Vec<&str> = Vec::new();
    for part in rest.split('/') {
        match part {
            "" | "." | "*" | ".*" => {}
            ".." if components.last().is_some_and(|c| *c != "..") => {
                components.pop();
            }
            ".." if absolute || home => {}
            other => components.push(other),
        }
    }
    // `/home/alice/x` is the same as `~/x` for our purposes.
    let mut parsed = Parsed {
        absolute,
        home,
        components,
    };
    if parsed.absolute {
        match parsed.components.as_slice() {
            ["home" | "Users", _, ..] => {
                parsed.components.drain(..2);
                parsed.absolute = false;
                parsed.home = true;
            }
            ["root", ..] => {
                parsed.components.drain(..1);
                parsed.absolute = false;
                parsed.home = true;
            }
            _ => {}
        }
    }
    parsed
}

fn strip_home(text: &str) -> Option<&str> {
    for prefix in ["~", "$HOME", "${HOME}"] {
        if let Some(rest) = text.strip_prefix(prefix)
            && (rest.is_empty() || rest.starts_with('/'))
        {
            return Some(rest);
        }
    }
    // `~alice` is another user's home.
    if text.starts_with('~') && !text.contains('/') {
        return Some("");
    }
    None
}

/// Whether `components` start with one of `entries` (written `a/b`), compared part by part
/// without allocating: this runs for every path operand.
fn under(components: &[&str], entries: &[&str]) -> bool {
    entries.iter().any(|entry| {
        let mut rest = components.iter();
        entry.split('/').all(|part| rest.next() == Some(&part))
    })
}

/// Classifies one path operand.
pub(crate) fn classify(word: &Word) -> Target {
    let text = word.text.as_str();
    let parsed = parse(text);
    // `$HOME/x` is resolved above; anything else opaque (`$DIR`, a `{}` placeholder) is
    // unknown until run time.
    let resolved_home = parsed.home && !parsed.components.iter().any(|c| c.contains(['$', '`']));
    if word.opaque && !resolved_home {
        return Target::Opaque;
    }
    let components = parsed.components.as_slice();
    if parsed.home {
        return if components.is_empty() {
            Target::Critical
        } else if under(components, SENSITIVE_HOME) || under(components, HISTORY_FILES) {
            Target::Sensitive
        } else {
            Target::HomeChild
        };
    }
    if parsed.absolute {
        return match components {
            [] => Target::Critical,
            ["dev", device, ..] if BLOCK_DEVICES.iter().any(|p| device.starts_with(p)) => {
                Target::Device
            }
            [first, ..] if SCRATCH_DIRS.contains(first) => {
                if components.len() == 1 {
                    Target::System
                } else if word.glob {
                    Target::Glob
                } else {
                    Target::Ordinary
                }
            }
            ["var", "tmp", _, ..] => Target::Ordinary,
            [first, ..] if SYSTEM_DIRS.contains(first) => Target::System,
            [_] => Target::System,
            _ if word.glob => Target::Glob,
            _ => Target::Ordinary,
        };
    }
    if components.is_empty() || components.iter().all(|c| *c == "..") {
        return Target::Critical;
    }
    if word.glob {
        Target::Glob
    } else {
        Target::Ordinary
    }
}

/// `/tmp`, `/var/tmp` and what is under them.
pub(crate) fn is_scratch(word: &Word) -> bool {
    let parsed = parse(&word.text);
    parsed.absolute
        && matches!(
            parsed.components.as_slice(),
            ["tmp", ..] | ["var", "tmp", ..]
        )
}

/// Output sinks that lose or pass through data without touching a file.
pub(crate) fn is_harmless_sink(text: &str) -> bool {
    matches!(
        text,
        "/dev/null" | "/dev/stdout" | "/dev/stderr" | "/dev/tty" | "/dev/zero" | "/dev/full"
    ) || text
        .strip_prefix("/dev/fd/")
        .is_some_and(|fd| fd.chars().all(|c| c.is_ascii_digit()))
}

/// Shell history files (`~/.bash_history`, …).
pub(crate) fn is_history_file(word: &Word) -> bool {
    let parsed = parse(&word.text);
    parsed.home && under(&parsed.components, HISTORY_FILES)
}

/// Files whose contents are secrets (`~/.ssh/id_ed25519`, `~/.aws/credentials`, `/etc/shadow`).
pub(crate) fn is_credential_file(word: &Word) -> bool {
    let parsed = parse(&word.text);
    (parsed.home && under(&parsed.components, CREDENTIAL_HOME))
        || (parsed.absolute && under(&parsed.components, CREDENTIAL_SYSTEM))
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    fn target(text: &str) -> Target {
        let mut word = Word::literal(text);
        word.opaque = text.contains('$');
        word.glob = text.contains('*');
        classify(&word)
    }

    #[test]
    fn paths_are_rated_by_shape() {
        let cases = [
            ("/", Target::Critical),
            ("/*", Target::Critical),
            ("//", Target::Critical),
            ("~", Target::Critical),
            ("~/", Target::Critical),
            ("$HOME", Target::Critical),
            ("${HOME}/*", Target::Critical),
            ("/home/alice", Target::Critical),
            (".", Target::Critical),
            ("./*", Target::Critical),
            ("*", Target::Critical),
            ("..", Target::Critical),
            ("/etc", Target::System),
            ("/etc/passwd", Target::System),
            ("/usr/local/bin/x", Target::System),
            ("/tmp/../etc", Target::System),
            ("/data", Target::System),
            ("/tmp", Target::System),
            ("/tmp/build", Target::Ordinary),
            ("/var/tmp/x", Target::Ordinary),
            ("/dev/sda", Target::Device),
            ("/dev/nvme0n1p1", Target::Device),
            ("~/.ssh", Target::Sensitive),
            ("~/.ssh/authorized_keys", Target::Sensitive),
            ("/home/bob/.bashrc", Target::Sensitive),
            ("~/projects/x", Target::HomeChild),
            ("$DIR", Target::Opaque),
            ("$DIR/*", Target::Opaque),
            ("build", Target::Ordinary),
            ("src/*.rs", Target::Glob),
            ("../x", Target::Ordinary),
        ];
        let got: Vec<(&str, Target)> = cases.iter().map(|(p, _)| (*p, target(p))).collect();
        assert_eq!(got, cases.to_vec());
    }

    #[test]
    fn sinks_history_and_credentials_are_recognised() {
        assert!(is_harmless_sink("/dev/null"));
        assert!(is_harmless_sink("/dev/fd/2"));
        assert!(!is_harmless_sink("/dev/sda"));
        assert!(is_history_file(&Word::literal("~/.bash_history")));
        assert!(!is_history_file(&Word::literal("history.txt")));
        assert!(is_credential_file(&Word::literal("~/.ssh/id_rsa")));
        assert!(is_credential_file(&Word::literal("/etc/shadow")));
        assert!(!is_credential_file(&Word::literal("~/.bashrc")));
    }
}
