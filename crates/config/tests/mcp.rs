//! `type: mcp` toolsets, the `mcps:` section and `type: mcp` hooks: what loads, what each
//! field becomes, and one test per class of error, each pinned to `file:line:col`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test helpers panic on purpose"
)]

use std::path::Path;
use std::time::Duration;

use pretty_assertions::assert_eq;
use tether_config::{
    AgentFile, ConfigError, Defer, HookKind, Lifecycle, LifecycleProfile, McpServer, McpTransport,
    RemoteTransport, Restart, Toolset, ToolsetKind, load_str,
};
use tether_protocol::HookEvent;

fn load(yaml: &str) -> AgentFile {
    match load_str(yaml, "agent.yaml", Path::new(".")) {
        Ok(f) => f,
        Err(e) => panic!("{e}\n---\n{yaml}"),
    }
}

fn toolsets(yaml: &str) -> Vec<Toolset> {
    load(yaml).agents.remove(0).toolsets
}

fn server(yaml: &str) -> McpServer {
    toolsets(yaml).remove(0).mcp.expect("an mcp toolset")
}

/// Every diagnostic's first line.
fn errors(yaml: &str) -> Vec<String> {
    match load_str(yaml, "agent.yaml", Path::new(".")) {
        Ok(_) => panic!("expected an error for:\n{yaml}"),
        Err(ConfigError::Invalid(d)) => {
            d.0.iter()
                .map(|d| d.to_string().lines().next().unwrap().to_owned())
                .collect()
        }
        Err(e) => panic!("unexpected error {e}"),
    }
}

fn error(yaml: &str) -> String {
    let e = errors(yaml);
    assert_eq!(e.len(), 1, "{e:#?}");
    e.into_iter().next().unwrap()
}

/// Wraps toolset entries (already indented for `toolsets:`) in a one-agent file.
fn agent(toolsets: &str) -> String {
    format!("agents:\n  root:\n    model: openai/gpt-4o\n    toolsets:\n{toolsets}")
}

