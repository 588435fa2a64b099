//! Commands that run other commands: `sudo rm …`, `env X=1 rm …`, `xargs rm`, `bash -c '…'`.
//!
//! Each wrapper is peeled by skipping its own options exactly as the tool parses them (`timeout`
//! takes a duration operand, `sudo -u` a user, `xargs -I` a replacement string), so the rules
//! see the real command. Wrappers that take a shell string instead (`bash -c`, `eval`, `su -c`,
//! `watch`, `ssh host cmd`, `trap`) hand back the text to be parsed again.

use crate::rules::Args;
use crate::rules::containers::{docker_subcommand, kubectl_subcommand};
use crate::word::{Word, command_name};

/// What a wrapper runs.
#[derive(Debug)]
pub(crate) enum Wrap<'a> {
    /// Runs the rest of the argv as a command.
    Exec {
        rest: &'a [Word],
        /// `NAME=value` operands of `env` or `sudo`, applied to the command's environment.
        env: &'a [Word],
        /// Runs with elevated privileges (`sudo`, `doas`, …).
        elevates: bool,
        /// A read-only command stays read-only behind this wrapper.
        keeps_safe: bool,
        /// A string replaced by unknown input in `rest` (`xargs -I {}`).
        placeholder: Option<String>,
        /// Unknown input is appended to `rest` as more arguments (`xargs` without `-I`).
        appends: bool,
    },
    /// Runs a shell script given as a string.
    Script {
        text: String,
        elevates: bool,
        keeps_safe: bool,
    },
    /// Runs nothing further (`sudo -i`, `env`, `command -v x`).
    Bare { elevates: bool, safe: bool },
}

/// Shells whose `-c` runs a script string.
pub(crate) const SHELLS: &[&str] = &[
    "sh",
    "bash",
    "zsh",
    "dash",
    "ksh",
    "mksh",
    "ash",
    "fish",
    "csh",
    "tcsh",
    "yash",
    "busybox-sh",
];

pub(crate) fn is_shell(name: &str) -> bool {
    SHELLS.contains(&name)
}

/// Wrappers that put a command after their options (used for quick scans such as "does this
/// substitution download something").
pub(crate) fn is_prefix_wrapper(name: &str) -> bool {
    matches!(
        name,
        "sudo"
            | "doas"
            | "pkexec"
            | "run0"
            | "env"
            | "nice"
            | "nohup"
            | "time"
            | "timeout"
            | "command"
            | "builtin"
            | "exec"
            | "stdbuf"
            | "ionice"
            | "setsid"
            | "xargs"
            | "watch"
            | "caffeinate"
            | "unbuffer"
            | "busybox"
            | "toybox"
            | "flock"
            | "taskset"
            | "chroot"
    )
}

