//! `type: user_prompt`: the model asks the user; in `--exec` the answer is read from stdin
//! (end of input declines), and the result is docker-agent's `{action, content}` JSON.

#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

use assert_cmd::Command;
use tempfile::TempDir;

#[test]
fn the_model_asks_and_the_user_answers_on_stdin() {
    let dir = TempDir::new().unwrap();
    let d = dir.path();
    std::fs::write(
        d.join("agent.yaml"),
        "agents:\n  root:\n    model: script/s.yaml\n    toolsets: [{type: user_prompt}]\n",
    )
    .unwrap();
    std::fs::write(
        d.join("s.yaml"),
        r#"replies:
  - tool_calls:
      - {name: user_prompt, arguments: {message: "Which color?", schema: {type: string, enum: [red, blue]}}}
      - {name: user_prompt, arguments: {message: "Your name?", schema: {type: object, properties: {name: {type: string}}, required: [name]}}}
      - {name: user_prompt, arguments: {message: "Anything else?"}}
  - text: done
"#,
    )
    .unwrap();
    let out = Command::cargo_bin("tether")
        .unwrap()
        .current_dir(d)
        .env("TETHER_HOME", d.join(".tether"))
        .env("XDG_CONFIG_HOME", d.join(".config"))
        .args(["run", "agent.yaml", "--exec", "go"])
        // Color: yes, blue. Name: yes, Ada. Then end of input.
        .write_stdin("y\nblue\ny\nAda\n")
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{stdout}");
    assert!(stdout.contains("The agent asks: Which color?"), "{stdout}");
    // user_prompt is read-only: no confirmation is asked before the question.
    assert!(!stdout.contains("Can I run this tool?"), "{stdout}");
    assert!(
        stdout.contains(r#"user_prompt response → "{\"action\":\"accept\",\"content\":\"blue\"}""#),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            r#"user_prompt response → "{\"action\":\"accept\",\"content\":{\"name\":\"Ada\"}}""#
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains(r#"user_prompt response → "{\"action\":\"decline\"}""#),
        "{stdout}"
    );
}
