//! The `lsp_*` tools against real language servers from npm (pyright, typescript-language-server,
//! bash-language-server), installed by `scripts/mcp-test-deps`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "tests panic on purpose"
)]

use std::path::Path;
use std::sync::Arc;

use serde_json::{Map, Value, json};
use tether_config::LspServer as Config;
use tether_lsp::{LspServer, LspToolset};
use tether_test_support::mcp::{group_members, lsp_bin};
use tether_tools::{ToolContext, ToolResult};
use tokio_util::sync::CancellationToken;

fn server(root: &Path, bin: &str, types: &[&str]) -> Arc<LspServer> {
    let config = Config {
        command: lsp_bin(bin).display().to_string(),
        // bash-language-server takes `start`, the others `--stdio`.
        args: vec![
            if bin == "bash-language-server" {
                "start"
            } else {
                "--stdio"
            }
            .to_owned(),
        ],
        env: Vec::new(),
        file_types: types.iter().map(|t| (*t).to_owned()).collect(),
        working_dir: None,
        version: None,
    };
    Arc::new(LspServer::new(config, root, None))
}

async fn call(set: &LspToolset, root: &Path, name: &str, args: Value) -> ToolResult {
    let tools = set.tools();
    let tool = tools
        .iter()
        .find(|t| t.definition().name == name)
        .unwrap_or_else(|| panic!("no tool {name}"));
    let args: Map<String, Value> = args.as_object().cloned().unwrap_or_default();
    let cancel = CancellationToken::new();
    let ctx = ToolContext {
        working_dir: root,
        cancel: &cancel,
        env: &[],
        progress: None,
    };
    tool.call(&args, ctx).await
}

fn ok(r: &ToolResult) -> &str {
    assert!(!r.is_error, "{}", r.content);
    &r.content
}

fn names(set: &LspToolset) -> Vec<String> {
    set.tools()
        .iter()
        .map(|t| t.definition().name.clone())
        .collect()
}

const PY: &str = "class Base:
    def greet(self) -> str:
        return \"hi\"


class Child(Base):
    def greet(self) -> str:
        return \"child\"


def add(a: int, b: int) -> int:
    return a + b


total = add(1, 2)
name = Child().greet()
";

fn python_workspace() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("a.py"), PY).unwrap();
    std::fs::write(
        dir.path().join("b.py"),
        "from a import add\n\nprint(add(3, 4))\n",
    )
    .unwrap();
    std::fs::write(dir.path().join("bad.py"), "x: int = \"s\"\n").unwrap();
    dir
}

