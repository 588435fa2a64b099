//! Git (and the GitHub CLI): which operations lose work and which only read.
//!
//! Git keeps almost everything recoverable through the reflog; what it cannot bring back is
//! uncommitted work (`reset --hard`, `checkout -- .`, `clean -fdx`), other people's commits on a
//! remote (`push --force`) and history once rewritten and pruned. Radii follow that line.

use super::{Args, Hit, render};
use crate::BlastRadius::{High, Low, Medium};
use crate::paths::{self, Target};

pub(super) fn check(name: &str, args: Args<'_>) -> Option<Hit> {
    match name {
        "git" => {
            let (sub, rest) = git_subcommand(args)?;
            git(sub, rest)
        }
        "gh" => gh(args),
        _ => None,
    }
}

/// Skips git's global options (`-C dir`, `-c k=v`, `--no-pager`, …) and returns the
/// subcommand with its arguments.
pub(crate) fn git_subcommand(args: Args<'_>) -> Option<(&str, Args<'_>)> {
    let words = args.words();
    let mut i = 0;
    while let Some(word) = words.get(i) {
        let text = word.text.as_str();
        match text {
            "-C" | "-c" | "--git-dir" | "--work-tree" | "--namespace" | "--super-prefix"
            | "--config-env" | "--exec-path" => i += 2,
            _ if text.starts_with('-') => i += 1,
            _ => return Some((text, Args(&words[i + 1..]))),
        }
    }
    None
}

fn git(sub: &str, args: Args<'_>) -> Option<Hit> {
    let shown = || format!("`{}`", render(&format!("git {sub}"), args));
    let hit = match sub {
        "reset" if args.long("hard") => Hit::new(
            High,
            "git-discard",
            format!("{} discards uncommitted changes", shown()),
        ),
        "clean" => {
            if args.flag('n', "dry-run") {
                return None;
            }
            let radius = if args.short('x') || args.short('X') {
                High
            } else {
                Medium
            };
            Hit::new(
                radius,
                "git-clean",
                format!("{} deletes untracked files", shown()),
            )
        }
        "push" => return push(args, shown),
        "branch" => {
            let force_delete =
                args.short('D') || (args.flag('d', "delete") && args.flag('f', "force"));
            if force_delete {
                Hit::new(
                    Medium,
                    "git-branch-delete",
                    format!("{} deletes unmerged branches", shown()),
                )
            } else if args.flag('d', "delete") {
                Hit::new(Low, "git-branch-delete", shown())
            } else {
                return None;
            }
        }
        "checkout" => {
            let words = args.words();
            let paths_after_dashes = words
                .iter()
                .position(|w| w.text == "--")
                .map(|pos| &words[pos + 1..])
                .filter(|rest| !rest.is_empty());
            let whole_tree = args.operands().iter().any(|w| covers_tree(w));
            if args.flag('f', "force") || whole_tree {
                Hit::new(
                    High,
                    "git-discard",
                    format!("{} discards uncommitted changes", shown()),
                )
            } else if paths_after_dashes.is_some() {
                Hit::new(
                    Medium,
                    "git-discard",
                    format!("{} discards changes to files", shown()),
                )
            } else {
                return None;
            }
        }
        "restore" => {
            let worktree = args.flag('W', "worktree") || !args.flag('S', "staged");
            if !worktree {
                return None;
            }
            let operands = args.operands();
            let radius = if operands.iter().any(|w| covers_tree(w)) {
                High
            } else {
                Medium
            };
            Hit::new(
                radius,
                "git-discard",
                format!("{} discards uncommitted changes", shown()),
            )
        }
        "switch" if args.flag('f', "force") || args.long("discard-changes") => Hit::new(
            High,
            "git-discard",
            format!("{} discards uncommitted changes", shown()),
        ),
        "stash" => match args.subcommand().map(|(s, _)| s) {
            Some("clear") => Hit::new(
                High,
                "git-stash-drop",
                format!("{} deletes every stash", shown()),
            ),
            Some("drop") => Hit::new(Medium, "git-stash-drop", shown()),
            _ => return None,
        },
        "filter-branch" | "filter-repo" => Hit::new(
            High,
            "git-history-rewrite",
            format!("{} rewrites history", shown()),
        ),
        "reflog" => match args.subcommand().map(|(s, _)| s) {
            Some("expire") => {
                let now = args.has_prefix("--expire=now")
                    || args.has_prefix("--expire-unreachable=now")
                    || args.has("--expire=all");
                let radius = if now { High } else { Medium };
                Hit::new(radius, "git-history-prune", shown())
            }
            Some("delete") => Hit::new(Medium, "git-history-prune", shown()),
            _ => return None,
        },
        "gc" if args.has("--prune=now") || args.has("--prune=all") => {
            Hit::new(Medium, "git-history-prune", shown())
        }
        "update-ref" if args.short('d') => Hit::new(Medium, "git-ref-delete", shown()),
        "tag" if args.flag('d', "delete") => Hit::new(Low, "git-ref-delete", shown()),
        "rm" => {
            if args.long("cached") {
                return None;
            }
            let recursive = args.short('r');
            let radius = if recursive && args.operands().iter().any(|w| covers_tree(w)) {
                High
            } else if args.flag('f', "force") || recursive {
                Medium
            } else {
                Low
            };
            Hit::new(radius, "fs-delete", shown())
        }
        "worktree" => match args.subcommand() {
            Some(("remove", rest)) if rest.flag('f', "force") => {
                Hit::new(Medium, "git-discard", shown())
            }
            _ => return None,
        },
        "remote" => match args.subcommand().map(|(s, _)| s) {
            Some("remove" | "rm") => Hit::new(Low, "git-remote-delete", shown()),
            _ => return None,
        },
        "submodule" if args.has("deinit") && args.flag('f', "force") => {
            Hit::new(Medium, "git-discard", shown())
        }
        _ => return None,
    };
    Some(hit)
}