/// Peels one wrapper off `name args…`; `None` when `name` is not a wrapper.
pub(crate) fn peel<'a>(name: &str, args: &'a [Word]) -> Option<Wrap<'a>> {
    let exec = |rest: &'a [Word], elevates: bool, keeps_safe: bool| Wrap::Exec {
        rest,
        env: &[],
        elevates,
        keeps_safe,
        placeholder: None,
        appends: false,
    };
    let wrap = match name {
        "sudo" => {
            let start = skip_options(
                args,
                "ugprtCDThU",
                &[
                    "user",
                    "group",
                    "host",
                    "prompt",
                    "role",
                    "type",
                    "close-from",
                    "chdir",
                    "command-timeout",
                    "other-user",
                ],
            );
            if has_short(&args[..start], 'e') || args[..start].iter().any(|w| w.text == "--edit") {
                return Some(Wrap::Bare {
                    elevates: true,
                    safe: false,
                });
            }
            assignments_then_exec(&args[start..], true, false)
        }
        "sudoedit" => Wrap::Bare {
            elevates: true,
            safe: false,
        },
        "doas" | "pkexec" | "run0" => {
            let start = skip_options(args, "uCgD", &["user", "group", "chdir", "setenv"]);
            or_bare(exec(&args[start..], true, false), true, false)
        }
        "su" | "runuser" => {
            let script = option_value(args, 'c', "command");
            match script {
                Some(text) => Wrap::Script {
                    text,
                    elevates: true,
                    keeps_safe: false,
                },
                None => Wrap::Bare {
                    elevates: true,
                    safe: false,
                },
            }
        }
        "chroot" => {
            let start = skip_options(args, "", &["userspec", "groups"]);
            let rest = args.get(start + 1..).unwrap_or(&[]);
            or_bare(exec(rest, true, false), true, false)
        }
        "env" => {
            // `env -S 'rm -r' x` splits the string and runs it with the operands after it.
            if let Some((split, next)) = option_value_at(args, 'S', "split-string") {
                let mut text = vec![split.as_str()];
                text.extend(args[next.min(args.len())..].iter().map(Word::as_str));
                return Some(Wrap::Script {
                    text: text.join(" "),
                    elevates: false,
                    keeps_safe: true,
                });
            }
            let start = skip_options(args, "uC", &["unset", "chdir"]);
            assignments_then_exec(&args[start..], false, true)
        }
        "nice" => safe_exec(&args[skip_options(args, "n", &["adjustment"])..]),
        "nohup" | "setsid" | "unbuffer" | "builtin" | "busybox" | "toybox" | "coproc" => {
            safe_exec(&args[skip_options(args, "", &[])..])
        }
        "time" => {
            // GNU `time -o FILE` writes its report to FILE.
            let start = skip_options(args, "fo", &["format", "output"]);
            let options = Args(&args[..start]);
            let writes = options.flag_prefix('o', "output") || options.flag_prefix('a', "append");
            or_bare(exec(&args[start..], false, !writes), false, !writes)
        }
        "caffeinate" => safe_exec(&args[skip_options(args, "tw", &[])..]),
        // Tracers run the command they are given; `-o FILE` writes FILE.
        "strace" | "ltrace" => {
            let start = skip_options(args, "aAbDeEFIlnoOpPsSuUwxX", &[]);
            or_bare(exec(&args[start..], false, false), false, false)
        }
        // util-linux `script -c CMD` runs CMD in a shell (and writes a typescript file).
        "script" => match option_value(args, 'c', "command") {
            Some(text) => Wrap::Script {
                text,
                elevates: false,
                keeps_safe: false,
            },
            None => Wrap::Bare {
                elevates: false,
                safe: false,
            },
        },
        "stdbuf" => safe_exec(&args[skip_options(args, "ioe", &["input", "output", "error"])..]),
        "ionice" => safe_exec(
            &args[skip_options(args, "cnpPu", &["class", "classdata", "pid", "pgid", "uid"])..],
        ),
        "timeout" => {
            let start = skip_options(args, "sk", &["signal", "kill-after"]);
            safe_exec(args.get(start + 1..).unwrap_or(&[]))
        }
        "taskset" => {
            let start = skip_options(args, "", &["cpu-list"]);
            if has_short(&args[..start], 'p') {
                return Some(Wrap::Bare {
                    elevates: false,
                    safe: false,
                });
            }
            safe_exec(args.get(start + 1..).unwrap_or(&[]))
        }
        // `flock FILE …` creates FILE when it is missing.
        "flock" => {
            if let Some(text) = option_value(args, 'c', "command") {
                return Some(Wrap::Script {
                    text,
                    elevates: false,
                    keeps_safe: false,
                });
            }
            let start = skip_options(args, "wE", &["timeout", "wait", "conflict-exit-code"]);
            or_bare(
                exec(args.get(start + 1..).unwrap_or(&[]), false, false),
                false,
                false,
            )
        }
        "command" => {
            let start = skip_options(args, "", &[]);
            if has_short(&args[..start], 'v') || has_short(&args[..start], 'V') {
                return Some(Wrap::Bare {
                    elevates: false,
                    safe: true,
                });
            }
            safe_exec(&args[start..])
        }
        "exec" => safe_exec(&args[skip_options(args, "a", &[])..]),
        "xargs" => {
            let start = skip_options(
                args,
                "adEILnPs",
                &[
                    "arg-file",
                    "delimiter",
                    "max-args",
                    "max-procs",
                    "max-chars",
                    "max-lines",
                    "process-slot-var",
                    "replace",
                    "eof",
                ],
            );
            let options = &args[..start];
            let placeholder = option_value(options, 'I', "replace").or_else(|| {
                options.iter().find_map(|w| {
                    w.text
                        .strip_prefix("-i")
                        .map(|r| if r.is_empty() { "{}" } else { r }.to_owned())
                })
            });
            match safe_exec(&args[start..]) {
                Wrap::Exec {
                    rest,
                    env,
                    elevates,
                    keeps_safe,
                    ..
                } => Wrap::Exec {
                    rest,
                    env,
                    elevates,
                    keeps_safe,
                    appends: placeholder.is_none(),
                    placeholder,
                },
                bare => bare,
            }
        }
        "watch" => {
            let start = skip_options(args, "nq", &["interval"]);
            let rest = &args[start..];
            if has_short(&args[..start], 'x') || args[..start].iter().any(|w| w.text == "--exec") {
                safe_exec(rest)
            } else {
                or_bare(script_of(rest, false, true), false, true)
            }
        }
        "eval" => or_bare(script_of(args, false, true), false, true),
        "trap" => {
            let start = skip_options(args, "", &[]);
            match args.get(start) {
                Some(action) if args.len() > start + 1 && action.text != "-" => Wrap::Script {
                    text: action.text.clone(),
                    elevates: false,
                    keeps_safe: true,
                },
                _ => Wrap::Bare {
                    elevates: false,
                    safe: true,
                },
            }
        }
        "ssh" => {
            let start = skip_options(args, "BbcDEeFIiJLlmOoPpQRSWw", &[]);
            let mut remote = args.get(start + 1..).unwrap_or(&[]);
            if remote.first().is_some_and(|w| w.text == "--") {
                remote = &remote[1..];
            }
            or_bare(script_of(remote, false, false), false, false)
        }
        "docker" | "podman" | "nerdctl" => return container_exec(args),
        "docker-compose" | "podman-compose" => {
            return Args(args)
                .subcommand()
                .filter(|(sub, _)| *sub == "exec")
                .and_then(|(_, rest)| {
                    exec_in(rest.words(), "euw", &["env", "user", "workdir", "index"])
                });
        }
        "kubectl" | "oc" => {
            // `kubectl exec POD [-c C] -- cmd…`: the command follows `--`.
            let (sub, rest) = kubectl_subcommand(Args(args))?;
            let words = rest.words();
            let dashes = words.iter().position(|w| w.text == "--")?;
            return (sub == "exec").then(|| safe_exec(&words[dashes + 1..]));
        }
        shell if is_shell(shell) => return shell_script(args),
        _ => return None,
    };
    Some(wrap)
}

