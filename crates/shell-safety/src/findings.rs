//! Findings: how they are built, combined and adjusted, and the checks that rate one piece of
//! a script on its own (a redirection, an assignment, a computed command name).
//!
//! Kept apart from the analyzer so the wording of every reason lives in one place.

use crate::BlastRadius::{High, Medium, Unknown};
use crate::paths::{self, Target};
use crate::rules::{self, Hit};
use crate::script::{Redirect, RedirectOp};
use crate::word::Word;
use crate::{BlastRadius, CONFIRMATION_REASON, DESTRUCTIVE_REASON_PREFIX, Finding};

/// The most severe finding so far (first wins on ties).
#[derive(Debug, Default)]
pub(crate) struct Worst(pub(crate) Option<Finding>);

impl Worst {
    pub(crate) fn add(&mut self, finding: Finding) {
        let replace = self
            .0
            .as_ref()
            .is_none_or(|w| finding.blast_radius.severity() > w.blast_radius.severity());
        if replace {
            self.0 = Some(finding);
        }
    }

    pub(crate) fn merge(&mut self, other: Self) {
        if let Some(finding) = other.0 {
            self.add(finding);
        }
    }
}

/// The more severe of two optional findings (`a` on ties).
pub(crate) fn worse(a: Option<Finding>, b: Option<Finding>) -> Option<Finding> {
    match (a, b) {
        (Some(a), Some(b)) if b.blast_radius.severity() > a.blast_radius.severity() => Some(b),
        (Some(a), _) => Some(a),
        (None, b) => b,
    }
}

pub(crate) fn generic(command: &str, reason: impl Into<String>) -> Finding {
    Finding {
        blast_radius: Unknown,
        category: None,
        reason: reason.into(),
        command: command.trim().to_owned(),
    }
}

pub(crate) fn from_hit(hit: Hit, command: &str) -> Finding {
    Finding {
        blast_radius: hit.radius,
        category: Some(hit.category),
        reason: format!("{DESTRUCTIVE_REASON_PREFIX}{}", hit.what),
        command: command.trim().to_owned(),
    }
}

pub(crate) fn finding(
    radius: BlastRadius,
    category: &'static str,
    what: String,
    command: &str,
) -> Finding {
    from_hit(Hit::new(radius, category, what), command)
}

/// Applies a wrapper's effect on the inner command's finding.
pub(crate) fn adjust(
    found: Option<Finding>,
    elevates: bool,
    keeps_safe: bool,
    command: &str,
) -> Option<Finding> {
    if elevates {
        return Some(match found {
            None => elevation(Medium, command),
            Some(f) if f.category.is_none() => Finding {
                category: Some("privilege-elevation"),
                reason: "Command runs with elevated privileges.".to_owned(),
                ..f
            },
            // Root widens what a delete or a kill can reach; packages, power and the like
            // always need root, so elevation says nothing new about them.
            Some(f)
                if f.category
                    .is_some_and(|c| c.starts_with("fs-") || c == "process-kill") =>
            {
                Finding {
                    blast_radius: f.blast_radius.raised(),
                    ..f
                }
            }
            Some(f) => f,
        });
    }
    if found.is_none() && !keeps_safe {
        return Some(generic(command, CONFIRMATION_REASON));
    }
    found
}

pub(crate) fn elevation(radius: BlastRadius, command: &str) -> Finding {
    Finding {
        blast_radius: radius,
        category: Some("privilege-elevation"),
        reason: "Command runs with elevated privileges.".to_owned(),
        command: command.trim().to_owned(),
    }
}

/// A command whose name is only known at run time (`$CMD -rf /`).
pub(crate) fn computed_name(head: &Word, args: &[Word], command: &str) -> Finding {
    let destructive = args.iter().any(|w| {
        let text = w.text.as_str();
        let cluster = w.is_option() && !text.starts_with("--");
        (cluster && text.contains(['r', 'R']) && text.contains('f'))
            || matches!(
                text,
                "--no-preserve-root" | "--force" | "--hard" | "--recursive" | "-delete"
            )
            || text.starts_with("of=/dev/")
            || (!w.is_option()
                && matches!(
                    paths::classify(w),
                    Target::Critical | Target::System | Target::Device | Target::Sensitive
                ))
    });
    if destructive {
        finding(
            High,
            "dynamic-command",
            format!(
                "command name computed at run time (`{}`) with destructive arguments",
                head.text
            ),
            command,
        )
    } else {
        Finding {
            category: Some("dynamic-command"),
            ..generic(
                command,
                format!("Command name is computed at run time: `{}`.", head.text),
            )
        }
    }
}

/// `LD_PRELOAD=… cmd`, `HISTFILE=/dev/null`.
pub(crate) fn assignment_finding(name: &str, value: &Word, command: &str) -> Option<Finding> {
    if rules::history_setting_hides(name, &value.text) {
        return Some(finding(
            Medium,
            "history-tamper",
            format!("`{name}` hides shell history"),
            command,
        ));
    }
    let injects = matches!(
        name,
        "LD_PRELOAD"
            | "LD_AUDIT"
            | "DYLD_INSERT_LIBRARIES"
            | "BASH_ENV"
            | "ENV"
            | "PROMPT_COMMAND"
            | "PERL5OPT"
            | "NODE_OPTIONS"
            | "PYTHONSTARTUP"
            | "GIT_SSH_COMMAND"
            | "GIT_EXTERNAL_DIFF"
    );
    if injects {
        return Some(Finding {
            category: Some("env-injection"),
            ..generic(
                command,
                format!("Command sets `{name}`, which loads code into the programs it runs."),
            )
        });
    }
    let base = name.split_once('[').map_or(name, |(base, _)| base);
    (!harmless_variable(base)).then(|| Finding {
        category: Some("env-injection"),
        ..generic(
            command,
            format!(
                "Command sets `{base}`, which can change which programs run or what they load."
            ),
        )
    })
}

