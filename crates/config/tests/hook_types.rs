//! `type: http` hooks, `async: true`, `persistent: true` and model-hook prompt origins: what
//! loads and every error, each pinned to `file:line:col`.

#![allow(clippy::unwrap_used, reason = "test helpers panic on purpose")]

use std::path::Path;

use pretty_assertions::assert_eq;
use tether_config::{ConfigError, HookKind, load_str};
use tether_protocol::HookEvent;

fn errors(yaml: &str) -> Vec<String> {
    match load_str(yaml, "agent.yaml", Path::new(".")) {
        Ok(_) => panic!("expected an error for:\n{yaml}"),
        Err(ConfigError::Invalid(d)) => {
            d.0.iter()
                .map(|d| d.to_string().lines().next().unwrap_or_default().to_owned())
                .collect()
        }
        Err(e) => panic!("unexpected error {e}"),
    }
}

fn agent(hooks: &str) -> String {
    format!("agents:\n  root:\n    model: openai/gpt-4o\n    hooks:\n{hooks}")
}

#[test]
fn http_hooks_load_with_url_headers_and_allowed_env() {
    let yaml = agent(
        "      post_tool_use:\n        - matcher: '*'\n          hooks:\n            - type: http\n              url: https://hooks.example.com/audit\n              headers:\n                Authorization: Bearer ${AUDIT_TOKEN}\n                X-Team: infra\n              allowed_env: [AUDIT_TOKEN]\n              timeout: 5\n",
    );
    let file = load_str(&yaml, "agent.yaml", Path::new(".")).unwrap();
    let hook = &file.agents[0].hooks.entries(HookEvent::PostToolUse)[0].hooks[0];
    assert_eq!(
        (hook.kind.clone(), hook.type_name(), hook.timeout.as_secs()),
        (
            HookKind::Http {
                url: "https://hooks.example.com/audit".into(),
                headers: vec![
                    ("Authorization".into(), "Bearer ${AUDIT_TOKEN}".into()),
                    ("X-Team".into(), "infra".into()),
                ],
                allowed_env: vec!["AUDIT_TOKEN".into()],
            },
            "http",
            5
        )
    );
}

#[test]
fn http_hook_errors_point_at_the_offending_value() {
    let cases = [
        (
            "      stop:\n        - type: http\n",
            "agent.yaml:6:11: agents.root.hooks.stop[0]: url is required for http hooks",
        ),
        (
            "      stop:\n        - type: http\n          url: ftp://example.com/x\n",
            "agent.yaml:7:16: agents.root.hooks.stop[0].url: invalid url `ftp://example.com/x`: only `http://` and `https://` URLs are supported",
        ),
        (
            "      stop:\n        - type: http\n          url: 'http:///path'\n",
            "agent.yaml:7:16: agents.root.hooks.stop[0].url: invalid url `http:///path`: the URL has no host",
        ),
        (
            "      stop:\n        - type: http\n          url: http://127.0.0.1:9/x\n          headers:\n            Authorization: Bearer ${SECRET}\n",
            "agent.yaml:9:28: agents.root.hooks.stop[0].headers.Authorization: header `Authorization` uses `${SECRET}`, which is not in `allowed_env`",
        ),
        (
            "      stop:\n        - type: http\n          url: http://127.0.0.1:9/x\n          headers:\n            X-A: ${OPEN\n          allowed_env: [OPEN]\n",
            "agent.yaml:9:18: agents.root.hooks.stop[0].headers.X-A: unterminated `${` in `${OPEN`",
        ),
        (
            "      stop:\n        - type: command\n          command: echo\n          url: http://127.0.0.1:9/x\n",
            "agent.yaml:8:16: agents.root.hooks.stop[0].url: `url` only applies to `type: http` hooks",
        ),
        (
            "      stop:\n        - type: webhook\n",
            "agent.yaml:6:17: agents.root.hooks.stop[0].type: unsupported hook type 'webhook' (supported: 'command', 'builtin', 'model', 'evaluator', 'http', 'mcp', 'policy')",
        ),
    ];
    for (hooks, want) in cases {
        assert_eq!(errors(&agent(hooks)), [want], "{hooks}");
    }
}