/// `docker exec [opts] CONTAINER cmd…` and `docker compose exec [opts] SERVICE cmd…`: the
/// command runs inside the container, but it still runs.
fn container_exec(args: &[Word]) -> Option<Wrap<'_>> {
    let (sub, rest) = docker_subcommand(Args(args))?;
    match sub {
        "exec" => exec_in(
            rest.words(),
            "euw",
            &["env", "user", "workdir", "env-file", "detach-keys"],
        ),
        "compose" => {
            let (action, inner) = rest.subcommand()?;
            (action == "exec")
                .then(|| exec_in(inner.words(), "euw", &["env", "user", "workdir", "index"]))
                .flatten()
        }
        _ => None,
    }
}

/// Skips options, then the container or service name; the rest is the command.
fn exec_in<'a>(words: &'a [Word], short_values: &str, long_values: &[&str]) -> Option<Wrap<'a>> {
    let start = skip_options(words, short_values, long_values);
    Some(safe_exec(words.get(start + 1..).unwrap_or(&[])))
}

/// `bash [opts] -c 'script' [arg0 args…]`: the script is the first operand after the options.
/// Other shell invocations (a script file, stdin) are not wrappers.
fn shell_script(args: &[Word]) -> Option<Wrap<'_>> {
    let mut has_c = false;
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let text = arg.text.as_str();
        if text == "--" || text == "-" {
            i += 1;
            break;
        }
        if let Some(long) = text.strip_prefix("--") {
            i += if matches!(long, "rcfile" | "init-file") {
                2
            } else {
                1
            };
            continue;
        }
        if (text.starts_with('-') || text.starts_with('+')) && text.len() > 1 && !arg.opaque {
            has_c |= text[1..].contains('c');
            i += if text[1..].contains(['o', 'O']) { 2 } else { 1 };
            continue;
        }
        break;
    }
    if !has_c {
        return None;
    }
    Some(match args.get(i) {
        Some(script) => Wrap::Script {
            text: script.text.clone(),
            elevates: false,
            keeps_safe: true,
        },
        None => Wrap::Bare {
            elevates: false,
            safe: true,
        },
    })
}

