//! The rest of the system: packages, power, services, processes, users and credentials,
//! history, cron, firewalls and databases driven from their CLIs.

use super::{Args, Context, Hit, render};
use crate::BlastRadius::{self, High, Low, Medium};
use crate::paths;
use crate::word::Word;
use crate::wrappers;

pub(super) fn check(name: &str, args: Args<'_>, ctx: Context<'_>) -> Option<Hit> {
    let shown = || format!("`{}`", render(name, args));
    match name {
        "apt" | "apt-get" | "aptitude" | "dnf" | "yum" | "microdnf" | "zypper" | "apk" | "snap"
        | "flatpak" | "port" | "pkg" | "emerge" | "pacman" | "dpkg" | "rpm" => {
            system_packages(name, args)
        }
        "pip" | "pip3" | "pipx" | "uv" | "poetry" | "gem" | "cargo" | "rustup" | "conda"
        | "mamba" | "brew" | "npm" | "pnpm" | "yarn" | "bun" | "composer" | "go" => {
            user_packages(name, args)
        }
        "shutdown" | "reboot" | "halt" | "poweroff" => (!args.short('c'))
            .then(|| Hit::new(High, "power", format!("{} stops the machine", shown()))),
        "init" | "telinit" => args
            .operands()
            .first()
            .filter(|w| matches!(w.text.as_str(), "0" | "1" | "6" | "s" | "S"))
            .map(|_| Hit::new(High, "power", format!("{} changes the runlevel", shown()))),
        "systemctl" | "loginctl" | "service" | "launchctl" => services(name, args),
        "kill" => kill(args),
        "killall" | "pkill" | "skill" | "slay" => Some(Hit::new(Medium, "process-kill", shown())),
        "killall5" => Some(Hit::new(
            High,
            "process-kill",
            format!("{} kills every process", shown()),
        )),
        "history" if args.flag('c', "clear") || args.short('d') || args.short('w') => {
            Some(Hit::new(
                Medium,
                "history-tamper",
                format!("{} rewrites shell history", shown()),
            ))
        }
        "set"
            if args
                .words()
                .windows(2)
                .any(|p| p[0].text == "+o" && p[1].text == "history") =>
        {
            Some(Hit::new(
                Medium,
                "history-tamper",
                format!("{} stops recording history", shown()),
            ))
        }
        "unset" => history_variables(args.words()).then(|| {
            Hit::new(
                Medium,
                "history-tamper",
                format!("{} hides shell history", shown()),
            )
        }),
        "userdel" | "deluser" if args.flag('r', "remove") => Some(Hit::new(
            High,
            "credential-tamper",
            format!("{} deletes a user and their home", shown()),
        )),
        "passwd" | "chpasswd" | "usermod" | "useradd" | "adduser" | "userdel" | "deluser"
        | "groupdel" | "groupmod" | "gpasswd" | "visudo" | "chsh" | "chage" => {
            Some(Hit::new(Medium, "credential-tamper", shown()))
        }
        "ssh-add" if args.flag('D', "delete-all") || args.short('d') => {
            Some(Hit::new(Low, "credential-tamper", shown()))
        }
        "gpg" | "gpg2" if args.has_prefix("--delete") => {
            Some(Hit::new(Medium, "credential-tamper", shown()))
        }
        "security"
            if args
                .subcommand()
                .is_some_and(|(s, _)| s.starts_with("delete")) =>
        {
            Some(Hit::new(Medium, "credential-tamper", shown()))
        }
        "crontab" if args.short('r') => Some(Hit::new(
            High,
            "cron-delete",
            format!("{} deletes every cron job", shown()),
        )),
        "iptables" | "ip6tables" | "ebtables" | "arptables"
            if args.flag('F', "flush") || args.flag('X', "delete-chain") || args.short('P') =>
        {
            Some(Hit::new(Medium, "firewall", shown()))
        }
        "nft" if args.has("flush") || args.has("delete") => {
            Some(Hit::new(Medium, "firewall", shown()))
        }
        "ufw" if args.has("disable") || args.has("reset") => {
            Some(Hit::new(Medium, "firewall", shown()))
        }
        "cat" | "head" | "tail" | "less" | "more" | "bat" | "grep" | "rg" | "strings"
        | "base64" | "xxd" | "od" | "hexdump" | "nl" | "tac" | "sed" | "awk" | "cp" | "scp"
        | "curl" => {
            let leaked = args
                .operands()
                .into_iter()
                .find(|w| paths::is_credential_file(w))?;
            Some(Hit::new(
                Medium,
                "credential-read",
                format!("reads secrets from `{}`", leaked.text),
            ))
        }
        _ => database(name, args, ctx),
    }
}