fn push(args: Args<'_>, shown: impl Fn() -> String) -> Option<Hit> {
    let operands = args.operands();
    let plus_refspec = operands.iter().any(|w| w.text.starts_with('+'));
    if args.flag('f', "force") || plus_refspec || args.long("mirror") {
        return Some(Hit::new(
            High,
            "git-force-push",
            format!("{} overwrites remote history", shown()),
        ));
    }
    if args.long("force-with-lease") || args.long("force-if-includes") {
        return Some(Hit::new(
            Medium,
            "git-force-push",
            format!("{} overwrites remote history", shown()),
        ));
    }
    let deletes = args.flag('d', "delete")
        || args.long("prune")
        || operands.iter().skip(1).any(|w| w.text.starts_with(':'));
    deletes.then(|| {
        Hit::new(
            Medium,
            "git-remote-delete",
            format!("{} deletes remote refs", shown()),
        )
    })
}

/// `.`, `*`, `:/` or the repository root: the whole working tree.
fn covers_tree(word: &crate::word::Word) -> bool {
    matches!(word.text.as_str(), ":/" | ":" | "-A") || paths::classify(word) == Target::Critical
}

fn gh(args: Args<'_>) -> Option<Hit> {
    let (group, rest) = args.subcommand()?;
    let (action, _) = rest.subcommand()?;
    let shown = format!("`{}`", render("gh", args));
    match (group, action) {
        ("repo", "delete") => Some(Hit::new(High, "repo-delete", shown)),
        ("repo", "archive") => Some(Hit::new(Medium, "repo-delete", shown)),
        (
            "release" | "gist" | "secret" | "variable" | "ssh-key" | "gpg-key" | "label" | "cache"
            | "run",
            "delete",
        ) => Some(Hit::new(Medium, "repo-delete", shown)),
        ("api", _)
            if rest.has("DELETE") || rest.has_prefix("--method=DELETE") || rest.has("-XDELETE") =>
        {
            Some(Hit::new(Medium, "repo-delete", shown))
        }
        _ => None,
    }
}

