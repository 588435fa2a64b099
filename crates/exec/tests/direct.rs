//! A plain command run without its shell behaves exactly as through `SHELL -c`: same stdout,
//! stderr, exit status, environment and working directory, for bash and dash, including every
//! way the program can fail to start (the spawn then falls back to the shell).

#![allow(clippy::unwrap_used, reason = "tests")]

use std::ffi::OsString;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tether_exec::{
    Direct, ExecRecord, ExecSpec, MARKER, Shell, ShellFlavor, ShellKind, Stdin, find_in_path,
};

struct Fixture {
    _dir: tempfile::TempDir,
    /// The working directory (physical path).
    cwd: PathBuf,
    /// A symlink to it.
    link: PathBuf,
    bin: PathBuf,
}

fn write(path: &Path, text: &str, mode: u32) {
    std::fs::write(path, text).unwrap();
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode)).unwrap();
}

fn fixture() -> Fixture {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().canonicalize().unwrap();
    let cwd = root.join("work");
    let bin = root.join("bin");
    std::fs::create_dir_all(cwd.join("sub")).unwrap();
    std::fs::create_dir_all(&bin).unwrap();
    let link = root.join("link");
    std::os::unix::fs::symlink(&cwd, &link).unwrap();
    let report = "#!/bin/sh\necho \"args: $# $*\"\necho \"cwd: $(pwd -P)\"\necho \"stdin: $(cat)\"\necho to-stderr >&2\nexit 3\n";
    write(&cwd.join("report.sh"), report, 0o755);
    write(&bin.join("report-tool"), report, 0o755);
    write(
        &cwd.join("no-shebang.sh"),
        "echo \"no shebang: $0 $*\"\n",
        0o755,
    );
    write(
        &cwd.join("not-executable.sh"),
        "#!/bin/sh\necho never\n",
        0o644,
    );
    // Found on PATH but not executable: the shell looks further, then reports it.
    write(
        &bin.join("not-executable-tool"),
        "#!/bin/sh\necho never\n",
        0o644,
    );
    Fixture {
        _dir: dir,
        cwd,
        link,
        bin,
    }
}

fn shells() -> Vec<(Shell, ShellFlavor)> {
    let path = std::env::var("PATH").unwrap_or_default();
    let mut out = Vec::new();
    for name in ["bash", "dash"] {
        let Some(program) = find_in_path(name, &path) else {
            continue;
        };
        let shell = Shell {
            program,
            kind: ShellKind::EnvShell,
        };
        if let Some(flavor) = shell.flavor() {
            out.push((shell, flavor));
        }
    }
    assert!(!out.is_empty(), "neither bash nor dash was found");
    out
}

fn spec(
    f: &Fixture,
    shell: &Shell,
    command: &str,
    env: &[(&str, OsString)],
    direct: Option<ShellFlavor>,
) -> ExecSpec {
    let mut spec = ExecSpec::new(shell.program.clone(), &f.cwd);
    spec.args = shell.args(command);
    let mut base: Vec<(OsString, OsString)> = vec![
        (
            "PATH".into(),
            format!("{}:/usr/bin:/bin", f.bin.display()).into(),
        ),
        ("HOME".into(), f.cwd.clone().into()),
        ("VAR".into(), "value".into()),
        ("WEIRD-NAME".into(), "kept by bash, dropped by dash".into()),
    ];
    base.extend(env.iter().map(|(k, v)| (OsString::from(k), v.clone())));
    spec.base_env = Some(Arc::from(base));
    spec.env = vec![("TETHER_HOOK_EVENT".into(), "pre_tool_use".into())];
    spec.stdin = Stdin::Bytes(Arc::from(&b"{\"x\": 1}"[..]));
    spec.direct = direct.map(|flavor| Direct {
        flavor,
        words: command.split_whitespace().map(OsString::from).collect(),
    });
    spec
}

/// What a caller can observe, with `env`'s output sorted (bash reorders the environment) and
/// without the per-run marker (each run has its own).
fn observed(r: &ExecRecord) -> (Option<i32>, Option<i32>, Vec<String>, String) {
    let marker = format!("{MARKER}=");
    let mut lines: Vec<String> = r
        .stdout
        .lossy()
        .lines()
        .filter(|l| !l.starts_with(&marker))
        .map(str::to_owned)
        .collect();
    lines.sort();
    (r.exit_code, r.signal, lines, r.stderr.lossy())
}

#[tokio::test]
async fn plain_commands_behave_the_same_without_the_shell() {
    let f = fixture();
    // (command, whether the direct spawn succeeds; when it fails the shell runs it instead)
    let table = [
        ("./report.sh a b", true),
        ("./report.sh --flag=v a,b 50% user@host:1", true),
        ("report-tool x", true),
        ("env", true),
        ("/usr/bin/env", true),
        ("./missing.sh", false),
        ("missing-tool", false),
        ("./not-executable.sh", false),
        ("not-executable-tool", false),
        ("./no-shebang.sh x y", false),
        ("./sub", false),
    ];
    let link = f.link.clone().into_os_string();
    let envs: [Vec<(&str, OsString)>; 3] = [
        vec![],
        vec![
            ("PWD", link),
            ("SHLVL", "2".into()),
            ("OLDPWD", "/nonexistent".into()),
        ],
        vec![
            ("PWD", "/".into()),
            ("OLDPWD", f.bin.clone().into()),
            ("_", "/old".into()),
        ],
    ];
    for (shell, flavor) in shells() {
        for env in &envs {
            for (command, direct) in table {
                let through_shell = tether_exec::run(spec(&f, &shell, command, env, None)).await;
                let without = tether_exec::run(spec(&f, &shell, command, env, Some(flavor))).await;
                let what = format!("{command:?} with {} and {env:?}", shell.program.display());
                assert!(!through_shell.direct, "{what}");
                assert_eq!(without.direct, direct, "{what}");
                assert_eq!(observed(&without), observed(&through_shell), "{what}");
            }
        }
    }
}

#[tokio::test]
async fn the_shell_runs_commands_when_its_start_up_would_matter() {
    let f = fixture();
    for (shell, flavor) in shells() {
        for var in ["BASH_ENV", "ENV", "SHELLOPTS", "BASH_FUNC_f%%"] {
            let env = [(var, OsString::from("/dev/null"))];
            let r = tether_exec::run(spec(&f, &shell, "./report.sh", &env, Some(flavor))).await;
            assert!(!r.direct, "{var}");
            assert_eq!(r.exit_code, Some(3), "{var}");
        }
    }
}

#[tokio::test]
async fn a_missing_working_directory_fails_either_way() {
    let f = fixture();
    let (shell, flavor) = shells().remove(0);
    let mut s = spec(&f, &shell, "./report.sh", &[], Some(flavor));
    s.cwd = f.cwd.join("gone");
    let r = tether_exec::run(s).await;
    assert!(r.spawn_error.unwrap().contains("does not exist"));
}