const ESSENTIAL_PACKAGES: &[&str] = &[
    "libc6",
    "glibc",
    "systemd",
    "sudo",
    "bash",
    "coreutils",
    "dpkg",
    "apt",
    "rpm",
    "dnf",
    "yum",
    "openssh-server",
    "init",
    "login",
    "passwd",
    "util-linux",
    "base-files",
    "linux-image",
    "kernel",
    "grub",
    "grub2",
    "python3",
    "pacman",
    "shadow",
    "libc",
];

fn system_packages(name: &str, args: Args<'_>) -> Option<Hit> {
    let removes = match name {
        "pacman" => args.short('R') || args.long("remove"),
        "dpkg" => args.short('r') || args.short('P') || args.long("remove") || args.long("purge"),
        "rpm" => args.short('e') || args.long("erase"),
        _ => args.subcommand().is_some_and(|(sub, _)| {
            matches!(
                sub,
                "remove"
                    | "purge"
                    | "autoremove"
                    | "autopurge"
                    | "erase"
                    | "del"
                    | "uninstall"
                    | "rm"
            )
        }),
    };
    if !removes {
        return None;
    }
    let essential = args.operands().iter().any(|w| {
        let package = w.text.split([':', '=']).next().unwrap_or("");
        ESSENTIAL_PACKAGES
            .iter()
            .any(|e| package == *e || (e.len() > 4 && package.starts_with(e)))
            || w.glob
    });
    let radius = if essential { High } else { Medium };
    Some(Hit::new(
        radius,
        "package-remove",
        format!("`{}`", render(name, args)),
    ))
}

fn user_packages(name: &str, args: Args<'_>) -> Option<Hit> {
    let (sub, rest) = args.subcommand()?;
    let (sub, rest) = match (name, sub) {
        // `uv pip uninstall`, `yarn global remove`, `conda env remove`, `rustup toolchain uninstall`
        ("uv", "pip")
        | ("yarn" | "pnpm", "global")
        | ("conda" | "mamba", "env")
        | ("rustup", "toolchain" | "component" | "target") => rest.subcommand()?,
        _ => (sub, rest),
    };
    let removes = matches!(
        sub,
        "uninstall" | "remove" | "rm" | "un" | "r" | "unlink" | "erase"
    ) || (name == "go" && sub == "clean" && rest.has("-modcache"));
    if !removes {
        return None;
    }
    let global = args.flag('g', "global") || args.has("global");
    let radius = if global && matches!(name, "npm" | "pnpm" | "yarn" | "bun") {
        Medium
    } else {
        Low
    };
    Some(Hit::new(
        radius,
        "package-remove",
        format!("`{}`", render(name, args)),
    ))
}

fn services(name: &str, args: Args<'_>) -> Option<Hit> {
    let shown = format!("`{}`", render(name, args));
    let operands = args.operands();
    // `service nginx stop` puts the action second.
    let action = if name == "service" {
        operands.get(1)
    } else {
        operands.first()
    };
    let action = action.map(|w| w.text.as_str())?;
    match action {
        "reboot"
        | "poweroff"
        | "halt"
        | "kexec"
        | "suspend"
        | "hibernate"
        | "hybrid-sleep"
        | "suspend-then-hibernate"
        | "emergency"
        | "rescue"
        | "soft-reboot"
        | "default" => Some(Hit::new(
            High,
            "power",
            format!("{shown} stops or suspends the machine"),
        )),
        "isolate" | "terminate-session" | "terminate-user" | "kill-user" | "kill-session" => {
            Some(Hit::new(High, "power", shown))
        }
        "stop" | "disable" | "mask" | "kill" | "restart" | "unload" | "bootout" | "remove" => {
            Some(Hit::new(Medium, "service-control", shown))
        }
        _ => None,
    }
}

