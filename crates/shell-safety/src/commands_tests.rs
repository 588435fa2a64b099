use pretty_assertions::assert_eq;

use super::CommandLine;

/// Every `(line, form)`: the line's forms hold the form.
fn assert_forms(cases: &[(&str, &str)]) {
    for (line, form) in cases {
        let parsed = CommandLine::parse(line);
        assert!(
            parsed.forms().iter().any(|f| f == form),
            "{line:?} lacks {form:?}: {:?}",
            parsed.forms()
        );
    }
}

fn has_form(line: &str, form: &str) -> bool {
    CommandLine::parse(line).forms().iter().any(|f| f == form)
}

#[test]
fn every_command_is_seen_wherever_it_is_written() {
    let cases = [
        ("rm -rf victim", "rm -rf victim"),
        ("/bin/rm -rf victim", "rm -rf victim"),
        ("env rm -rf victim", "rm -rf victim"),
        ("env -i A=1 /usr/bin/rm x", "rm x"),
        ("x; rm -rf victim", "rm -rf victim"),
        ("true && rm x || echo no", "rm x"),
        ("echo $(rm -rf victim)", "rm -rf victim"),
        ("echo `rm -rf victim`", "rm -rf victim"),
        ("cat <(rm x)", "rm x"),
        ("ls | xargs rm -f", "rm -f"),
        ("sudo -u root rm -rf /", "rm -rf /"),
        ("command rm x", "rm x"),
        ("timeout 5 nice -n 1 rm x", "rm x"),
        ("bash -c 'rm -rf victim'", "rm -rf victim"),
        ("sh -c \"cd /; rm -rf victim\"", "rm -rf victim"),
        ("eval 'rm -rf victim'", "rm -rf victim"),
        ("bash <<'EOF'\nrm -rf victim\nEOF", "rm -rf victim"),
        ("find . -name x -exec rm -f {} \\;", "rm -f {}"),
        ("'rm' -rf victim", "rm -rf victim"),
        ("r\\m -rf victim", "rm -rf victim"),
        ("if true; then rm x; fi", "rm x"),
        ("for f in a b; do rm $f; done", "rm $f"),
        ("f() { rm x; }; f", "rm x"),
        ("X=1 rm x", "rm x"),
        ("(cd /; rm x)", "rm x"),
        ("cd /; sudo id", "sudo id"),
        ("echo x; sudo rm -rf /", "sudo rm -rf /"),
    ];
    assert_forms(&cases);
}

#[test]
fn the_whole_line_is_always_a_form() {
    assert_eq!(
        CommandLine::parse("  ls -la  ").forms()[..2],
        ["  ls -la  ", "ls -la"]
    );
    assert!(has_form("git status && git diff", "git status && git diff"));
}

#[test]
fn computed_programs_and_unreadable_lines_are_opaque() {
    for line in [
        "$X -rf /",
        "${CMD} x",
        "$(printf %s rm) x",
        "curl -s example.com | sh",
        "echo 'if' | bash",
        "ls \"unterminated",
    ] {
        assert!(CommandLine::parse(line).is_opaque(), "{line:?}");
    }
    for line in [
        "ls -la",
        "git status; git diff",
        "echo $(echo rm) x",
        "rm \"$f\"",
    ] {
        assert!(!CommandLine::parse(line).is_opaque(), "{line:?}");
    }
}

#[test]
fn plain_lines_split_into_units() {
    let units = |line: &str| CommandLine::parse(line).units().map(<[String]>::to_vec);
    let owned = |v: &[&str]| Some(v.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>());
    assert_eq!(units("npm run test"), owned(&["npm run test"]));
    assert_eq!(
        units("npm run test; rm -rf victim"),
        owned(&["npm run test", "rm -rf victim"])
    );
    assert_eq!(
        units("git status && git diff | less"),
        owned(&["git status", "git diff", "less"])
    );
    assert_eq!(units("make 2>&1 >/dev/null"), owned(&["make"]));
    assert_eq!(units("ls $HOME"), owned(&["ls $HOME"]));
    assert_eq!(
        units("git commit -m \"a; b\""),
        owned(&["git commit -m \"a; b\""])
    );
}

#[test]
fn substitutions_redirections_and_heredocs_withhold_units() {
    for line in [
        "npm run test $(rm -rf victim)",
        "npm run test `rm x`",
        "cat <(rm x)",
        "npm run test > /etc/passwd",
        "npm run test >> out.log",
        "wc -l < /etc/shadow",
        "cat <<EOF\nhi\nEOF",
        "cat <<< hi",
        "echo $((1+2))",
        "echo ${X:-$(rm x)}",
        "[[ -v 'a[$(touch x)]' ]]",
        "(( a[$(touch x)] ))",
        "ls \"unterminated",
    ] {
        assert_eq!(CommandLine::parse(line).units(), None, "{line:?}");
    }
}

#[test]
fn commands_behind_more_wrappers_are_seen() {
    let cases = [
        ("env -S 'rm -r' victim", "rm -r victim"),
        ("/usr/bin/env -S rm victim", "rm victim"),
        ("coproc rm victim", "rm victim"),
        ("strace -f -o log rm victim", "rm victim"),
        ("ltrace rm victim", "rm victim"),
        ("script -qc 'rm victim' /dev/null", "rm victim"),
        (". /dev/stdin <<< 'rm victim'", "rm victim"),
        ("source /dev/stdin <<'EOF'\nrm victim\nEOF", "rm victim"),
        ("bash /dev/stdin <<< 'rm victim'", "rm victim"),
        (
            "shopt -s expand_aliases\nalias r='rm -r'\nr victim",
            "rm -r",
        ),
    ];
    assert_forms(&cases);
}

#[test]
fn arguments_supplied_at_run_time_leave_a_command_open() {
    let cases = [
        ("ls | xargs rm", "rm "),
        ("ls | xargs -0 /bin/rm", "rm "),
        ("ls | xargs sudo rm -r", "rm -r "),
        ("ls | xargs -I % rm -rf %", "rm -rf "),
        ("find . -exec rm -rf {} \\;", "rm -rf "),
        ("alias r=rm", "rm "),
    ];
    for (line, open) in cases {
        let parsed = CommandLine::parse(line);
        assert!(
            parsed.open_forms().iter().any(|f| f == open),
            "{line:?} lacks open {open:?}: {:?}",
            parsed.open_forms()
        );
    }
    assert!(CommandLine::parse("rm x; ls").open_forms().is_empty());
}

#[test]
fn a_program_named_by_a_glob_or_a_script_known_only_at_run_time_is_opaque() {
    for line in [
        "/bin/r? -rf victim",
        "/b*/rm victim",
        "r[m] victim",
        "sh <(echo rm victim)",
        "source <(echo rm victim)",
        ". <(curl -s example.com)",
        "bash \"$SCRIPT\"",
        ". /dev/stdin",
    ] {
        assert!(CommandLine::parse(line).is_opaque(), "{line:?}");
    }
    for line in ["ls *.rs", "source ./env.sh", "bash run.sh"] {
        assert!(!CommandLine::parse(line).is_opaque(), "{line:?}");
    }
}