/// Environment names known to change only formatting, locale or logging.
const HARMLESS_ENVIRONMENT: &[&str] = &[
    "LANG",
    "LANGUAGE",
    "TZ",
    "TERM",
    "COLUMNS",
    "LINES",
    "NO_COLOR",
    "FORCE_COLOR",
    "CLICOLOR",
    "CLICOLOR_FORCE",
    "COLORTERM",
    "CI",
    "RUST_BACKTRACE",
    "RUST_LIB_BACKTRACE",
    "RUST_LOG",
    "CARGO_TERM_COLOR",
    "CARGO_TERM_VERBOSE",
    "CARGO_TERM_QUIET",
    "PYTHONUNBUFFERED",
    "PYTHONDONTWRITEBYTECODE",
    "PYTHONIOENCODING",
    "TIME_STYLE",
    "LS_COLORS",
    "GREP_COLOR",
    "GREP_COLORS",
    "POSIXLY_CORRECT",
    "SOURCE_DATE_EPOCH",
    "DEBIAN_FRONTEND",
    "OPTIND",
];

/// Whether assigning `name` (exported to the programs a command runs, or later by `set -a` or
/// because the name came from the environment) cannot change which programs run or what they
/// load. Programs read countless upper-case variables (`PATH`, `GIT_PAGER`, `LESSOPEN`,
/// `RIPGREP_CONFIG_PATH`, `KUBECONFIG`, `BASH_FUNC_…`), so only a short list of them is
/// harmless; names with a lower-case letter are the shell's own by convention, except the
/// proxy settings.
fn harmless_variable(name: &str) -> bool {
    if name.bytes().any(|b| b.is_ascii_lowercase()) {
        return !name.to_ascii_lowercase().ends_with("_proxy");
    }
    HARMLESS_ENVIRONMENT.contains(&name) || name.starts_with("LC_")
}

/// Output redirections onto files.
pub(crate) fn redirect_finding(redirect: &Redirect<'_>) -> Option<Finding> {
    let target = &redirect.target;
    let text = target.text.as_str();
    let writes = match redirect.op {
        RedirectOp::Read => false,
        RedirectOp::Write | RedirectOp::Append => true,
        RedirectOp::Duplicate => {
            !(text.is_empty()
                || text == "-"
                || text.chars().all(|c| c.is_ascii_digit() || c == '-'))
        }
    };
    if !writes || paths::is_harmless_sink(text) {
        return None;
    }
    let append = redirect.op == RedirectOp::Append;
    let verb = if append { "appends to" } else { "overwrites" };
    let what = format!("redirect {verb} `{text}`");
    let (radius, category) = if paths::is_history_file(target) {
        (if append { Medium } else { High }, "history-tamper")
    } else {
        match paths::classify(target) {
            Target::Device => (High, "block-device"),
            Target::System => (High, "fs-overwrite"),
            Target::Sensitive => (if append { Medium } else { High }, "fs-overwrite"),
            Target::Critical | Target::Opaque | Target::Glob => (Medium, "fs-overwrite"),
            Target::HomeChild | Target::Ordinary => (
                BlastRadius::Low,
                if append { "fs-write" } else { "fs-overwrite" },
            ),
        }
    };
    Some(finding(radius, category, what, redirect.text))
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    fn ask(radius: BlastRadius, reason: &str) -> Option<Finding> {
        Some(Finding {
            blast_radius: radius,
            category: None,
            reason: reason.to_owned(),
            command: String::new(),
        })
    }

    #[test]
    fn the_more_severe_finding_wins_and_ties_keep_the_first() {
        assert_eq!(worse(ask(Medium, "a"), ask(High, "b")), ask(High, "b"));
        assert_eq!(
            worse(ask(Medium, "a"), ask(Unknown, "b")),
            ask(Unknown, "b")
        );
        assert_eq!(worse(ask(High, "a"), ask(High, "b")), ask(High, "a"));
        assert_eq!(
            worse(None, ask(BlastRadius::Low, "b")),
            ask(BlastRadius::Low, "b")
        );
    }

    #[test]
    fn elevation_raises_deletes_but_not_package_removal() {
        let hit = |category: &'static str| {
            Some(Finding {
                blast_radius: BlastRadius::Low,
                category: Some(category),
                reason: String::new(),
                command: String::new(),
            })
        };
        let radius = |f: Option<Finding>| f.map(|f| (f.blast_radius, f.category));
        assert_eq!(
            radius(adjust(hit("fs-delete"), true, false, "")),
            Some((Medium, Some("fs-delete")))
        );
        assert_eq!(
            radius(adjust(hit("package-remove"), true, false, "")),
            Some((BlastRadius::Low, Some("package-remove")))
        );
        assert_eq!(
            radius(adjust(None, true, false, "")),
            Some((Medium, Some("privilege-elevation")))
        );
        assert_eq!(
            radius(adjust(None, false, false, "")),
            Some((Unknown, None))
        );
        assert_eq!(radius(adjust(None, false, true, "")), None);
    }
}