fn safe_exec(rest: &[Word]) -> Wrap<'_> {
    if rest.is_empty() {
        Wrap::Bare {
            elevates: false,
            safe: true,
        }
    } else {
        Wrap::Exec {
            rest,
            env: &[],
            elevates: false,
            keeps_safe: true,
            placeholder: None,
            appends: false,
        }
    }
}

/// `NAME=value…` operands (of `env` or `sudo`), then the command they apply to.
fn assignments_then_exec(operands: &[Word], elevates: bool, keeps_safe: bool) -> Wrap<'_> {
    let assigned = operands.iter().take_while(|w| is_assignment(w)).count();
    let (env, rest) = operands.split_at(assigned);
    if rest.is_empty() {
        Wrap::Bare {
            elevates,
            safe: keeps_safe,
        }
    } else {
        Wrap::Exec {
            rest,
            env,
            elevates,
            keeps_safe,
            placeholder: None,
            appends: false,
        }
    }
}

/// Replaces a wrap with nothing to run by [`Wrap::Bare`].
fn or_bare(wrap: Wrap<'_>, elevates: bool, safe: bool) -> Wrap<'_> {
    let empty = match &wrap {
        Wrap::Exec { rest, .. } => rest.is_empty(),
        Wrap::Script { text, .. } => text.trim().is_empty(),
        Wrap::Bare { .. } => false,
    };
    if empty {
        Wrap::Bare { elevates, safe }
    } else {
        wrap
    }
}

/// Joins words into a script the way `eval`, `watch` and `ssh` do (with single spaces).
fn script_of(words: &[Word], elevates: bool, keeps_safe: bool) -> Wrap<'static> {
    let texts: Vec<&str> = words.iter().map(Word::as_str).collect();
    Wrap::Script {
        text: texts.join(" "),
        elevates,
        keeps_safe,
    }
}

/// `NAME=value` as an operand (of `env` or `sudo`).
pub(crate) fn is_assignment(word: &Word) -> bool {
    match word.text.split_once('=') {
        Some((name, _)) => {
            !name.is_empty()
                && !name.starts_with(|c: char| c.is_ascii_digit())
                && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        }
        None => false,
    }
}

/// Index of the first operand, skipping options. `short_values` lists short options that take
/// a value (attached `-uroot` or separate `-u root`); `long_values` the long ones that take a
/// separate value when written without `=`. `--` ends the options.
pub(crate) fn skip_options(args: &[Word], short_values: &str, long_values: &[&str]) -> usize {
    let mut i = 0;
    while let Some(arg) = args.get(i) {
        let text = arg.text.as_str();
        if text == "--" {
            return i + 1;
        }
        if arg.opaque || !text.starts_with('-') || text.len() < 2 {
            return i;
        }
        if let Some(long) = text.strip_prefix("--") {
            let takes_value = !long.contains('=') && long_values.contains(&long);
            i += if takes_value { 2 } else { 1 };
            continue;
        }
        let flags = &text[1..];
        let mut step = 1;
        for (pos, c) in flags.char_indices() {
            if short_values.contains(c) {
                if pos + c.len_utf8() == flags.len() {
                    step = 2;
                }
                break;
            }
        }
        i += step;
    }
    args.len()
}

/// Whether a short option cluster before the operands contains `flag`.
pub(crate) fn has_short(args: &[Word], flag: char) -> bool {
    args.iter()
        .take_while(|w| w.text != "--")
        .any(|w| w.is_option() && !w.text.starts_with("--") && w.text[1..].contains(flag))
}