#[tokio::test(flavor = "multi_thread")]
async fn pyright_answers_each_tool_it_declares_and_hides_the_others() {
    let dir = python_workspace();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let set = LspToolset::new(vec![server(&root, "pyright-langserver", &[".py"])]);
    assert_eq!(set.start().await, Vec::<String>::new());
    let tools = names(&set);
    // pyright formats nothing and has no implementations or type hierarchy.
    for hidden in ["lsp_format", "lsp_implementations", "lsp_type_hierarchy"] {
        assert!(!tools.iter().any(|t| t == hidden), "{hidden} in {tools:?}");
    }
    let a = root.join("a.py").display().to_string();

    let ws = call(&set, &root, "lsp_workspace", json!({})).await;
    assert!(ok(&ws).contains("- Hover: Yes\n"), "{}", ws.content);
    assert!(ws.content.contains("- Formatting: No\n"), "{}", ws.content);
    assert!(ws.content.contains("- File types: .py\n"), "{}", ws.content);

    let hover = call(
        &set,
        &root,
        "lsp_hover",
        json!({"file": a, "line": 11, "character": 5}),
    )
    .await;
    assert!(
        ok(&hover).contains("(function) def add(\n    a: int,\n    b: int\n) -> int"),
        "{}",
        hover.content
    );

    let def = call(
        &set,
        &root,
        "lsp_definition",
        json!({"file": a, "line": 15, "character": 9}),
    )
    .await;
    assert!(ok(&def).contains(&format!("{a}:11:5")), "{}", def.content);

    let refs = call(
        &set,
        &root,
        "lsp_references",
        json!({"file": a, "line": 11, "character": 5}),
    )
    .await;
    assert!(
        ok(&refs).contains(&format!("- {a}:15:9")),
        "{}",
        refs.content
    );
    assert!(
        refs.content.contains(&format!("- {a}:11:5")),
        "{}",
        refs.content
    );
    let refs = call(
        &set,
        &root,
        "lsp_references",
        json!({"file": a, "line": 11, "character": 5, "include_declaration": false}),
    )
    .await;
    assert!(
        !ok(&refs).contains(&format!("- {a}:11:5")),
        "{}",
        refs.content
    );

    let symbols = call(&set, &root, "lsp_document_symbols", json!({"file": a})).await;
    assert!(
        ok(&symbols).contains("- Class Base (line 1)\n  - Method greet (line 2)"),
        "{}",
        symbols.content
    );

    let found = call(
        &set,
        &root,
        "lsp_workspace_symbols",
        json!({"query": "Child"}),
    )
    .await;
    assert!(
        ok(&found).contains(&format!("- Class Child ({a}:6)")),
        "{}",
        found.content
    );

    let sig = call(
        &set,
        &root,
        "lsp_signature_help",
        json!({"file": a, "line": 15, "character": 13}),
    )
    .await;
    assert!(
        ok(&sig).contains("Parameters:\n1. a: int [ACTIVE]\n2. b: int"),
        "{}",
        sig.content
    );

    let calls = call(
        &set,
        &root,
        "lsp_call_hierarchy",
        json!({"file": a, "line": 11, "character": 5, "direction": "incoming"}),
    )
    .await;
    assert!(
        ok(&calls).starts_with("Incoming calls to 'add':"),
        "{}",
        calls.content
    );
    let bad = call(
        &set,
        &root,
        "lsp_call_hierarchy",
        json!({"file": a, "line": 11, "character": 5, "direction": "sideways"}),
    )
    .await;
    assert!(bad.is_error && bad.content == "direction must be 'incoming' or 'outgoing'");

    let actions = call(
        &set,
        &root,
        "lsp_code_actions",
        json!({"file": a, "start_line": 1}),
    )
    .await;
    ok(&actions);

    let bad = root.join("bad.py").display().to_string();
    let diags = call(&set, &root, "lsp_diagnostics", json!({"file": bad})).await;
    assert!(
        ok(&diags).starts_with(&format!("Diagnostics for {bad}:\n- [Error] Line 1: ")),
        "{}",
        diags.content
    );
    let clean = call(&set, &root, "lsp_diagnostics", json!({"file": a})).await;
    assert_eq!(ok(&clean), format!("No diagnostics for {a}"));

    let renamed = call(
        &set,
        &root,
        "lsp_rename",
        json!({"file": a, "line": 11, "character": 5, "new_name": "plus"}),
    )
    .await;
    assert!(
        ok(&renamed).starts_with("Renamed to 'plus'\n"),
        "{}",
        renamed.content
    );
    let text = std::fs::read_to_string(root.join("a.py")).unwrap();
    assert!(
        text.contains("def plus(a: int, b: int)") && text.contains("total = plus(1, 2)"),
        "{text}"
    );

    // Positions are 1-based: a zero is refused before anything is asked.
    let zero = call(
        &set,
        &root,
        "lsp_hover",
        json!({"file": a, "line": 0, "character": 1}),
    )
    .await;
    assert!(
        zero.is_error && zero.content.contains("1-based"),
        "{}",
        zero.content
    );
    set.stop().await;
}

const TS: &str = "interface Shape {
  area(): number;
}

class Square implements Shape {
  constructor(private side: number) {}
  area(): number {
    return this.side * this.side;
  }
}

function total(shapes: Shape[]): number {
  return shapes.reduce((sum, s) => sum + s.area(), 0);
}

const n: number = total([new Square(2)]);
";

#[tokio::test(flavor = "multi_thread")]
async fn typescript_renames_formats_and_reports_errors() {
    let dir = tempfile::tempdir().unwrap();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    std::fs::write(root.join("main.ts"), TS).unwrap();
    std::fs::write(root.join("err.ts"), "const s: string = 1;\n").unwrap();
    std::fs::write(
        root.join("ugly.ts"),
        "const   x =  1\nfunction f( ){return x}\n",
    )
    .unwrap();
    let set = LspToolset::new(vec![server(
        &root,
        "typescript-language-server",
        &[".ts", ".tsx"],
    )]);
    assert_eq!(set.start().await, Vec::<String>::new());
    let main = root.join("main.ts").display().to_string();

    let imps = call(
        &set,
        &root,
        "lsp_implementations",
        json!({"file": main, "line": 2, "character": 3}),
    )
    .await;
    assert!(
        ok(&imps).contains(&format!("{main}:7:3")),
        "{}",
        imps.content
    );

    let err = root.join("err.ts").display().to_string();
    let diags = call(&set, &root, "lsp_diagnostics", json!({"file": err})).await;
    assert!(
        ok(&diags).contains("- [Error] Line 1: Type 'number' is not assignable to type 'string'."),
        "{}",
        diags.content
    );

    let hints = call(&set, &root, "lsp_inlay_hints", json!({"file": main})).await;
    ok(&hints);

    let ugly = root.join("ugly.ts").display().to_string();
    let formatted = call(&set, &root, "lsp_format", json!({"file": ugly})).await;
    assert!(
        ok(&formatted).starts_with(&format!("Formatted {ugly}\nApplied ")),
        "{}",
        formatted.content
    );
    let text = std::fs::read_to_string(root.join("ugly.ts")).unwrap();
    assert!(text.starts_with("const x = 1\n"), "{text:?}");

    let renamed = call(
        &set,
        &root,
        "lsp_rename",
        json!({"file": main, "line": 12, "character": 10, "new_name": "grandTotal"}),
    )
    .await;
    assert_eq!(
        ok(&renamed),
        format!("Renamed to 'grandTotal'\nModified 1 file(s):\n- {main} (2 change(s))\n")
    );
    let text = std::fs::read_to_string(root.join("main.ts")).unwrap();
    assert!(
        text.contains("function grandTotal(") && text.contains("= grandTotal(["),
        "{text}"
    );

    let outgoing = call(
        &set,
        &root,
        "lsp_call_hierarchy",
        json!({"file": main, "line": 12, "character": 10, "direction": "outgoing"}),
    )
    .await;
    assert!(
        ok(&outgoing).starts_with("Outgoing calls from 'grandTotal':"),
        "{}",
        outgoing.content
    );

    // Every process the server started (tsserver among them) goes with it.
    let pid = set.servers()[0].pid().await.unwrap();
    assert!(!group_members(pid).is_empty());
    set.stop().await;
    assert_eq!(group_members(pid), Vec::<u32>::new());
}

