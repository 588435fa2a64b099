use super::*;

use tether_config::Origin;

fn command(text: &str) -> HookSpec {
    HookSpec::command(text, HookSource::Yaml, Origin::synthetic("test"))
}

#[test]
fn the_answer_must_be_yes_to_run_untrusted_hooks() {
    for (answer, runs) in [
        ("y\n", true),
        ("YES\n", true),
        (" y \n", true),
        ("\n", false),
        ("n\n", false),
        ("yes please\n", false),
        ("", false),
    ] {
        let mut out = Vec::new();
        let ran = ask("the report\n", &mut answer.as_bytes(), &mut out).unwrap();
        assert_eq!(ran, runs, "{answer:?}");
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "the report\nrun them this once? [y/N] "
        );
    }
}

#[test]
fn the_script_is_found_as_the_runner_finds_it() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::create_dir(d.join("hooks")).unwrap();
    std::fs::write(d.join("hooks/check.sh"), "exit 0\n").unwrap();
    let at = |cmd: &str| script_of(cmd, d, d);
    let script = Some(d.join("hooks/check.sh"));
    assert_eq!(at("./hooks/check.sh --flag"), script);
    assert_eq!(at("\n# a comment\nFOO=1 hooks/check.sh"), script);
    assert_eq!(at("bash -e ./hooks/check.sh"), script);
    assert_eq!(at("\"$TETHER_PROJECT_DIR\"/hooks/check.sh"), script);
    assert_eq!(at("/usr/bin/env python3 x"), None);
    assert_eq!(at("echo hi"), None);
    assert_eq!(at("./hooks/missing.sh"), None);
    assert_eq!(at("./hooks"), None);
}

#[test]
fn one_byte_of_the_script_or_any_covered_field_changes_the_hash() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path();
    std::fs::write(d.join("check.sh"), "exit 0\n").unwrap();
    let spec = command("./check.sh");
    let base = print("pre_tool_use", Some("*"), &spec, d).unwrap();
    assert_eq!(
        base.script.as_deref(),
        Some(d.join("check.sh").to_str().unwrap())
    );
    assert_eq!(print("pre_tool_use", Some("*"), &spec, d).unwrap(), base);

    std::fs::write(d.join("check.sh"), "exit 1\n").unwrap();
    let edited = print("pre_tool_use", Some("*"), &spec, d).unwrap();
    assert_ne!(edited.sha256, base.sha256);
    std::fs::write(d.join("check.sh"), "exit 0\n").unwrap();

    let mut with_args = spec.clone();
    with_args.args = vec!["x".into()];
    let mut with_env = spec.clone();
    with_env.env = vec![("A".into(), "1".into())];
    let mut with_dir = spec;
    with_dir.working_dir = Some(".".into());
    for other in [with_args, with_env, with_dir, command("./check.sh ")] {
        let p = print("pre_tool_use", Some("*"), &other, d).unwrap();
        assert_ne!(p.sha256, base.sha256, "{other:?}");
    }
    let builtin = HookSpec::builtin(
        "add_date",
        Vec::new(),
        HookSource::Yaml,
        Origin::synthetic("t"),
    );
    assert_eq!(print("turn_start", None, &builtin, d), None);
}

#[test]
fn a_hook_is_trusted_new_or_changed_against_the_store() {
    let hook = |command: &str, sha: &str| HookPrint {
        event: "pre_tool_use".into(),
        matcher: None,
        command: command.into(),
        script: None,
        script_sha256: None,
        sha256: sha.into(),
    };
    let mut store = Store::default();
    store.files.insert(
        "/a.yaml".into(),
        TrustedFile {
            trusted_at: String::new(),
            hooks: vec![hook("./check.sh", "1")],
        },
    );
    assert_eq!(
        store.standing("/a.yaml", &hook("./check.sh", "1")),
        Standing::Trusted
    );
    assert_eq!(
        store.standing("/a.yaml", &hook("./check.sh", "2")),
        Standing::Changed
    );
    assert_eq!(
        store.standing("/a.yaml", &hook("./other.sh", "3")),
        Standing::New
    );
    assert_eq!(
        store.standing("/b.yaml", &hook("./check.sh", "1")),
        Standing::New
    );

    let units = [
        Unit {
            key: "/a.yaml".into(),
            always: false,
            hooks: vec![hook("./check.sh", "2")],
        },
        Unit {
            key: "https://example.com/a.yaml".into(),
            always: true,
            hooks: vec![hook("./remote.sh", "4")],
        },
    ];
    let keys = |required| -> Vec<String> {
        pending(&store, &units, required)
            .iter()
            .map(|(u, _, _)| u.key.clone())
            .collect()
    };
    // A fetched file needs trust whatever the settings say.
    assert_eq!(keys(false), ["https://example.com/a.yaml"]);
    assert_eq!(keys(true), ["/a.yaml", "https://example.com/a.yaml"]);
    let report = report(&pending(&store, &units, true));
    assert!(
        report.contains("[changed] pre_tool_use: ./check.sh"),
        "{report}"
    );
    assert!(
        report.contains("[new] pre_tool_use: ./remote.sh"),
        "{report}"
    );
}

#[test]
fn the_store_is_written_atomically_and_read_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("home/trusted-hooks.json");
    assert_eq!(Store::load(&path).unwrap().files.len(), 0);
    let mut store = Store::load(&path).unwrap();
    store.files.insert("/a.yaml".into(), TrustedFile::default());
    store.save(&path).unwrap();
    assert_eq!(Store::load(&path).unwrap(), store);
    std::fs::write(&path, "{not json").unwrap();
    let err = Store::load(&path).unwrap_err().to_string();
    assert!(err.contains("cannot read the hook trust store"), "{err}");
}
