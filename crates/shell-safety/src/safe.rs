//! The read-only set: commands that pass silently.
//!
//! A command is here only if it cannot change anything with the arguments given: `sort` is
//! safe but `sort -o file` is not; `git branch` lists but `git branch -D x` deletes; `tail` reads
//! but `tail -f` never ends. Output redirections are judged separately (a read-only command
//! writing `> file` is not safe), and destructive rules run first, so reading a credential file
//! with `cat` is caught before it gets here. The set is a declarative table and may grow.

use crate::paths;
use crate::rules::Args;
use crate::rules::containers::{compose_read_only, docker_read_only, kubectl_read_only};
use crate::rules::vcs::git_read_only;

/// Read-only whatever their arguments.
const ALWAYS: &[&str] = &[
    ":",
    "[",
    "arch",
    "b2sum",
    "base32",
    "base64",
    "basename",
    "break",
    "cal",
    "cat",
    "cd",
    "cksum",
    "cmp",
    "column",
    "comm",
    "continue",
    "cut",
    "declare",
    "df",
    "diff",
    "diff3",
    "dirname",
    "dirs",
    "du",
    "echo",
    "egrep",
    "exit",
    "expand",
    "export",
    "expr",
    "false",
    "fgrep",
    "file",
    "fold",
    "free",
    "getent",
    "getopts",
    "grep",
    "groups",
    "hash",
    "head",
    "help",
    "hexdump",
    "id",
    "join",
    "jq",
    "local",
    "locale",
    "locate",
    "look",
    "ls",
    "lsattr",
    "lsblk",
    "lscpu",
    "lsof",
    "lspci",
    "lsusb",
    "md5sum",
    "mdfind",
    "mktemp",
    "namei",
    "netstat",
    "nl",
    "nm",
    "nproc",
    "numfmt",
    "objdump",
    "od",
    "paste",
    "pgrep",
    "pidof",
    "popd",
    "printenv",
    "printf",
    "ps",
    "pushd",
    "pwd",
    "read",
    "readelf",
    "readlink",
    "readonly",
    "realpath",
    "return",
    "rev",
    "rg",
    "ag",
    "ack",
    "sdiff",
    "seq",
    "set",
    "sha1sum",
    "sha224sum",
    "sha256sum",
    "sha384sum",
    "sha512sum",
    "shasum",
    "shift",
    "shopt",
    "size",
    "sleep",
    "ss",
    "stat",
    "strings",
    "sum",
    "tac",
    "test",
    "times",
    "tr",
    "tree",
    "true",
    "tty",
    "type",
    "typeset",
    "ulimit",
    "umask",
    "uname",
    "unexpand",
    "unset",
    "uptime",
    "vmstat",
    "iostat",
    "w",
    "wait",
    "wc",
    "whereis",
    "which",
    "who",
    "whoami",
    "history",
];

/// Tools whose version query is read-only (`node --version`).
const VERSION_ONLY: &[&str] = &[
    "python",
    "python2",
    "python3",
    "node",
    "nodejs",
    "ruby",
    "perl",
    "rustc",
    "java",
    "javac",
    "gcc",
    "g++",
    "cc",
    "clang",
    "clang++",
    "make",
    "cmake",
    "deno",
    "bun",
    "tsc",
    "uv",
    "poetry",
    "bash",
    "sh",
    "zsh",
    "dotnet",
    "swift",
    "kotlin",
    "php",
    "lua",
    "terraform",
    "helm",
    "gh",
    "pipx",
    "yarn",
    "pnpm",
    "npx",
    "gradle",
    "mvn",
    "ninja",
    "meson",
    "protoc",
    "ffmpeg",
    "curl",
    "wget",
    "openssl",
    "ssh",
    "rsync",
    "tar",
    "zip",
    "unzip",
    "sed",
    "awk",
    "gawk",
];