#[tokio::test(flavor = "multi_thread")]
async fn calls_go_to_the_server_of_the_file_type() {
    let dir = python_workspace();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    std::fs::write(
        root.join("run.sh"),
        "#!/bin/bash\ngreet() {\n  echo hi\n}\ngreet\n",
    )
    .unwrap();
    std::fs::write(root.join("notes.txt"), "hello\n").unwrap();
    let set = LspToolset::new(vec![
        server(&root, "pyright-langserver", &[".py"]),
        server(&root, "bash-language-server", &["sh", ".BASH"]),
    ]);
    assert_eq!(set.start().await, Vec::<String>::new());

    // bash-language-server analyzes files once its `initialized` handler is done (the file
    // opened before that is read by its background analysis): ask until it knows.
    let mut sh = ToolResult::default();
    for _ in 0..100 {
        sh = call(
            &set,
            &root,
            "lsp_document_symbols",
            json!({"file": "run.sh"}),
        )
        .await;
        if ok(&sh) != "No symbols found in file" {
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(100)).await;
    }
    let run_sh = root.join("run.sh").display().to_string();
    assert!(
        ok(&sh).contains(&format!("- Function greet ({run_sh}:2)")),
        "{}",
        sh.content
    );
    let py = call(&set, &root, "lsp_document_symbols", json!({"file": "a.py"})).await;
    assert!(ok(&py).contains("- Class Base (line 1)"), "{}", py.content);
    let def = call(
        &set,
        &root,
        "lsp_definition",
        json!({"file": "run.sh", "line": 5, "character": 2}),
    )
    .await;
    assert!(ok(&def).contains("run.sh:2:1"), "{}", def.content);

    let none = call(
        &set,
        &root,
        "lsp_hover",
        json!({"file": "notes.txt", "line": 1, "character": 1}),
    )
    .await;
    assert!(none.is_error, "{}", none.content);
    assert_eq!(
        none.content,
        format!(
            "no LSP server configured for file: {}",
            root.join("notes.txt").display()
        )
    );
    let missing = call(
        &set,
        &root,
        "lsp_hover",
        json!({"file": "../nope.py", "line": 1, "character": 1}),
    )
    .await;
    assert!(
        missing.is_error && missing.content.starts_with("cannot open ../nope.py"),
        "{}",
        missing.content
    );

    let ws = call(&set, &root, "lsp_workspace", json!({})).await;
    let sections: Vec<&str> = ok(&ws).split("\n---\n").collect();
    assert_eq!(sections.len(), 2, "{}", ws.content);
    assert!(
        sections[0].contains("pyright-langserver") && sections[1].contains("bash-language-server")
    );
    assert!(
        sections[1].contains("- File types: .sh, .bash\n"),
        "{}",
        sections[1]
    );
    set.stop().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_killed_server_starts_again_on_the_next_call() {
    let dir = python_workspace();
    let root = std::fs::canonicalize(dir.path()).unwrap();
    let set = LspToolset::new(vec![server(&root, "pyright-langserver", &[".py"])]);
    assert_eq!(set.start().await, Vec::<String>::new());
    let first = set.servers()[0].pid().await.unwrap();
    let pgid = rustix::process::Pid::from_raw(i32::try_from(first).unwrap()).unwrap();
    rustix::process::kill_process_group(pgid, rustix::process::Signal::KILL).unwrap();
    // Called at once: the client may not have seen the server's end yet.
    let hover = call(
        &set,
        &root,
        "lsp_hover",
        json!({"file": "a.py", "line": 11, "character": 5}),
    )
    .await;
    assert!(ok(&hover).contains("def add"), "{}", hover.content);
    let second = set.servers()[0].pid().await.unwrap();
    assert_ne!(first, second);
    set.stop().await;
    assert_eq!(group_members(second), Vec::<u32>::new());
}
