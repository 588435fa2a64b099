//! `tether schema`, `tether completions`, `tether hooks events`: the schema validates every
//! example and seed agent file and rejects broken ones.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use std::path::{Path, PathBuf};

use assert_cmd::Command;
use serde_json::Value;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn tether(args: &[&str]) -> String {
    let out = Command::cargo_bin("tether")
        .unwrap()
        .args(args)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

fn compiled_schema() -> (boon::Schemas, boon::SchemaIndex) {
    let schema: Value = serde_json::from_str(&tether(&["schema"])).unwrap();
    let mut schemas = boon::Schemas::new();
    let mut compiler = boon::Compiler::new();
    compiler.add_resource("agent-schema.json", schema).unwrap();
    let index = compiler.compile("agent-schema.json", &mut schemas).unwrap();
    (schemas, index)
}

fn yaml_value(text: &str) -> Value {
    serde_saphyr::from_str(text).unwrap()
}

fn agent_files() -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(repo().join("examples"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            p.extension().is_some_and(|x| x == "yaml")
                && !p.to_string_lossy().ends_with(".script.yaml")
        })
        .collect();
    for agent in ["basic", "fs_tools", "file_writer"] {
        files.push(repo().join(format!("crates/test-support/cassettes/agents/{agent}.yaml")));
    }
    files
}

#[test]
fn the_schema_validates_every_example_and_seed_file() {
    let (schemas, index) = compiled_schema();
    let files = agent_files();
    assert!(files.len() >= 4, "{files:?}");
    for file in files {
        let value = yaml_value(&std::fs::read_to_string(&file).unwrap());
        if let Err(e) = schemas.validate(&value, index) {
            panic!("{} does not validate: {e}", file.display());
        }
    }
}

#[test]
fn the_schema_rejects_broken_files() {
    let (schemas, index) = compiled_schema();
    for broken in [
        "agents:\n  root:\n    modle: x\n",
        "agents:\n  root:\n    hooks:\n      pre_tool:\n        - hooks: []\n",
        "agents:\n  root:\n    hooks:\n      stop:\n        - matcher: x\n          type: command\n",
        "agents:\n  root:\n    hooks:\n      pre_tool_use:\n        - type: command\n",
        "agents:\n  root:\n    hooks:\n      stop:\n        - type: command\n          on_error: explode\n",
        "agents:\n  root:\n    toolsets:\n      - type: mcp\n",
        "models: {}\n",
    ] {
        assert!(
            schemas.validate(&yaml_value(broken), index).is_err(),
            "accepted:\n{broken}"
        );
    }
}

#[test]
fn examples_point_editors_at_the_schema() {
    for file in agent_files()
        .iter()
        .filter(|f| f.starts_with(repo().join("examples")))
    {
        let first = std::fs::read_to_string(file)
            .unwrap()
            .lines()
            .next()
            .unwrap_or_default()
            .to_owned();
        assert_eq!(
            first,
            "# yaml-language-server: $schema=../docs/agent-schema.json",
            "{}",
            file.display()
        );
    }
}

#[test]
fn completions_for_each_shell() {
    assert!(tether(&["completions", "bash"]).contains("_tether()"));
    assert!(tether(&["completions", "zsh"]).starts_with("#compdef tether"));
    assert!(tether(&["completions", "fish"]).contains("complete -c tether"));
}

#[test]
fn hooks_events_lists_all_32_events() {
    let out = tether(&["hooks", "events"]);
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines.len(), 32);
    assert!(
        lines[0].starts_with("pre_tool_use ") && lines[0].contains("can block"),
        "{}",
        lines[0]
    );
    assert!(
        out.contains("\nsession_start ") && out.contains("observes"),
        "{out}"
    );
}

/// One line per schema node (a JSON pointer, then its keywords that are not sub-schemas) and
/// one per description: the whole schema, flattened so a change shows as a line of a diff.
fn schema_shape(node: &Value, pointer: &str, out: &mut Vec<String>) {
    const MAPS: [&str; 2] = ["properties", "$defs"];
    const LISTS: [&str; 3] = ["oneOf", "anyOf", "allOf"];
    const SCHEMAS: [&str; 5] = ["items", "additionalProperties", "if", "then", "not"];
    let Value::Object(map) = node else {
        out.push(format!("{pointer} = {node}"));
        return;
    };
    let mut keywords = Vec::new();
    for (key, value) in map {
        let at = format!("{pointer}/{key}");
        match (key.as_str(), value) {
            ("description", Value::String(text)) => out.push(format!("{at}: {text}")),
            (k, Value::Object(children)) if MAPS.contains(&k) => {
                keywords.push(format!(
                    "{k}=[{}]",
                    children.keys().cloned().collect::<Vec<_>>().join(",")
                ));
                for (name, child) in children {
                    schema_shape(child, &format!("{at}/{name}"), out);
                }
            }
            (k, Value::Array(items)) if LISTS.contains(&k) => {
                keywords.push(format!("{k}[{}]", items.len()));
                for (i, child) in items.iter().enumerate() {
                    schema_shape(child, &format!("{at}/{i}"), out);
                }
            }
            (k, Value::Object(_)) if SCHEMAS.contains(&k) => schema_shape(value, &at, out),
            (k, v) => keywords.push(format!("{k}={v}")),
        }
    }
    out.push(
        format!("{pointer} {}", keywords.join(" "))
            .trim_end()
            .to_owned(),
    );
}

/// `tether schema` keeps every property, type, enum, requirement and description it had when
/// the field tables became the raw structs' doc comments (issue 23): the snapshot was taken
/// from the hand-written tables. A deliberate change updates it with
/// `TETHER_UPDATE_SCHEMA_SHAPE=1 cargo nextest run -p tether-cli --test reference`.
#[test]
fn the_schema_keeps_its_shape() {
    let schema: Value = serde_json::from_str(&tether(&["schema"])).unwrap();
    let mut lines = Vec::new();
    schema_shape(&schema, "#", &mut lines);
    lines.sort();
    let shape = lines.join("\n") + "\n";
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots/schema-shape.txt");
    if std::env::var_os("TETHER_UPDATE_SCHEMA_SHAPE").is_some() {
        std::fs::write(&path, &shape).unwrap();
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    pretty_assertions::assert_eq!(committed, shape);
}