#[test]
fn async_is_allowed_only_on_events_that_cannot_block() {
    let ok = agent(
        "      session_start:\n        - type: command\n          command: ./warm-cache.sh\n          async: true\n",
    );
    let file = load_str(&ok, "agent.yaml", Path::new(".")).unwrap();
    assert!(file.agents[0].hooks.entries(HookEvent::SessionStart)[0].hooks[0].run_async);
    let bad = agent(
        "      pre_tool_use:\n        - matcher: shell\n          hooks:\n            - type: command\n              command: ./guard.sh\n              async: true\n",
    );
    assert_eq!(
        errors(&bad),
        [
            "agent.yaml:10:22: agents.root.hooks.pre_tool_use[0].hooks[0].async: `async: true` is not allowed on `pre_tool_use`: its hooks can block, so they must be awaited"
        ]
    );
}

#[test]
fn a_model_prompt_in_a_literal_block_maps_lines_to_the_file() {
    let yaml = agent(
        "      pre_tool_use:\n        - matcher: shell\n          hooks:\n            - type: model\n              model: openai/gpt-4o-mini\n              prompt: |\n                Tool: {{ .ToolName }}\n                Args: {{ .ToolInput | toJSON }}\n",
    );
    let file = load_str(&yaml, "agent.yaml", Path::new(".")).unwrap();
    let hook = &file.agents[0].hooks.entries(HookEvent::PreToolUse)[0].hooks[0];
    let HookKind::Model { prompt_origin, .. } = &hook.kind else {
        panic!("not a model hook: {hook:?}");
    };
    assert_eq!(
        (
            prompt_origin.lines.clone(),
            prompt_origin.at(2, 7).location()
        ),
        (vec![(11, 17), (12, 17)], "agent.yaml:12:23".to_owned())
    );
}

#[test]
fn allowed_env_takes_only_variable_names() {
    for (name, col) in [("'A}B'", 31), ("'1X'", 31), ("''", 31)] {
        let yaml = agent(&format!(
            "      stop:\n        - type: http\n          url: http://127.0.0.1:9/x\n          allowed_env: [OK_1, {name}]\n"
        ));
        let shown = name.trim_matches('\'');
        assert_eq!(
            errors(&yaml),
            [format!(
                "agent.yaml:8:{col}: agents.root.hooks.stop[0].allowed_env[1]: invalid variable name `{shown}`"
            )]
        );
    }
}

#[test]
fn persistent_loads_on_command_hooks_only_and_never_with_async() {
    let yaml = agent(
        "      pre_tool_use:\n        - hooks:\n            - {type: command, command: ./guard.py, persistent: true}\n            - {type: command, command: ./audit.sh, persistent: false}\n",
    );
    let file = load_str(&yaml, "agent.yaml", Path::new(".")).unwrap();
    let hooks = &file.agents[0].hooks.entries(HookEvent::PreToolUse)[0].hooks;
    assert_eq!((hooks[0].persistent, hooks[1].persistent), (true, false));
    assert_eq!(
        errors(&agent(
            "      stop:\n        - {type: builtin, command: add_date, persistent: true}\n"
        )),
        [
            "agent.yaml:6:58: agents.root.hooks.stop[0].persistent: `persistent` only applies to `type: command` hooks"
        ]
    );
    assert_eq!(
        errors(&agent(
            "      stop:\n        - type: command\n          command: ./log.py\n          async: true\n          persistent: true\n"
        )),
        [
            "agent.yaml:9:23: agents.root.hooks.stop[0].persistent: a persistent hook cannot be `async`"
        ]
    );
}
