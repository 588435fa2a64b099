use proptest::prelude::*;
use serde_json::json;

use std::path::Path;

use super::*;

fn args(v: Value) -> Map<String, Value> {
    v.as_object().cloned().unwrap_or_default()
}

fn list(patterns: &[&str]) -> Vec<PermissionPattern> {
    patterns
        .iter()
        .map(|p| PermissionPattern::parse(p).unwrap())
        .collect()
}

/// How `pattern` decides the call as the only deny rule and as the only allow rule.
fn verdicts(pattern: &str, tool: &str, a: &Value) -> (bool, bool) {
    let a = args(a.clone());
    let deny = Permissions {
        deny: list(&[pattern]),
        ..Permissions::default()
    };
    let allow = Permissions {
        allow: list(&[pattern]),
        ..Permissions::default()
    };
    (
        deny.check(tool, &a) == Some(Decision::Deny),
        allow.check(tool, &a) == Some(Decision::Allow),
    )
}

#[test]
fn pattern_table() {
    // (pattern, tool, arguments, matches as deny, matches as allow)
    let cases: &[(&str, &str, Value, bool, bool)] = &[
        ("read_*", "read_file", json!({}), true, true),
        ("read_*", "write_file", json!({}), false, false),
        ("READ_FILE", "read_file", json!({}), true, true),
        (
            "shell:cmd=ls*",
            "shell",
            json!({"cmd": "ls -la /tmp"}),
            true,
            true,
        ),
        (
            "shell:cmd=ls*",
            "shell",
            json!({"cmd": "rm -rf /"}),
            false,
            false,
        ),
        ("shell:cmd=ls*", "shell", json!({}), false, false),
        // The shell's deny rules hold for a background job, its allow rules do not.
        (
            "shell:cmd=rm*",
            "run_background_job",
            json!({"cmd": "ls && rm -rf /"}),
            true,
            false,
        ),
        (
            "shell",
            "run_background_job",
            json!({"cmd": "ls"}),
            true,
            false,
        ),
        (
            "shell:cmd=rm*",
            "view_background_job",
            json!({"cmd": "rm -rf /"}),
            false,
            false,
        ),
        // A background job's command is read as the shell's: a chain does not ride an allow.
        (
            "run_background_job:cmd=ls*",
            "run_background_job",
            json!({"cmd": "ls; rm -rf /"}),
            true,
            false,
        ),
        (
            "shell:cmd=ls*:cwd=.",
            "shell",
            json!({"cmd": "ls", "cwd": "."}),
            true,
            true,
        ),
        (
            "shell:cmd=ls*:cwd=.",
            "shell",
            json!({"cmd": "ls", "cwd": "/"}),
            false,
            false,
        ),
        (
            "shell:cmd=*sudo*",
            "shell",
            json!({"cmd": "echo x; sudo rm"}),
            true,
            false,
        ),
        ("sudo*", "sudo rm -rf /", json!({}), true, true),
        (
            "edit_file:path=/etc/*",
            "edit_file",
            json!({"path": "/etc/passwd"}),
            true,
            true,
        ),
        (
            "edit_file:path=/etc/*",
            "edit_file",
            json!({"path": "/etc/ssh/config"}),
            true,
            true,
        ),
        (
            "edit_file:path=/etc/*.conf",
            "edit_file",
            json!({"path": "/etc/a.conf"}),
            true,
            true,
        ),
        // Deny crosses `/`; allow does not.
        (
            "edit_file:path=/etc/*.conf",
            "edit_file",
            json!({"path": "/etc/ssh/a.conf"}),
            true,
            false,
        ),
        (
            "mcp:github:*",
            "mcp:github:create_issue",
            json!({}),
            true,
            true,
        ),
        (
            "mcp:github:*",
            "mcp:gitlab:create_issue",
            json!({}),
            false,
            false,
        ),
        ("*", "anything", json!({}), true, true),
        (
            "shell:timeout=30",
            "shell",
            json!({"timeout": 30}),
            true,
            true,
        ),
        (
            "shell:timeout=3?",
            "shell",
            json!({"timeout": 31.5}),
            false,
            false,
        ),
        ("[rw]ead_file", "read_file", json!({}), true, true),
        ("[^r]ead_file", "read_file", json!({}), false, false),
        ("?ead_file", "read_file", json!({}), true, true),
        (
            "shell:cmd=git *:ignored",
            "shell",
            json!({"cmd": "git status"}),
            true,
            true,
        ),
        // Values: deny ignores case, allow does not.
        (
            "shell:cmd=rm *",
            "shell",
            json!({"cmd": "RM -rf x"}),
            true,
            false,
        ),
        (
            "shell:cmd=git status",
            "shell",
            json!({"cmd": "GIT STATUS"}),
            true,
            false,
        ),
        // Keys: deny ignores case, allow does not.
        (
            "shell:CMD=rm *",
            "shell",
            json!({"cmd": "rm -rf x"}),
            true,
            false,
        ),
        // An allow never covers a `..` it does not spell.
        (
            "read_file:path=/home/me/proj/*",
            "read_file",
            json!({"path": "/home/me/proj/../secret"}),
            true,
            false,
        ),
        (
            "read_file:path=/home/me/proj*",
            "read_file",
            json!({"path": "/home/me/proj/../../etc/shadow"}),
            true,
            false,
        ),
        (
            "read_file:path=/home/me/proj/../x",
            "read_file",
            json!({"path": "/home/me/proj/../x"}),
            true,
            true,
        ),
    ];
    for (pattern, tool, a, deny, allow) in cases {
        assert_eq!(
            verdicts(pattern, tool, a),
            (*deny, *allow),
            "{pattern} vs {tool} {a}"
        );
    }
}

