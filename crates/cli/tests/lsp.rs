//! `type: lsp` toolsets end to end: two real language servers from npm behind one set of
//! `lsp_*` tools, called by the script model through the approval chain and the hooks, and
//! nothing of them left running after the run.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use tempfile::TempDir;
use tether_test_support::cli::{assert_load_errors, tether};
use tether_test_support::mcp::lsp_bin;

#[test]
fn lsp_tools_route_by_file_type_meet_the_hooks_and_leave_nothing_running() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("a.py"),
        "def add(a: int, b: int) -> int:\n    return a + b\n\n\nprint(add(1, 2))\n",
    )
    .unwrap();
    std::fs::write(d.join("bad.py"), "x: int = \"s\"\n").unwrap();
    std::fs::write(
        d.join("run.sh"),
        "#!/bin/bash\ngreet() {\n  echo hi\n}\ngreet\n",
    )
    .unwrap();
    std::fs::write(
        d.join("agent.yaml"),
        format!(
            r#"agents:
  root:
    model: script/s.yaml
    toolsets:
      - type: lsp
        command: {pyright}
        args: [--stdio]
        file_types: [.py]
        tools: [lsp_workspace, lsp_hover, lsp_rename, lsp_diagnostics]
      - type: lsp
        command: {bash}
        args: [start]
        file_types: [.sh]
    hooks:
      pre_tool_use:
        - matcher: lsp_rename
          hooks:
            - type: command
              command: 'echo "no renames today" >&2; exit 2'
"#,
            pyright = lsp_bin("pyright-langserver").display(),
            bash = lsp_bin("bash-language-server").display(),
        ),
    )
    .unwrap();
    std::fs::write(
        d.join("s.yaml"),
        r#"replies:
  - tool_calls:
      - {name: lsp_hover, arguments: {file: a.py, line: 1, character: 5}}
      - {name: lsp_diagnostics, arguments: {file: bad.py}}
      - {name: lsp_rename, arguments: {file: a.py, line: 1, character: 5, new_name: plus}}
      - {name: lsp_references, arguments: {file: a.py, line: 1, character: 5}}
      - {name: lsp_definition, arguments: {file: run.sh, line: 5, character: 2}}
      - {name: lsp_hover, arguments: {file: a.py, line: 1, character: 5, File: x}}
  - text: done
"#,
    )
    .unwrap();
    let out = tether(d)
        .args(["run", "agent.yaml", "--json", "--exec", "go"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(0), "{out:?}");
    let responses: Vec<serde_json::Value> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| serde_json::from_str::<serde_json::Value>(l).ok())
        .filter(|e| e["type"] == "tool_response")
        .collect();
    let text = |i: usize| responses[i]["response"].as_str().unwrap().to_owned();
    assert!(text(0).contains("def add("), "{}", text(0));
    assert!(text(1).contains("- [Error] Line 1: "), "{}", text(1));
    // The hook blocked the rename: the file is untouched.
    assert!(text(2).contains("no renames today"), "{}", text(2));
    assert!(
        std::fs::read_to_string(d.join("a.py"))
            .unwrap()
            .contains("def add(")
    );
    // pyright's toolset keeps no `lsp_references`; bash-language-server's does, but not for .py.
    assert!(
        text(3).contains("does not support lsp_references"),
        "{}",
        text(3)
    );
    assert!(text(4).contains("run.sh:2:1"), "{}", text(4));
    assert!(text(5).contains("differ only in case"), "{}", text(5));

    // The servers ran in the working directory: no process is left there.
    let root = std::fs::canonicalize(d).unwrap();
    let left: Vec<String> = std::fs::read_dir("/proc")
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().parse::<u32>().is_ok())
        .filter(|e| std::fs::read_link(e.path().join("cwd")).is_ok_and(|c| c == root))
        .map(|e| std::fs::read_to_string(e.path().join("cmdline")).unwrap_or_default())
        .collect();
    assert_eq!(left, Vec::<String>::new());
}

#[test]
fn lsp_fields_are_checked_at_load() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    assert_load_errors(
        d,
        "agents:\n  root:\n    model: openai/gpt-4o\n    toolsets:\n      - type: lsp\n        file_types: [.py]\n      - type: lsp\n        command: x\n        file_types: ['*.py', '']\n      - type: shell\n        file_types: [.sh]\n      - type: lsp\n        command: gopls\n        remote: {url: 'http://x'}\n      - type: lsp\n        command: gopls\n        tools: [lsp_nope]\n",
        &[
            "agents.root.toolsets[0]: lsp toolset requires a command to be set",
            "agents.root.toolsets[1].file_types[0]: `*.py` is not a file extension",
            "agents.root.toolsets[1].file_types[1]: `` is not a file extension",
            "agents.root.toolsets[2].file_types: `file_types` only applies to `type: lsp` toolsets, not `type: shell`",
            "agents.root.toolsets[3].remote: `remote` only applies to `type: mcp` toolsets, not `type: lsp`",
            "agents.root.toolsets[4].tools[0]: unknown tool `lsp_nope` in a `lsp` toolset",
        ],
    );
}
