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
use crate::word::Word;

/// Read-only whatever their arguments.
const ALWAYS: &[&str] = &[
    ":",
    "arch",
    "b2sum",
    "base32",
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
    "df",
    "diff",
    "dirname",
    "dirs",
    "du",
    "echo",
    "egrep",
    "exit",
    "expand",
    "expr",
    "false",
    "fgrep",
    "fold",
    "free",
    "getent",
    "grep",
    "groups",
    "head",
    "help",
    "hexdump",
    "id",
    "join",
    "jq",
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
    "nproc",
    "numfmt",
    "objdump",
    "od",
    "paste",
    "pgrep",
    "pidof",
    "popd",
    "printenv",
    "ps",
    "pushd",
    "pwd",
    "readelf",
    "readlink",
    "realpath",
    "return",
    "rev",
    "seq",
    "sha1sum",
    "sha224sum",
    "sha256sum",
    "sha384sum",
    "sha512sum",
    "shasum",
    "shift",
    "size",
    "sleep",
    "stat",
    "strings",
    "sum",
    "tac",
    "times",
    "tr",
    "true",
    "tty",
    "type",
    "ulimit",
    "umask",
    "uname",
    "unexpand",
    "uptime",
    "vmstat",
    "iostat",
    "w",
    "wc",
    "whereis",
    "which",
    "who",
    "whoami",
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

/// Whether `name` reads only, whatever its arguments (used where arguments are appended at
/// run time, as `xargs` does).
pub(crate) fn takes_any_arguments(name: &str) -> bool {
    ALWAYS.contains(&name)
}

/// Whether `name args…` (wrappers already peeled) is read-only. `unknown` says whether an
/// expansion may hold anything at run time (attacker text); such a word, or a glob, where an
/// option could be makes every command outside [`ALWAYS`] ask, since its safety rests on the
/// options it is given (`rg $x foo` with `x=--pre=sh`).
pub(crate) fn is_safe(name: &str, args: Args<'_>, unknown: &dyn Fn(&Word) -> bool) -> bool {
    if ALWAYS.contains(&name) {
        return true;
    }
    if args.hides_option(unknown) {
        return false;
    }
    if VERSION_ONLY.contains(&name) && is_version_query(args) {
        return true;
    }
    match name {
        "tail" => {
            !args.flag_prefix('f', "follow")
                && !args.short_strict('F')
                && !args.long_prefix("retry")
        }
        "top" => args.short('n') || args.long_prefix("iterations"),
        "date" => {
            !args.flag_prefix('s', "set")
                && !args.hides_operands(unknown)
                && args.operands().iter().all(|w| w.text.starts_with('+'))
        }
        "hostname" => {
            !args.short_strict('F')
                && !args.long_prefix("file")
                && !args.hides_operands(unknown)
                && args.operands().is_empty()
        }
        "sort" => !args.flag_prefix('o', "output") && !args.long_prefix("compress-program"),
        // A second operand is the output file.
        "uniq" => !args.hides_operands(unknown) && args.operands().len() <= 1,
        "xxd" => {
            !args.short_strict('r') && !args.hides_operands(unknown) && args.operands().len() <= 1
        }
        "find" => find_is_read_only(args),
        "tee" => args
            .operands()
            .iter()
            .all(|w| paths::is_harmless_sink(&w.text)),
        // mikefarah's `--inplace` and `--split-exp` (writes one file per result), kislyuk's
        // `--in-place`.
        "yq" => {
            !args.flag_prefix('i', "inplace")
                && !args.long_prefix("in-place")
                && !args.flag_prefix('s', "split-exp")
        }
        "rg" => !args.long_prefix("pre") && !args.long_prefix("hostname-bin"),
        "ag" => !args.long_prefix("pager"),
        "ack" => !["pager", "output", "ackrc"]
            .iter()
            .any(|o| args.long_prefix(o)),
        "sdiff" => !args.flag_prefix('o', "output") && !args.long_prefix("diff-program"),
        "diff3" => !args.long_prefix("diff-program"),
        // `-o FILE` writes the listing; `-R` writes `00Tree.html` into every directory.
        "tree" => !args.short_strict('o') && !args.short_strict('R') && !args.long_prefix("output"),
        // `-C` writes a compiled magic file.
        "file" => !args.flag_prefix('C', "compile"),
        "nm" => !args.long_prefix("plugin"),
        // BSD `base64 -o FILE`.
        "base64" => !args.flag_prefix('o', "output"),
        // `-K` kills sockets; `-D FILE` dumps to a file.
        "ss" => !args.flag_prefix('K', "kill") && !args.flag_prefix('D', "diag"),
        // `hash -p PATH NAME` makes `NAME` run `PATH`.
        "hash" => !args.short_strict('p'),
        // `set -k` (or `shopt -o keyword`) turns every later `NAME=value` argument into the
        // command's environment.
        "set" => !args.short_strict('k') && !args.has("keyword"),
        "shopt" => !args.has("keyword"),
        // `history -w FILE` and friends write files; a count only lists.
        "history" => match args.words() {
            [] => true,
            [count] => !count.text.is_empty() && count.text.bytes().all(|b| b.is_ascii_digit()),
            _ => false,
        },
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
            !args.short_strict('f')
                && ![
                    "follow",
                    "vacuum-size",
                    "vacuum-time",
                    "vacuum-files",
                    "rotate",
                    "flush",
                    "sync",
                    "relinquish-var",
                    "smart-relinquish-var",
                    "setup-keys",
                    "update-catalog",
                ]
                .iter()
                .any(|f| args.long_prefix(f))
        }
        // `ip -batch FILE` (any abbreviation, one or two dashes) runs the commands in FILE.
        "ip" => {
            let batch = args.words().iter().any(|w| {
                let bare = w.text.trim_start_matches('-');
                w.is_option() && !bare.is_empty() && "batch".starts_with(bare)
            });
            !batch
                && !args.operands().iter().any(|w| {
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
                })
        }
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
    // `--config` can name a wrapper or runner program; the directory options write outside
    // `target/`.
    if ["config", "target-dir", "artifact-dir", "out-dir"]
        .iter()
        .any(|o| args.long(o))
    {
        return false;
    }
    match sub {
        "check" | "c" | "build" | "b" | "test" | "t" | "doc" | "d" | "tree" | "metadata"
        | "version" | "search" | "info" | "locate-project" | "pkgid" | "verify-project"
        | "read-manifest" | "nextest" | "bench" => true,
        "clippy" => !rest.long("fix"),
        "fmt" => rest.long("check"),
        _ => false,
    }
}

/// `go build`/`test`/`vet` flags that run another program or write a file where asked.
const GO_FLAGS_THAT_RUN_OR_WRITE: &[&str] = &[
    "o",
    "toolexec",
    "exec",
    "vettool",
    "modfile",
    "outputdir",
    "coverprofile",
    "cpuprofile",
    "memprofile",
    "blockprofile",
    "mutexprofile",
    "trace",
];

fn go(args: Args<'_>) -> bool {
    let runs_or_writes = args.words().iter().any(|w| {
        let bare = w.text.trim_start_matches('-');
        let name = bare.split_once('=').map_or(bare, |(n, _)| n);
        w.is_option() && GO_FLAGS_THAT_RUN_OR_WRITE.contains(&name)
    });
    if runs_or_writes {
        return false;
    }
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