#[test]
fn shell_deny_rules_match_every_command_in_the_line() {
    let denied = |pattern: &str, cmd: &str| verdicts(pattern, "shell", &json!({ "cmd": cmd })).0;
    for cmd in [
        "sudo cat /etc/shadow",
        "cd /; sudo id",
        "echo x; sudo rm -rf /",
        "ls | sudo tee /etc/x",
    ] {
        assert!(denied("shell:cmd=*sudo*", cmd), "{cmd}");
        assert!(denied("shell:cmd=sudo *", cmd), "{cmd}");
    }
    for cmd in [
        "rm -rf victim",
        "/bin/rm -rf victim",
        "env rm -rf victim",
        "x; rm -rf victim",
        "echo $(rm -rf victim)",
        "echo `rm -rf victim`",
        "bash -c 'rm -rf victim'",
        "command rm -rf victim",
        "xargs rm -rf < list",
        "find . -exec rm -rf {} +",
        "'rm' -rf victim",
        "$X -rf victim",
        "if true; then rm -rf victim; fi",
    ] {
        assert!(denied("shell:cmd=rm *", cmd), "{cmd}");
    }
    for cmd in ["ls -la", "echo rm", "git rm --cached x", "grep -r 'rm ' ."] {
        assert!(!denied("shell:cmd=rm *", cmd), "{cmd}");
    }
}

#[test]
fn shell_allow_rules_cover_each_command_or_nothing() {
    let perms = Permissions {
        allow: list(&[
            "shell:cmd=npm run test*",
            "shell:cmd=git status",
            "shell:cmd=git diff*",
            "shell:cmd=make > build.log 2>&1",
        ]),
        ..Permissions::default()
    };
    let allowed =
        |cmd: &str| perms.check("shell", &args(json!({ "cmd": cmd }))) == Some(Decision::Allow);
    for cmd in [
        "npm run test",
        "npm run test --watch",
        "git status && git diff HEAD",
        "git status; npm run test | git diff",
        "make > build.log 2>&1",
    ] {
        assert!(allowed(cmd), "{cmd}");
    }
    for cmd in [
        "npm run test; rm -rf victim",
        "npm run test && rm -rf victim",
        "npm run test | sh",
        "npm run test $(rm -rf victim)",
        "npm run test `rm -rf victim`",
        "npm run test > /etc/passwd",
        "npm run test 'a;b'",
        "npm run test --x=$(id)",
        "PATH=. npm run test",
        "npm run test\nrm -rf victim",
        "git status; X=1",
        "make > other.log 2>&1",
        "GIT STATUS",
    ] {
        assert!(!allowed(cmd), "{cmd}");
    }
    // A rule without a `cmd` condition allows every line.
    let any = Permissions {
        allow: list(&["shell"]),
        ..Permissions::default()
    };
    assert_eq!(
        any.check("shell", &args(json!({"cmd": "echo $(date) > x"}))),
        Some(Decision::Allow)
    );
}

#[test]
fn keys_that_differ_only_in_case_are_never_allowed() {
    let perms = Permissions {
        allow: list(&["shell:cmd=git status", "shell:CMD=git status"]),
        ..Permissions::default()
    };
    let a = args(json!({"CMD": "git status", "cmd": "rm -rf victim"}));
    assert_eq!(perms.check("shell", &a), None);
    let deny = Permissions {
        deny: list(&["shell:cmd=rm *"]),
        ..Permissions::default()
    };
    assert_eq!(deny.check("shell", &a), Some(Decision::Deny));
}

#[test]
fn invalid_globs_are_errors() {
    assert_eq!(
        PermissionPattern::parse("read_[abc").unwrap_err(),
        "invalid glob `read_[abc`: unclosed `[`"
    );
    assert_eq!(
        PermissionPattern::parse("  ").unwrap_err(),
        "empty permission pattern"
    );
}