/// The value of `-c VALUE`, `-cVALUE`, `--command VALUE` or `--command=VALUE`.
pub(crate) fn option_value(args: &[Word], short: char, long: &str) -> Option<String> {
    option_value_at(args, short, long).map(|(value, _)| value)
}

/// [`option_value`], and the index of the argument after the value.
fn option_value_at(args: &[Word], short: char, long: &str) -> Option<(String, usize)> {
    let end = args
        .iter()
        .position(|w| w.text == "--")
        .unwrap_or(args.len());
    let separate = |i: usize| args.get(i + 1).filter(|_| i + 1 < end);
    for (i, arg) in args[..end].iter().enumerate() {
        let text = arg.text.as_str();
        if let Some(rest) = text.strip_prefix("--") {
            if rest == long {
                return separate(i).map(|w| (w.text.clone(), i + 2));
            }
            if let Some(value) = rest.strip_prefix(long).and_then(|r| r.strip_prefix('=')) {
                return Some((value.to_owned(), i + 1));
            }
        } else if arg.is_option()
            && let Some(pos) = text[1..].find(short)
        {
            let attached = &text[1 + pos + short.len_utf8()..];
            if attached.is_empty() {
                return separate(i).map(|w| (w.text.clone(), i + 2));
            }
            return Some((attached.to_owned(), i + 1));
        }
    }
    None
}

/// Follows `Exec` wrappers down to the command that finally runs; reports elevation.
pub(crate) fn innermost(argv: &[Word]) -> (&[Word], bool) {
    let mut current = argv;
    let mut elevated = false;
    for _ in 0..16 {
        let Some((name, args)) = current.split_first() else {
            break;
        };
        match peel(&command_name(&name.text), args) {
            Some(Wrap::Exec { rest, elevates, .. }) => {
                elevated |= elevates;
                current = rest;
            }
            _ => break,
        }
    }
    (current, elevated)
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    fn words(text: &str) -> Vec<Word> {
        text.split_whitespace().map(Word::literal).collect()
    }

    fn rest_of(argv: &str) -> String {
        let argv = words(argv);
        let (inner, _) = innermost(&argv);
        inner.iter().map(Word::as_str).collect::<Vec<_>>().join(" ")
    }

    #[test]
    fn wrappers_are_peeled_down_to_the_real_command() {
        assert_eq!(rest_of("sudo -u root -E rm -rf /"), "rm -rf /");
        assert_eq!(rest_of("sudo -uroot X=1 rm x"), "rm x");
        assert_eq!(rest_of("env -i A=1 B=2 nice -n 5 rm x"), "rm x");
        assert_eq!(rest_of("timeout -s KILL 5 rm -rf /"), "rm -rf /");
        assert_eq!(rest_of("timeout --kill-after 2 5s rm"), "rm");
        assert_eq!(rest_of("xargs -0 -I {} -n1 rm -rf {}"), "rm -rf {}");
        assert_eq!(rest_of("xargs -I{} rm {}"), "rm {}");
        assert_eq!(rest_of("nohup time -p stdbuf -oL command rm"), "rm");
        assert_eq!(rest_of("doas -u root rm x"), "rm x");
    }

    #[test]
    fn shell_c_takes_the_first_operand_as_the_script() {
        let args = words("-lec ls /tmp");
        let Some(Wrap::Script { text, .. }) = peel("bash", &args) else {
            panic!("bash -lec is a script wrapper");
        };
        assert_eq!(text, "ls");
        assert!(peel("bash", &words("script.sh")).is_none());
    }

    #[test]
    fn option_values_are_found_attached_or_separate() {
        assert_eq!(
            option_value(&words("- root -c ls"), 'c', "command"),
            Some("ls".to_owned())
        );
        assert_eq!(
            option_value(&words("--command=ls"), 'c', "command"),
            Some("ls".to_owned())
        );
        assert_eq!(
            option_value(&words("-cls"), 'c', "command"),
            Some("ls".to_owned())
        );
        assert_eq!(option_value(&words("root"), 'c', "command"), None);
    }
}