/// Whether a git command only reads (`status`, `log`, `branch` listing, `config --get`).
pub(crate) fn git_read_only(args: Args<'_>) -> bool {
    let Some((sub, rest)) = git_subcommand(args) else {
        return args.has("--version") || args.has("--help");
    };
    // `-c key=value` before the subcommand can define aliases and hooks that run anything.
    let globals = &args.words()[..args.words().len() - rest.words().len() - 1];
    // `--exec-path=DIR` makes git look for its helper programs in `DIR`.
    if globals.iter().any(|w| {
        w.text.starts_with("-c")
            || w.text.starts_with("--config-env")
            || w.text.starts_with("--exec-path=")
    }) {
        return false;
    }
    match sub {
        "status" | "blame" | "ls-files" | "ls-tree" | "rev-parse" | "rev-list" | "describe"
        | "shortlog" | "show-ref" | "merge-base" | "name-rev" | "count-objects"
        | "check-ignore" | "check-attr" | "for-each-ref" | "var" | "version" | "cherry"
        | "show-branch" | "verify-commit" | "verify-tag" => true,
        // `--upload-pack` (or its hidden alias `--exec`) names the program to run.
        "ls-remote" => !rest.long_prefix("upload-pack") && !rest.long_prefix("exec"),
        // Text conversion and smudge filters are programs.
        "cat-file" => !rest.long_prefix("textconv") && !rest.long_prefix("filters"),
        // `-O`/`--open-files-in-pager[=PAGER]` runs the pager on the matching files.
        "grep" => {
            !rest.short_strict('O')
                && !rest.long_prefix("open-files-in-pager")
                && !rest.long_prefix("textconv")
        }
        // `--web` starts a browser, `--info` the info reader.
        "help" => !rest.flag_prefix('w', "web") && !rest.flag_prefix('i', "info"),
        "diff" | "log" | "show" | "whatchanged" | "diff-tree" | "diff-files" | "diff-index"
        | "range-diff" => diff_read_only(rest),
        "branch" => git_branch_lists(rest),
        "tag" => {
            let mutating = rest.words().iter().any(|w| {
                matches!(
                    w.text.as_str(),
                    "-d" | "-a"
                        | "-s"
                        | "-f"
                        | "-m"
                        | "-F"
                        | "-u"
                        | "--delete"
                        | "--annotate"
                        | "--sign"
                        | "--force"
                        | "--message"
                        | "--file"
                )
            });
            !mutating && (rest.is_empty() || rest.flag('l', "list"))
        }
        "remote" => {
            rest.words()
                .iter()
                .all(|w| matches!(w.text.as_str(), "-v" | "--verbose"))
                || rest
                    .subcommand()
                    .is_some_and(|(s, _)| matches!(s, "show" | "get-url"))
        }
        "config" => git_config_reads(rest),
        "stash" => match rest.subcommand() {
            Some(("list", inner)) => diff_read_only(inner),
            Some(("show", inner)) => diff_read_only(inner),
            _ => false,
        },
        "worktree" => rest.subcommand().is_some_and(|(s, _)| s == "list"),
        "submodule" => {
            rest.is_empty()
                || rest
                    .subcommand()
                    .is_some_and(|(s, _)| matches!(s, "status" | "summary"))
        }
        "reflog" => rest
            .subcommand()
            .is_none_or(|(s, _)| matches!(s, "show" | "exists")),
        "notes" => rest
            .subcommand()
            .is_none_or(|(s, _)| matches!(s, "list" | "show")),
        _ => false,
    }
}

/// Diff options that write a file (`--output`) or run a configured program (`--ext-diff`,
/// `--textconv`), in full or abbreviated.
fn diff_read_only(rest: Args<'_>) -> bool {
    !["output", "ext-diff", "textconv"]
        .iter()
        .any(|o| rest.long_prefix(o))
}

fn git_branch_lists(rest: Args<'_>) -> bool {
    let mutating = rest.words().iter().any(|w| {
        let text = w.text.as_str();
        (w.is_option()
            && !text.starts_with("--")
            && text[1..].contains(['d', 'D', 'm', 'M', 'c', 'C', 'f', 'u', 't']))
            || [
                "--delete",
                "--move",
                "--copy",
                "--force",
                "--set-upstream-to",
                "--unset-upstream",
                "--edit-description",
                "--track",
                "--no-track",
                "--create-reflog",
            ]
            .iter()
            .any(|f| text.starts_with(f))
    });
    let listing = rest.flag('l', "list")
        || [
            "--contains",
            "--no-contains",
            "--merged",
            "--no-merged",
            "--points-at",
        ]
        .iter()
        .any(|f| rest.long(&f[2..]));
    !mutating && (rest.operands().is_empty() || listing)
}

fn git_config_reads(rest: Args<'_>) -> bool {
    let writes = [
        "--unset",
        "--unset-all",
        "--add",
        "--replace-all",
        "--remove-section",
        "--rename-section",
        "--edit",
        "-e",
    ]
    .iter()
    .any(|f| rest.has(f))
        || rest.subcommand().is_some_and(|(s, _)| {
            matches!(
                s,
                "set" | "unset" | "edit" | "rename-section" | "remove-section"
            )
        });
    if writes {
        return false;
    }
    let reads = [
        "--get",
        "--get-all",
        "--get-regexp",
        "--get-urlmatch",
        "--list",
        "-l",
    ]
    .iter()
    .any(|f| rest.has(f))
        || rest
            .subcommand()
            .is_some_and(|(s, _)| matches!(s, "get" | "list"));
    // `git config key` (one operand, no value) is a read.
    let operands = rest.operands().len();
    reads || operands == 1 || (operands == 0 && rest.has("--show-origin"))
}