fn kill(args: Args<'_>) -> Option<Hit> {
    let words = args.words();
    let first = words.first()?;
    if matches!(first.text.as_str(), "-l" | "-L" | "--list" | "--table") {
        return None;
    }
    let mut start = match first.text.as_str() {
        "-s" | "-n" | "--signal" => 2,
        text if text.starts_with('-') && text.len() > 1 && !text.starts_with("--") => 1,
        _ => 0,
    };
    if words.get(start).is_some_and(|w| w.text == "--") {
        start += 1;
    }
    let pids = words.get(start..).unwrap_or(&[]);
    if pids.is_empty() {
        // `xargs kill -9`: the pids arrive on stdin.
        return Some(Hit::new(
            Medium,
            "process-kill",
            "`kill` of processes read from standard input",
        ));
    }
    let radius = pids
        .iter()
        .map(|pid| match pid.text.as_str() {
            "-1" | "1" => High,
            _ if pid.opaque || pid.text == "0" || pid.text.starts_with('-') => Medium,
            _ => Low,
        })
        .max_by_key(|r| r.severity())?;
    let what = if radius == High {
        "`kill` of every process or of init".to_owned()
    } else {
        format!("`{}`", render("kill", args))
    };
    Some(Hit::new(radius, "process-kill", what))
}

fn history_variables(words: &[Word]) -> bool {
    words.iter().any(|w| {
        let name = w.text.split('=').next().unwrap_or("");
        matches!(
            name,
            "HISTFILE" | "HISTSIZE" | "HISTFILESIZE" | "HISTIGNORE"
        ) && (!w.text.contains('=') || history_setting_hides(name, &w.text[name.len() + 1..]))
    })
}

/// Whether `NAME=value` for a history variable stops history from being kept.
pub(crate) fn history_setting_hides(name: &str, value: &str) -> bool {
    match name {
        "HISTFILE" => value.is_empty() || value == "/dev/null",
        "HISTSIZE" | "HISTFILESIZE" => value == "0",
        "HISTIGNORE" => value.contains('*'),
        _ => false,
    }
}

fn database(name: &str, args: Args<'_>, ctx: Context<'_>) -> Option<Hit> {
    let shown = || format!("`{}`", render(name, args));
    let words = args.words();
    let mut scripts: Vec<String> = Vec::new();
    match name {
        "dropdb" | "dropuser" => return Some(Hit::new(High, "db-drop", shown())),
        "mysqladmin" if args.has("drop") => return Some(Hit::new(High, "db-drop", shown())),
        "psql" => scripts.extend(values(words, 'c', "command")),
        "mysql" | "mariadb" | "cockroach" | "cqlsh" => {
            scripts.extend(values(words, 'e', "execute"))
        }
        "clickhouse-client" | "clickhouse" => scripts.extend(values(words, 'q', "query")),
        "sqlite3" | "duckdb" => {
            scripts.extend(args.operands().iter().skip(1).map(|w| w.text.clone()))
        }
        "redis-cli" | "valkey-cli" | "keydb-cli" => {
            let mut commands: Vec<String> = args
                .operands()
                .iter()
                .map(|w| w.text.to_ascii_lowercase())
                .collect();
            commands.extend(
                ctx.stdin
                    .iter()
                    .flat_map(|s| s.split_whitespace())
                    .map(str::to_ascii_lowercase),
            );
            return redis(&commands).map(|(radius, category)| Hit::new(radius, category, shown()));
        }
        "mongo" | "mongosh" => {
            let mut code: Vec<String> = values(words, '\0', "eval");
            code.extend(ctx.stdin.map(str::to_owned));
            let code = code.join("\n");
            return if code.contains("dropDatabase(") || code.contains(".drop(") {
                Some(Hit::new(High, "db-drop", shown()))
            } else if code.contains("deleteMany(") || code.contains(".remove(") {
                Some(Hit::new(Medium, "db-delete", shown()))
            } else {
                None
            };
        }
        _ => return None,
    }
    scripts.extend(ctx.stdin.map(str::to_owned));
    let (radius, category, statement) = scripts
        .iter()
        .filter_map(|s| sql(s))
        .max_by_key(|(r, _, _)| r.severity())?;
    Some(Hit::new(
        radius,
        category,
        format!("SQL `{statement}` via `{name}`"),
    ))
}