#[test]
fn deny_beats_allow_beats_ask() {
    let perms = Permissions {
        allow: list(&["shell"]),
        ask: list(&["*"]),
        deny: list(&["shell:cmd=*sudo*"]),
    };
    let a = |cmd: &str| args(json!({ "cmd": cmd }));
    assert_eq!(perms.check("shell", &a("sudo ls")), Some(Decision::Deny));
    assert_eq!(perms.check("shell", &a("ls")), Some(Decision::Allow));
    assert_eq!(perms.check("read_file", &a("")), Some(Decision::Ask));
    assert_eq!(Permissions::default().check("x", &a("")), None);
}

#[test]
fn the_shells_ask_rules_hold_for_a_background_job_and_its_allow_rules_do_not() {
    let perms = Permissions {
        allow: list(&["shell:cmd=ls*"]),
        ask: list(&["shell:cmd=git push*"]),
        deny: list(&[]),
    };
    let a = |cmd: &str| args(json!({ "cmd": cmd }));
    let job = "run_background_job";
    assert_eq!(perms.check(job, &a("git push -f")), Some(Decision::Ask));
    assert_eq!(perms.check(job, &a("make; git push")), Some(Decision::Ask));
    assert_eq!(perms.check(job, &a("ls")), None);
    assert_eq!(perms.check("shell", &a("ls")), Some(Decision::Allow));
}

/// docker-agent's matcher, written independently: Go's `filepath.Match` (wildcards stop at
/// `/`) as a regex, case-insensitive, with its trailing-`*` prefix rule.
fn docker_agent_matches(pattern: &str, text: &str) -> bool {
    let (pattern, text) = (pattern.to_lowercase(), text.to_lowercase());
    if let Some(prefix) = pattern.strip_suffix('*')
        && !prefix.contains(['*', '?', '[', '\\'])
    {
        return text.starts_with(prefix);
    }
    let mut re = String::from("^");
    for c in pattern.chars() {
        match c {
            '*' => re.push_str("[^/]*"),
            '?' => re.push_str("[^/]"),
            c => re.push_str(&regex::escape(&c.to_string())),
        }
    }
    re.push('$');
    regex::Regex::new(&re).is_ok_and(|r| r.is_match(&text))
}

proptest! {
    #[test]
    fn a_deny_pattern_never_matches_less_than_docker_agents(
        pattern in "[ab/ *?R-]{1,8}",
        fills in prop::collection::vec("[ab rR-]{0,4}", 8),
        upper in any::<bool>(),
    ) {
        // The text instantiates the pattern (each wildcard filled), so most cases match.
        let mut fill = fills.iter();
        let mut text: String = pattern
            .chars()
            .map(|c| match c {
                '*' => fill.next().cloned().unwrap_or_default(),
                '?' => "a".to_owned(),
                c => c.to_string(),
            })
            .collect();
        if upper {
            text = text.to_uppercase();
        }
        if docker_agent_matches(&pattern, &text) {
            for (tool, key) in [("read_file", "path"), ("shell", "cmd")] {
                let perms = Permissions {
                    deny: list(&[&format!("{tool}:{key}={pattern}")]),
                    ..Permissions::default()
                };
                let a = args(json!({ key: text }));
                prop_assert_eq!(
                    perms.check(tool, &a),
                    Some(Decision::Deny),
                    "{} {:?} {:?}",
                    tool,
                    pattern,
                    text
                );
            }
        }
    }

    #[test]
    fn a_shell_allow_rule_never_allows_a_command_it_does_not_cover(
        covered in prop::collection::vec("[a-z0-9 .=-]{0,10}", 0..3),
        other in "(rm -rf victim|curl x|sh|python3 -c x|/bin/rm y|env rm z)",
        join in prop::sample::select(vec![
            "; {o}", " && {o}", " || {o}", " | {o}", " & {o}", "\n{o}",
            " $({o})", " `{o}`", " <({o})", " >({o})", " \"$({o})\"", "; bash -c '{o}'",
            "; (cd /; {o})", "; if true; then {o}; fi", "; for i in 1; do {o}; done",
            "; f() {{ {o}; }}; f",
        ]),
        before in any::<bool>(),
    ) {
        let allowed_line = format!("npm run test {}", covered.join(" "));
        let tail = join.replace("{o}", &other);
        let line = if before {
            format!("{other}; {allowed_line}")
        } else {
            format!("{allowed_line}{tail}")
        };
        let perms = Permissions {
            allow: list(&["shell:cmd=npm run test*", "shell:cmd=echo *"]),
            ..Permissions::default()
        };
        let a = args(json!({ "cmd": line }));
        prop_assert_ne!(perms.check("shell", &a), Some(Decision::Allow), "{}", line);
    }
}