#[test]
fn a_stdio_server_keeps_every_field_as_written() {
    let ts = toolsets(&agent(
        "      - type: mcp
        command: npx
        args: [\"-y\", \"@modelcontextprotocol/server-everything\", 3]
        env:
          API_KEY: \"${env.MY_KEY}\"
          MODE: dev
        working_dir: ./servers
        version: \"astral-sh/uv\"
        tools: [echo, add]
        instruction: \"{ORIGINAL_INSTRUCTIONS}\\nBe brief.\"
        name: every
",
    ));
    let t = &ts[0];
    assert_eq!(t.kind, ToolsetKind::Mcp);
    assert_eq!(t.tools, Some(vec!["echo".to_owned(), "add".to_owned()]));
    assert_eq!(
        t.instruction.as_deref(),
        Some("{ORIGINAL_INSTRUCTIONS}\nBe brief.")
    );
    assert_eq!(t.name.as_deref(), Some("every"));
    let server = t.mcp.clone().unwrap();
    assert_eq!(server.label.as_deref(), Some("every"));
    assert_eq!(server.lifecycle, Lifecycle::default());
    assert_eq!(
        server.transport,
        McpTransport::Stdio {
            command: "npx".into(),
            args: vec![
                "-y".into(),
                "@modelcontextprotocol/server-everything".into(),
                "3".into()
            ],
            env: vec![
                ("API_KEY".into(), "${env.MY_KEY}".into()),
                ("MODE".into(), "dev".into())
            ],
            working_dir: Some("./servers".into()),
            version: Some("astral-sh/uv".into()),
        }
    );
}

#[test]
fn remote_servers_take_both_transports_and_headers_in_order() {
    let ts = toolsets(&agent(
        "      - type: mcp
        remote:
          url: http://homeassistant.local:8123/api/mcp
          transport_type: streamable
          headers:
            Authorization: \"Bearer ${env.HA_TOKEN}\"
            X-Trace: on
      - type: mcp
        remote:
          url: https://mcp.example.com/sse
          transport_type: sse
      - type: mcp
        remote:
          url: \"https://${env.HOST}/mcp\"
",
    ));
    let transports: Vec<_> = ts
        .iter()
        .map(|t| t.mcp.clone().unwrap().transport)
        .collect();
    assert_eq!(
        transports,
        [
            McpTransport::Remote {
                url: "http://homeassistant.local:8123/api/mcp".into(),
                transport: RemoteTransport::Streamable,
                headers: vec![
                    ("Authorization".into(), "Bearer ${env.HA_TOKEN}".into()),
                    ("X-Trace".into(), "true".into()),
                ],
            },
            McpTransport::Remote {
                url: "https://mcp.example.com/sse".into(),
                transport: RemoteTransport::Sse,
                headers: vec![],
            },
            McpTransport::Remote {
                url: "https://${env.HOST}/mcp".into(),
                transport: RemoteTransport::Streamable,
                headers: vec![],
            },
        ]
    );
    assert!(ts.iter().all(|t| t.mcp.as_ref().unwrap().label.is_none()));
}

#[test]
fn a_docker_ref_runs_through_the_gateway_under_its_catalog_name() {
    let s = server(&agent(
        "      - type: mcp
        ref: docker:kubernetes
        config:
          config_path: /home/me/.kube/config
        env:
          GITHUB_TOKEN: \"${GITHUB_TOKEN}\"
",
    ));
    assert_eq!(s.label.as_deref(), Some("kubernetes"));
    assert_eq!(
        s.transport,
        McpTransport::Gateway {
            server: "kubernetes".into(),
            config: Some(serde_json::json!({"config_path": "/home/me/.kube/config"})),
            env: vec![("GITHUB_TOKEN".into(), "${GITHUB_TOKEN}".into())],
            working_dir: None,
        }
    );
}

#[test]
fn mcps_entries_fill_what_the_toolset_leaves_empty() {
    let file = load(
        "mcps:
  github:
    ref: docker:github-official
    env:
      TOKEN: from-def
      OTHER: kept
    tools: [list_issues, create_issue]
    instruction: Use GitHub.
  notes:
    command: python3
    args: [notes.py]
    lifecycle: {profile: strict}
agents:
  root:
    model: openai/gpt-4o
    toolsets:
      - type: mcp
        ref: github
        env:
          TOKEN: from-toolset
      - type: mcp
        ref: notes
        tools: [read_note]
        name: n
",
    );
    let ts = &file.agents[0].toolsets;
    let github = ts[0].mcp.clone().unwrap();
    assert_eq!(github.label.as_deref(), Some("github"));
    assert_eq!(
        github.transport,
        McpTransport::Gateway {
            server: "github-official".into(),
            config: None,
            env: vec![
                ("OTHER".into(), "kept".into()),
                ("TOKEN".into(), "from-toolset".into())
            ],
            working_dir: None,
        }
    );
    assert_eq!(
        ts[0].tools,
        Some(vec!["list_issues".to_owned(), "create_issue".to_owned()])
    );
    assert_eq!(ts[0].instruction.as_deref(), Some("Use GitHub."));
    let notes = ts[1].mcp.clone().unwrap();
    assert_eq!(notes.label.as_deref(), Some("n"), "the toolset's name wins");
    assert_eq!(notes.lifecycle.profile, LifecycleProfile::Strict);
    assert!(notes.lifecycle.required);
    assert_eq!(ts[1].tools, Some(vec!["read_note".to_owned()]));
}

#[test]
fn lifecycle_profiles_set_defaults_that_fields_override() {
    let ts = toolsets(&agent(
        "      - type: mcp
        command: a
        lifecycle: {profile: best-effort}
      - type: mcp
        command: b
        lifecycle:
          profile: resilient
          max_restarts: -1
          restart: always
          startup_timeout: 0
          call_timeout: 1m30s
          backoff: {initial: 500ms, max: 1m, multiplier: 3, jitter: 0.2}
      - type: mcp
        command: c
        lifecycle: {max_restarts: 0, required: true}
",
    ));
    let l: Vec<Lifecycle> = ts
        .iter()
        .map(|t| t.mcp.clone().unwrap().lifecycle)
        .collect();
    assert_eq!(l[0].restart, Restart::Never);
    assert_eq!(l[0].max_restarts, Some(0));
    assert!(!l[0].required);
    assert_eq!(l[1].restart, Restart::Always);
    assert_eq!(l[1].max_restarts, None);
    assert_eq!(l[1].startup_timeout, None);
    assert_eq!(l[1].call_timeout, Some(Duration::from_secs(90)));
    assert_eq!(l[1].backoff.initial, Duration::from_millis(500));
    assert_eq!(l[1].backoff.max, Duration::from_secs(60));
    assert_eq!(l[1].backoff.multiplier, 3.0);
    assert_eq!(l[1].backoff.jitter, 0.2);
    assert_eq!(l[2].max_restarts, Some(5), "0 keeps the profile's default");
    assert!(l[2].required);
    assert_eq!(l[2].startup_timeout, Some(Duration::from_secs(60)));
}

#[test]
fn defer_readonly_toon_and_model_apply_to_every_toolset_type() {
    let ts = toolsets(
        "models:
  fast: {provider: openai, model: gpt-4o-mini}
agents:
  root:
    model: openai/gpt-4o
    toolsets:
      - type: mcp
        command: srv
        defer: true
        toon: \"list_.*, get_.*\"
        model: fast
      - type: filesystem
        defer: [write_file, edit_file]
        readonly: true
        model: openai/gpt-4o-mini
      - type: shell
        defer: false
",
    );
    assert_eq!(ts[0].defer, Defer::All);
    assert_eq!(ts[0].toon, ["list_.*", "get_.*"]);
    assert_eq!(ts[0].model.as_deref(), Some("fast"));
    assert_eq!(
        ts[1].defer,
        Defer::Tools(vec!["write_file".into(), "edit_file".into()])
    );
    assert!(ts[1].readonly);
    assert_eq!(ts[2].defer, Defer::None);
    assert!(ts[1].defer.covers("edit_file") && !ts[1].defer.covers("read_file"));
}

#[test]
fn source_errors_point_at_the_toolset() {
    let cases = [
        (
            "      - type: mcp\n        tools: [a]\n",
            "agent.yaml:5:9: agents.root.toolsets[0]: an `mcp` toolset needs one of `command`, `remote` or `ref`",
        ),
        (
            "      - type: mcp\n        command: a\n        remote: {url: https://x.dev/mcp}\n",
            "agent.yaml:5:9: agents.root.toolsets[0]: `command` and `remote` are mutually exclusive: an `mcp` toolset has exactly one source",
        ),
        (
            "      - type: mcp\n        command: a\n        config: {x: 1}\n",
            "agent.yaml:7:17: agents.root.toolsets[0].config: `config` does not apply to a `command` server (it is the Docker gateway's server configuration)",
        ),
        (
            "      - type: mcp\n        remote: {url: https://x.dev/mcp}\n        working_dir: /tmp\n",
            "agent.yaml:7:22: agents.root.toolsets[0].working_dir: `working_dir` does not apply to a `remote` server (there is no local process)",
        ),
        (
            "      - type: mcp\n        ref: \"docker:\"\n",
            "agent.yaml:6:14: agents.root.toolsets[0].ref: invalid ref `docker:`",
        ),
        (
            "      - type: mcp\n        ref: nowhere\n",
            "agent.yaml:6:14: agents.root.toolsets[0].ref: unknown MCP server `nowhere`",
        ),
        (
            "      - type: shell\n        command: ls\n",
            "agent.yaml:6:18: agents.root.toolsets[0].command: `command` only applies to `type: mcp` toolsets, not `type: shell`",
        ),
        (
            "      - type: think\n        args: [x]\n",
            "agent.yaml:6:15: agents.root.toolsets[0].args: `args` only applies to `type: mcp` toolsets, not `type: think`",
        ),
    ];
    for (toolsets, want) in cases {
        assert_eq!(error(&agent(toolsets)), want, "{toolsets}");
    }
}

#[test]
fn remote_errors_name_the_field_and_what_is_not_supported_yet() {
    let cases = [
        (
            "      - type: mcp\n        remote:\n          url: https://x.dev/mcp\n          oauth: {clientId: abc}\n",
            "agent.yaml:8:18: agents.root.toolsets[0].remote.oauth: `remote.oauth` is not supported yet: Tether has no OAuth flow for remote MCP servers",
        ),
        (
            "      - type: mcp\n        remote: {url: https://x.dev/mcp}\n        allow_private_ips: true\n",
            "agent.yaml:7:28: agents.root.toolsets[0].allow_private_ips: `allow_private_ips` is not supported yet: it governs OAuth helper requests, and Tether has no OAuth flow",
        ),
        (
            "      - type: mcp\n        remote: {url: \"unix:///run/mcp.sock\"}\n",
            "agent.yaml:6:23: agents.root.toolsets[0].remote.url: invalid url `unix:///run/mcp.sock`: Unix-socket MCP servers are not supported yet",
        ),
        (
            "      - type: mcp\n        remote: {url: ftp://x.dev}\n",
            "agent.yaml:6:23: agents.root.toolsets[0].remote.url: invalid url `ftp://x.dev`: only `http://` and `https://` URLs are supported",
        ),
        (
            "      - type: mcp\n        remote: {url: https://x.dev, transport_type: websocket}\n",
            "agent.yaml:6:54: agents.root.toolsets[0].remote.transport_type: unsupported transport_type `websocket`",
        ),
        (
            "      - type: mcp\n        remote:\n          url: https://x.dev\n          headers: {\"Bad Name\": x}\n",
            "agent.yaml:8:33: agents.root.toolsets[0].remote.headers.Bad Name: invalid header name `Bad Name`",
        ),
        (
            "      - type: mcp\n        remote:\n          url: https://x.dev\n          headers: {X-User: \"${headers.X-User}\"}\n",
            "agent.yaml:8:29: agents.root.toolsets[0].remote.headers.X-User: `${headers.X-User}` forwards a header of an incoming API request, which Tether does not serve; not supported yet",
        ),
        (
            "      - type: mcp\n        remote: {}\n",
            "agent.yaml:6:17: agents.root.toolsets[0].remote: `remote.url` is required",
        ),
    ];
    for (toolsets, want) in cases {
        assert_eq!(error(&agent(toolsets)), want, "{toolsets}");
    }
}

#[test]
fn lifecycle_errors_point_at_the_value() {
    let cases = [
        (
            "lifecycle: {profile: careful}",
            "agent.yaml:7:30: agents.root.toolsets[0].lifecycle.profile: unknown profile `careful` (supported: resilient, strict, best-effort)",
        ),
        (
            "lifecycle: {call_timeout: soon}",
            "agent.yaml:7:35: agents.root.toolsets[0].lifecycle.call_timeout: invalid duration `soon` (write e.g. `500ms`, `30s`, `2m`, `1h30m`)",
        ),
        (
            "lifecycle: {restart: sometimes}",
            "agent.yaml:7:30: agents.root.toolsets[0].lifecycle.restart: unknown restart policy `sometimes` (supported: never, on_failure, always)",
        ),
        (
            "lifecycle: {max_restarts: -2}",
            "agent.yaml:7:35: agents.root.toolsets[0].lifecycle.max_restarts: max_restarts must be -1 (unlimited), 0 (the default) or more, got -2",
        ),
        (
            "lifecycle: {backoff: {jitter: 2}}",
            "agent.yaml:7:39: agents.root.toolsets[0].lifecycle.backoff.jitter: jitter must be between 0 and 1, got 2",
        ),
    ];
    for (line, want) in cases {
        let yaml = agent(&format!(
            "      - type: mcp\n        command: srv\n        {line}\n"
        ));
        assert_eq!(error(&yaml), want, "{line}");
    }
}

#[test]
fn mcps_errors_are_reported_once_where_the_server_is_defined() {
    let e = errors(
        "mcps:
  broken: {tools: [a]}
  local:
    ref: github
agents:
  root:
    model: openai/gpt-4o
    toolsets:
      - type: mcp
        ref: broken
",
    );
    assert_eq!(
        e,
        [
            "agent.yaml:2:11: mcps.broken: MCP server `broken` needs one of `command`, `remote` or `ref`",
            "agent.yaml:4:10: mcps.local.ref: a `mcps:` entry can only refer to a Docker catalog server, not `github`",
        ]
    );
    assert_eq!(
        error(
            "mcps:\n  a: {command: x}\nagents:\n  root:\n    toolsets:\n      - type: mcp\n        ref: b\n        command: y\n"
        ),
        "agent.yaml:8:18: agents.root.toolsets[0].command: `command` and `ref` are mutually exclusive"
    );
}

#[test]
fn an_unknown_ref_lists_the_defined_servers() {
    let text = match load_str(
        "mcps:\n  github: {ref: docker:github}\n  notes: {command: n}\nagents:\n  root:\n    toolsets:\n      - type: mcp\n        ref: gihub\n",
        "agent.yaml",
        Path::new("."),
    ) {
        Err(ConfigError::Invalid(d)) => d.to_string(),
        other => panic!("{other:?}"),
    };
    assert!(
        text.contains("unknown MCP server `gihub`")
            && text.contains("defined servers: github, notes"),
        "{text}"
    );
}

#[test]
fn toon_and_defer_are_checked() {
    assert_eq!(
        error(&agent(
            "      - type: mcp\n        command: s\n        toon: \"list_(.*\"\n"
        )),
        "agent.yaml:7:15: agents.root.toolsets[0].toon: invalid regex `list_(.*` in `toon`: unclosed group"
    );
    assert_eq!(
        error(&agent(
            "      - type: filesystem\n        defer: [write_fil]\n"
        )),
        "agent.yaml:6:16: agents.root.toolsets[0].defer: unknown tool `write_fil` in a `filesystem` toolset"
    );
    assert_eq!(
        error(&agent("      - type: shell\n        model: nowhere\n")),
        "agent.yaml:6:16: agents.root.toolsets[0].model: unknown model `nowhere`"
    );
}

#[test]
fn mcp_hooks_name_a_server_and_a_tool() {
    let file = load(
        "agents:
  root:
    model: openai/gpt-4o
    toolsets:
      - {type: mcp, command: guard-server, name: guard}
    hooks:
      pre_tool_use:
        - matcher: \"mcp:.*\"
          hooks:
            - type: mcp
              server: guard
              tool: check
            - type: mcp_tool
              server: guard
              tool: scan
              input: {path: \"${tool_input.path}\"}
",
    );
    let hooks = &file.agents[0].hooks.entries(HookEvent::PreToolUse)[0].hooks;
    assert_eq!(hooks[0].type_name(), "mcp");
    assert_eq!(hooks[0].target(), "mcp:guard:check");
    let HookKind::Mcp { input, tool, .. } = &hooks[1].kind else {
        panic!("{:?}", hooks[1].kind)
    };
    assert_eq!(tool, "scan");
    assert_eq!(
        input.as_ref().map(|i| i.0.clone()),
        Some(serde_json::json!({"path": "${tool_input.path}"}))
    );

    let hook = |fields: &str, toolsets: &str| {
        format!(
            "agents:\n  root:\n    toolsets:\n{toolsets}    hooks:\n      stop:\n        - type: mcp\n          {fields}\n"
        )
    };
    let named = "      - {type: mcp, command: s, name: guard}\n";
    assert_eq!(
        error(&hook("tool: t", named)),
        "agent.yaml:7:11: agents.root.hooks.stop[0]: server is required for mcp hooks (the `name` of one of the agent's `type: mcp` toolsets)"
    );
    assert_eq!(
        error(&hook("server: guard", named)),
        "agent.yaml:7:11: agents.root.hooks.stop[0]: tool is required for mcp hooks"
    );
    assert_eq!(
        error(
            &hook("{server: guards, tool: t}", named)
                .replace("- type: mcp\n          {", "- {type: mcp, ")
        ),
        "agent.yaml:7:11: agents.root.hooks.stop[0]: mcp hook calls unknown server `guards`"
    );
    assert_eq!(
        error(&hook(
            "server: guard\n          tool: t",
            "      - type: think\n"
        )),
        "agent.yaml:7:11: agents.root.hooks.stop[0]: mcp hook calls server `guard`, but the agent has no `type: mcp` toolset"
    );
    // A server known only by the name it reports cannot be checked at load.
    load(&hook(
        "server: anything\n          tool: t",
        "      - {type: mcp, command: s}\n",
    ));
    assert_eq!(
        error(
            "agents:\n  root:\n    hooks:\n      stop:\n        - type: command\n          command: x\n          tool: t\n"
        ),
        "agent.yaml:7:17: agents.root.hooks.stop[0].tool: `tool` only applies to `type: mcp` hooks"
    );
}