/// Every value of `-x VALUE`/`-xVALUE`/`--long VALUE`/`--long=VALUE`.
fn values(words: &[Word], short: char, long: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = words;
    while let Some(value) = wrappers::option_value(rest, short, long) {
        found.push(value);
        let consumed = rest
            .iter()
            .position(|w| {
                w.text.starts_with(&format!("--{long}"))
                    || (short != '\0'
                        && w.is_option()
                        && !w.text.starts_with("--")
                        && w.text.contains(short))
            })
            .map_or(rest.len(), |p| p + 1);
        rest = rest.get(consumed..).unwrap_or(&[]);
    }
    found
}

fn redis(commands: &[String]) -> Option<(BlastRadius, &'static str)> {
    let mut worst: Option<(BlastRadius, &'static str)> = None;
    for command in commands {
        let found = match command.as_str() {
            "flushall" | "flushdb" => (High, "db-drop"),
            "del" | "unlink" | "shutdown" => (Medium, "db-delete"),
            _ => continue,
        };
        if worst.is_none_or(|(r, _)| found.0.severity() > r.severity()) {
            worst = Some(found);
        }
    }
    worst
}

/// Finds the most destructive statement in a SQL script.
fn sql(script: &str) -> Option<(BlastRadius, &'static str, String)> {
    let mut worst: Option<(BlastRadius, &'static str, String)> = None;
    for statement in script.split(';') {
        let tokens: Vec<String> = statement
            .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
            .filter(|t| !t.is_empty())
            .map(str::to_ascii_uppercase)
            .collect();
        let has = |t: &str| tokens.iter().any(|x| x == t);
        let found = match tokens.first().map(String::as_str) {
            Some("DROP") => match tokens.get(1).map(String::as_str) {
                Some("DATABASE" | "SCHEMA" | "TABLE" | "KEYSPACE" | "OWNED" | "TABLESPACE") => {
                    (High, "db-drop")
                }
                _ => (Medium, "db-drop"),
            },
            Some("TRUNCATE") => (High, "db-drop"),
            Some("DELETE") if !has("WHERE") => (High, "db-delete"),
            Some("DELETE") => (Medium, "db-delete"),
            Some("UPDATE") if !has("WHERE") => (Medium, "db-update"),
            Some("ALTER") if has("DROP") => (Medium, "db-drop"),
            _ => continue,
        };
        if worst
            .as_ref()
            .is_none_or(|(r, _, _)| found.0.severity() > r.severity())
        {
            let text: Vec<&str> = statement.split_whitespace().take(8).collect();
            worst = Some((found.0, found.1, text.join(" ")));
        }
    }
    worst
}

#[cfg(test)]
mod tests {
    use pretty_assertions::assert_eq;

    use super::*;

    #[test]
    fn sql_scripts_are_rated_by_their_worst_statement() {
        assert_eq!(
            sql("select 1; drop table users;"),
            Some((High, "db-drop", "drop table users".to_owned()))
        );
        assert_eq!(
            sql("DELETE FROM t WHERE id = 3"),
            Some((Medium, "db-delete", "DELETE FROM t WHERE id = 3".to_owned()))
        );
        assert_eq!(sql("SELECT * FROM dropped"), None);
    }

    #[test]
    fn repeated_option_values_are_all_collected() {
        let words: Vec<Word> = ["-c", "select 1", "-cdrop table x", "--command=truncate t"]
            .iter()
            .map(|t| Word::literal(t))
            .collect();
        assert_eq!(
            values(&words, 'c', "command"),
            vec![
                "select 1".to_owned(),
                "drop table x".to_owned(),
                "truncate t".to_owned()
            ]
        );
    }
}