#[test]
fn shell_deny_rules_hold_where_the_line_names_its_program_late() {
    let denied = |pattern: &str, cmd: &str| verdicts(pattern, "shell", &json!({ "cmd": cmd })).0;
    for cmd in [
        "ls | xargs rm",
        "ls | xargs -0 /bin/rm",
        "echo -rf / | xargs rm",
        "ls | xargs -I % rm %",
        "find . -exec rm {} \\;",
        "/bin/r? victim",
        "/b*/rm victim",
        "r[m] victim",
        "env -S rm victim",
        "coproc rm victim",
        "strace -f rm victim",
        "script -qc 'rm victim' /dev/null",
        ". /dev/stdin <<< 'rm victim'",
        "source <(echo rm victim)",
        "sh <(echo rm victim)",
        "shopt -s expand_aliases\nalias r=rm\nr victim",
    ] {
        assert!(denied("shell:cmd=rm *", cmd), "{cmd}");
    }
    // Input appended by `xargs` may hold any option.
    assert!(denied("shell:cmd=rm -rf *", "ls | xargs rm"));
    assert!(denied("shell:cmd=rm*-r*", "ls | xargs -I % rm %"));
    for cmd in ["ls | xargs grep x", "find . -exec cat {} \\;", "ls *.rs"] {
        assert!(!denied("shell:cmd=rm *", cmd), "{cmd}");
    }
}

#[test]
fn path_deny_rules_hold_for_every_spelling_of_the_path() {
    let p = Permissions {
        deny: list(&["write_file:path=/etc/*", "read_multiple_files:paths=/etc/*"]),
        ask: list(&["read_file:path=/etc/passwd"]),
        ..Permissions::default()
    };
    let cwd = Path::new("/etc");
    let at = |tool: &str, a: Value, cwd: &Path| p.check_in(&[tool], &args(a), Some(cwd));
    for path in [
        "/tmp/../etc/passwd",
        "//etc/passwd",
        "/./etc/passwd",
        "/etc//passwd",
        "passwd",
        "./passwd",
        "../etc/passwd",
    ] {
        let a = json!({"path": path, "content": "x"});
        assert_eq!(at("write_file", a, cwd), Some(Decision::Deny), "{path}");
        let a = json!({"path": path});
        assert_eq!(at("read_file", a, cwd), Some(Decision::Ask), "{path}");
    }
    let a = json!({"paths": ["/tmp/x", "/tmp/../etc/shadow"]});
    assert_eq!(
        at("read_multiple_files", a, Path::new("/")),
        Some(Decision::Deny)
    );
    let a = json!({"path": "/tmp/x", "content": "/etc/passwd"});
    assert_eq!(at("write_file", a, Path::new("/")), None);
    // Allow rules stay strict: a spelled-out `..` is never allowed by a pattern without one.
    let allow = Permissions {
        allow: list(&["write_file:path=/tmp/*"]),
        ..Permissions::default()
    };
    let a = args(json!({"path": "/tmp/../etc/passwd"}));
    assert_eq!(allow.check_in(&["write_file"], &a, Some(cwd)), None);
}

#[test]
fn a_files_deny_rule_holds_for_the_tools_that_reach_the_same_file() {
    let p = Permissions {
        deny: list(&["write_file:path=/etc/*"]),
        ask: list(&["read_file:path=/secret/*"]),
        ..Permissions::default()
    };
    let at = |tool: &str, a: Value| p.check_in(&[tool], &args(a), Some(Path::new("/")));
    let edit = json!({"path": "/etc/passwd", "edits": []});
    assert_eq!(at("edit_file", edit), Some(Decision::Deny));
    let many = json!({"paths": ["/tmp/x", "/secret/key"]});
    assert_eq!(at("read_multiple_files", many), Some(Decision::Ask));
    let search = json!({"path": "/secret", "query": "BEGIN"});
    assert_eq!(at("search_files_content", search), Some(Decision::Ask));
    let search = json!({"path": "/", "query": "BEGIN"});
    assert_eq!(at("search_files_content", search), Some(Decision::Ask));
    let elsewhere = json!({"path": "/tmp", "query": "BEGIN"});
    assert_eq!(at("search_files_content", elsewhere), None);
    assert_eq!(
        at("edit_file", json!({"path": "/tmp/x", "edits": []})),
        None
    );
    // Allow rules do not extend: an allow for `read_file` allows no other tool.
    let allow = Permissions {
        allow: list(&["read_file:path=/tmp/*"]),
        ..Permissions::default()
    };
    let a = args(json!({"paths": ["/tmp/x"]}));
    assert_eq!(allow.check_in(&["read_multiple_files"], &a, None), None);
}