/// Whether `name args…` (wrappers already peeled) is read-only.
pub(crate) fn is_safe(name: &str, args: Args<'_>) -> bool {
    if ALWAYS.contains(&name) {
        return true;
    }
    if VERSION_ONLY.contains(&name) && is_version_query(args) {
        return true;
    }
    match name {
        "tail" => !args.flag('f', "follow") && !args.short('F') && !args.long("retry"),
        "top" => args.short('n') || args.has_prefix("--iterations"),
        "date" => !args.flag('s', "set") && args.operands().iter().all(|w| w.text.starts_with('+')),
        "hostname" => args.operands().is_empty(),
        "sort" => !args.flag('o', "output"),
        "uniq" => args.operands().len() <= 1,
        "xxd" => !args.short('r') && args.operands().len() <= 1,
        "find" => find_is_read_only(args),
        "tee" => args
            .operands()
            .iter()
            .all(|w| paths::is_harmless_sink(&w.text)),
        "yq" => !args.flag('i', "inplace"),
        "git" => git_read_only(args),
        "docker" | "podman" | "nerdctl" => docker_read_only(args),
        "docker-compose" | "podman-compose" => compose_read_only(args),
        "kubectl" | "oc" | "k" => kubectl_read_only(args),
        "cargo" => cargo(args),
        "go" => go(args),
        "npm" => npm(args),
        "pip" | "pip3" => first_is(
            args,
            &[
                "list", "show", "freeze", "check", "debug", "inspect", "index",
            ],
        ),
        "rustup" => rustup(args),
        "systemctl" => first_is(
            args,
            &[
                "status",
                "is-active",
                "is-enabled",
                "is-failed",
                "list-units",
                "list-unit-files",
                "list-timers",
                "list-sockets",
                "show",
                "cat",
            ],
        ),
        "journalctl" => {
            !args.flag('f', "follow")
                && !args.has_prefix("--vacuum")
                && ![
                    "--rotate",
                    "--flush",
                    "--sync",
                    "--relinquish-var",
                    "--setup-keys",
                ]
                .iter()
                .any(|f| args.has(f))
        }
        "ip" => !args.operands().iter().any(|w| {
            matches!(
                w.text.as_str(),
                "add"
                    | "del"
                    | "delete"
                    | "set"
                    | "flush"
                    | "change"
                    | "replace"
                    | "append"
                    | "prepend"
                    | "exec"
                    | "save"
                    | "restore"
            )
        }),
        _ => false,
    }
}

fn is_version_query(args: Args<'_>) -> bool {
    matches!(
        args.words(),
        [only] if matches!(only.text.as_str(), "--version" | "-V" | "-v" | "-version" | "version")
    )
}

/// `find` without actions that delete, execute or write files.
pub(crate) fn find_is_read_only(args: Args<'_>) -> bool {
    !args.words().iter().any(|w| {
        matches!(
            w.text.as_str(),
            "-delete"
                | "-exec"
                | "-execdir"
                | "-ok"
                | "-okdir"
                | "-fprint"
                | "-fprint0"
                | "-fprintf"
                | "-fls"
        )
    })
}

fn first_is(args: Args<'_>, allowed: &[&str]) -> bool {
    args.subcommand()
        .is_some_and(|(sub, _)| allowed.contains(&sub))
        || is_version_query(args)
}

/// Builds and tests write only to `target/` and are what an agent runs all day; `fmt` and
/// `clippy --fix` rewrite sources, so they need their read-only flags.
fn cargo(args: Args<'_>) -> bool {
    let words = args.words();
    let start = usize::from(words.first().is_some_and(|w| w.text.starts_with('+')));
    let args = Args(&words[start..]);
    if is_version_query(args) {
        return true;
    }
    let Some((sub, rest)) = args.subcommand() else {
        return false;
    };
    match sub {
        "check" | "c" | "build" | "b" | "test" | "t" | "doc" | "d" | "tree" | "metadata"
        | "version" | "search" | "info" | "locate-project" | "pkgid" | "verify-project"
        | "read-manifest" | "nextest" | "bench" => true,
        "clippy" => !rest.long("fix"),
        "fmt" => rest.long("check"),
        _ => false,
    }
}

fn go(args: Args<'_>) -> bool {
    match args.subcommand() {
        Some(("env", rest)) => !rest.short('w') && !rest.short('u'),
        Some((sub, _)) => matches!(sub, "version" | "list" | "vet" | "doc" | "build" | "test"),
        None => false,
    }
}

fn npm(args: Args<'_>) -> bool {
    if is_version_query(args) {
        return true;
    }
    match args.subcommand() {
        Some(("config", rest)) => rest
            .subcommand()
            .is_some_and(|(s, _)| matches!(s, "get" | "list" | "ls")),
        Some(("audit", rest)) => !rest.has("fix"),
        Some((sub, _)) => matches!(
            sub,
            "ls" | "list"
                | "ll"
                | "la"
                | "view"
                | "info"
                | "show"
                | "v"
                | "outdated"
                | "root"
                | "prefix"
                | "bin"
                | "search"
                | "explain"
                | "why"
                | "help"
        ),
        None => false,
    }
}

fn rustup(args: Args<'_>) -> bool {
    if is_version_query(args) {
        return true;
    }
    match args.subcommand() {
        Some(("toolchain" | "target" | "component", rest)) => {
            rest.subcommand().is_some_and(|(s, _)| s == "list")
        }
        Some((sub, _)) => matches!(sub, "show" | "which"),
        None => false,
    }
}
