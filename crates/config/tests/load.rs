//! Loading real agent files and one test per class of config error, each pinned to
//! `file:line:col`.

#![allow(
    clippy::unwrap_used,
    clippy::expect_used,
    reason = "test helpers panic on purpose"
)]

use std::path::Path;

use pretty_assertions::assert_eq;
use tether_config::{
    ConfigError, DomainPattern, ExternalSource, HookKind, HookSource, OciReference, OnError,
    ToolsetKind, load_file, load_str,
};
use tether_protocol::HookEvent;

fn errors(yaml: &str) -> Vec<String> {
    match load_str(yaml, "agent.yaml", Path::new(".")) {
        Ok(_) => panic!("expected an error for:\n{yaml}"),
        Err(ConfigError::Invalid(d)) => d.0.iter().map(ToString::to_string).collect(),
        Err(e) => panic!("unexpected error {e}"),
    }
}

/// The first line of the first diagnostic.
fn first(yaml: &str) -> String {
    errors(yaml)[0].lines().next().unwrap().to_owned()
}

#[test]
fn seed_004_loads_with_every_hook() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/hooks.yaml");
    let file = load_file(&path).unwrap();
    let root = file.default_agent().unwrap();
    assert_eq!(root.name, "root");
    assert_eq!(root.model.as_deref(), Some("openai/gpt-4o"));
    assert_eq!(
        root.toolsets.iter().map(|t| t.kind).collect::<Vec<_>>(),
        [ToolsetKind::Shell, ToolsetKind::Filesystem]
    );
    let pre = root.hooks.entries(HookEvent::PreToolUse);
    assert_eq!(pre.len(), 2);
    assert!(
        pre.iter()
            .all(|e| e.matcher.source() == "shell" && !e.preempt_yolo)
    );
    let post = &root.hooks.entries(HookEvent::PostToolUse)[0].hooks[0];
    assert_eq!(post.name.as_deref(), Some("summarize shell output"));
    assert_eq!(post.working_dir.as_deref(), Some("."));
    assert_eq!(post.env, [("HOOK_PROFILE".to_owned(), "dev".to_owned())]);
    assert_eq!(post.on_error, OnError::Warn);
    assert_eq!(post.timeout.as_secs(), 10);
    let turn_start: Vec<_> = root.hooks.entries(HookEvent::TurnStart)[0]
        .hooks
        .iter()
        .map(|h| (h.kind.clone(), h.args.clone()))
        .collect();
    assert_eq!(
        turn_start,
        [
            (
                HookKind::Builtin {
                    name: "add_date".into()
                },
                vec![]
            ),
            (
                HookKind::Builtin {
                    name: "add_prompt_files".into()
                },
                vec!["GUIDELINES.md".to_owned(), "PROJECT.md".to_owned()]
            ),
        ]
    );
    let events: Vec<_> = root
        .hooks
        .iter()
        .map(|(e, _, _)| e)
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .collect();
    assert_eq!(events.len(), 19, "{events:?}");
    assert!(
        root.hooks
            .iter()
            .all(|(_, _, h)| h.source == HookSource::Yaml)
    );
}

#[test]
fn agents_keep_file_order_and_root_is_the_default() {
    let f = load_str(
        "agents:\n  helper:\n    model: openai/gpt-4o\n  root:\n    model: openai/gpt-4o\n",
        "a.yaml",
        Path::new("."),
    )
    .unwrap();
    assert_eq!(f.agent_names(), ["helper", "root"]);
    assert_eq!(f.default_agent().unwrap().name, "root");
    let f = load_str("agents:\n  b: {}\n  a: {}\n", "a.yaml", Path::new(".")).unwrap();
    assert_eq!(f.default_agent().unwrap().name, "b");
}

#[test]
fn unknown_key_is_reported_with_location_path_and_suggestion() {
    let e = errors("agents:\n  root:\n    modle: openai/gpt-4o\n");
    assert_eq!(
        e[0],
        "agent.yaml:3:5: agents.root: unknown field `modle`, expected one of model, description, instruction, instruction_file, toolsets, sub_agents, handoffs, force_handoff, max_iterations, max_consecutive_tool_calls, num_history_items, add_date, add_environment_info, add_prompt_files, redact_secrets, commands, welcome_message, readonly, use_toolsets, use_commands, max_tool_result_tokens, max_old_tool_call_tokens, budgets, add_prompt_files_depth, add_description_parameter, code_mode_tools, session_compaction, compaction_model, compaction_threshold, safety, routing, fallback, structured_output, skills, use_skills, cache, rag, tool_choice, inject_memories, max_inject_memories, inject_memories_strategy, hooks\n   |\n 3 |     modle: openai/gpt-4o\n   |     ^\n  hint: did you mean `model`?"
    );
}

#[test]
fn unknown_key_inside_a_hook() {
    assert_eq!(
        first(
            "agents:\n  root:\n    hooks:\n      stop:\n        - type: command\n          comand: echo\n"
        ),
        "agent.yaml:6:11: agents.root.hooks.stop[0]: unknown field `comand`, expected one of type, command, args, timeout, name, working_dir, env, on_error, model, prompt, schema, policy, policy_text, url, headers, allowed_env, async, dialect, server, tool, input, strict_output, system_prompt, evaluator, evaluator_policy, routing_policy, persistent, sandbox"
    );
}

#[test]
fn wrong_type_names_the_key() {
    assert_eq!(
        first(
            "agents:\n  root:\n    hooks:\n      stop:\n        - type: command\n          command: x\n          timeout: soon\n"
        ),
        "agent.yaml:7:20: agents.root.hooks.stop[0].timeout: expected a whole number, found `soon`"
    );
    assert_eq!(
        first("agents:\n  root:\n    add_date: maybe # or not\n"),
        "agent.yaml:3:15: agents.root.add_date: expected true or false, found `maybe`"
    );
    assert_eq!(
        first("agents:\n  root:\n    add_date: [yes]\n"),
        "agent.yaml:3:15: agents.root.add_date: expected a single value (string, number or boolean), not a list or map"
    );
}

#[test]
fn invalid_matcher_regex() {
    let e = errors(
        "agents:\n  root:\n    hooks:\n      pre_tool_use:\n        - matcher: \"shell(\"\n          hooks:\n            - type: command\n              command: x\n",
    );
    assert!(
        e[0].starts_with("agent.yaml:5:20: agents.root.hooks.pre_tool_use[0].matcher: invalid matcher regex `shell(`: unclosed group\n"),
        "{}",
        e[0]
    );
}

#[test]
fn unknown_event() {
    let e = errors("agents:\n  root:\n    hooks:\n      pre_tool:\n        - matcher: x\n");
    assert!(
        e[0].starts_with("agent.yaml:4:7: agents.root.hooks: unknown field `pre_tool`, expected one of pre_tool_use, post_tool_use,"),
        "{}",
        e[0]
    );
    assert!(
        e[0].ends_with("hint: did you mean `pre_tool_use`?"),
        "{}",
        e[0]
    );
}

#[test]
fn matcher_on_a_flat_event() {
    let e = errors(
        "agents:\n  root:\n    hooks:\n      stop:\n        - matcher: x\n          hooks: []\n",
    );
    assert!(
        e[0].starts_with("agent.yaml:5:11: agents.root.hooks.stop[0]: unknown field `matcher`"),
        "{}",
        e[0]
    );
    assert!(
        e[0].contains(
            "hint: `stop` takes a flat list of hooks; `matcher` applies only to the tool events"
        ),
        "{}",
        e[0]
    );
}

#[test]
fn bare_hook_on_a_tool_event() {
    let e = errors(
        "agents:\n  root:\n    hooks:\n      pre_tool_use:\n        - type: command\n          command: x\n",
    );
    assert!(
        e[0].starts_with("agent.yaml:5:11: agents.root.hooks.pre_tool_use[0]: unknown field `type`, expected one of matcher, hooks, preempt_yolo"),
        "{}",
        e[0]
    );
    assert!(
        e[0].contains("hint: `pre_tool_use` takes a list of `{matcher, hooks: [...]}` entries"),
        "{}",
        e[0]
    );
}

#[test]
fn bad_on_error() {
    assert_eq!(
        first(
            "agents:\n  root:\n    hooks:\n      stop:\n        - type: command\n          command: x\n          on_error: explode\n"
        ),
        "agent.yaml:7:21: agents.root.hooks.stop[0].on_error: invalid on_error 'explode' (supported: 'warn', 'ignore', 'block')"
    );
}

#[test]
fn validation_messages_of_the_reference() {
    let cases = [
        (
            "stop:\n        - command: x\n",
            "agent.yaml:5:11: agents.root.hooks.stop[0]: type is required",
        ),
        (
            "stop:\n        - type: command\n",
            "agent.yaml:5:11: agents.root.hooks.stop[0]: command is required for command hooks",
        ),
        (
            "stop:\n        - type: builtin\n",
            "agent.yaml:5:11: agents.root.hooks.stop[0]: command must name the builtin to invoke",
        ),
        (
            "stop:\n        - type: model\n          prompt: p\n",
            "agent.yaml:5:11: agents.root.hooks.stop[0]: model is required for model hooks (e.g. 'openai/gpt-4o-mini')",
        ),
        (
            "stop:\n        - type: model\n          model: openai/x\n",
            "agent.yaml:5:11: agents.root.hooks.stop[0]: prompt is required for model hooks",
        ),
        (
            "stop:\n        - type: shell\n",
            "agent.yaml:5:17: agents.root.hooks.stop[0].type: unsupported hook type 'shell' (supported: 'command', 'builtin', 'model', 'evaluator', 'http', 'mcp', 'policy')",
        ),
        (
            "pre_tool_use:\n        - matcher: x\n",
            "agent.yaml:5:11: agents.root.hooks.pre_tool_use[0]: at least one hook is required",
        ),
        (
            "pre_tool_use:\n        - matcher: x\n          hooks:\n            - type: command\n",
            "agent.yaml:7:15: agents.root.hooks.pre_tool_use[0].hooks[0]: command is required for command hooks",
        ),
        (
            "stop:\n        - type: model\n          model: openai/x\n          prompt: p\n          schema: nope\n",
            "agent.yaml:8:19: agents.root.hooks.stop[0].schema: unknown schema `nope`",
        ),
    ];
    for (hooks, want) in cases {
        let yaml = format!("agents:\n  root:\n    hooks:\n      {hooks}");
        assert_eq!(first(&yaml), want, "{yaml}");
    }
}

#[test]
fn every_validation_problem_is_reported_at_once() {
    let e = errors(
        "agents:\n  root:\n    hooks:\n      stop:\n        - type: command\n        - type: builtin\n",
    );
    assert_eq!(e.len(), 2);
}

#[test]
fn timeout_zero_or_negative_means_the_default() {
    let f = load_str(
        "agents:\n  root:\n    hooks:\n      stop:\n        - type: command\n          command: a\n          timeout: 0\n        - type: command\n          command: b\n          timeout: -3\n",
        "a.yaml",
        Path::new("."),
    )
    .unwrap();
    let hooks = &f.agents[0].hooks.entries(HookEvent::Stop)[0].hooks;
    assert!(hooks.iter().all(|h| h.timeout.as_secs() == 60));
}

#[test]
fn references_to_agents_models_and_toolsets_are_checked() {
    let e = errors(
        "agents:\n  root:\n    model: fast\n    sub_agents: [helper]\n    toolsets:\n      - type: lsp\n      - type: filesystem\n        tools: [read_fil]\n      - type: filesystem\n        safer: true\n",
    );
    let firsts: Vec<_> = e
        .iter()
        .map(|d| d.lines().next().unwrap().to_owned())
        .collect();
    assert_eq!(
        firsts,
        [
            "agent.yaml:3:12: agents.root.model: unknown model `fast`",
            "agent.yaml:4:18: agents.root.sub_agents[0]: unknown agent `helper` (agents: root)",
            "agent.yaml:6:9: agents.root.toolsets[0]: lsp toolset requires a command to be set",
            "agent.yaml:8:17: agents.root.toolsets[1].tools[0]: unknown tool `read_fil` in a `filesystem` toolset",
            "agent.yaml:10:16: agents.root.toolsets[2].safer: safer can only be used with type 'shell'",
        ]
    );
}

#[test]
fn background_agents_need_sub_agents_and_take_no_model() {
    let e = errors(
        "agents:\n  root:\n    toolsets:\n      - type: background_agents\n        model: openai/gpt-4o\n        tools: [run_background_agent, wait_for_it]\n",
    );
    let firsts: Vec<_> = e
        .iter()
        .map(|d| d.lines().next().unwrap().to_owned())
        .collect();
    assert_eq!(
        firsts,
        [
            "agent.yaml:5:16: agents.root.toolsets[0].model: `model` does not apply to `type: background_agents` toolsets",
            "agent.yaml:6:39: agents.root.toolsets[0].tools[1]: unknown tool `wait_for_it` in a `background_agents` toolset",
        ]
    );
    let e = errors("agents:\n  root:\n    toolsets:\n      - type: background_agents\n");
    assert_eq!(
        e[0].lines().next().unwrap(),
        "agent.yaml:4:9: agents.root.toolsets[0]: a `background_agents` toolset needs `sub_agents` to dispatch to"
    );
    let f = load_str(
        "agents:\n  root:\n    sub_agents: [helper]\n    toolsets: [{type: background_agents, readonly: true}]\n  helper:\n    instruction: help\n",
        "a.yaml",
        Path::new("."),
    )
    .unwrap();
    assert_eq!(f.agents[0].toolsets[0].kind, ToolsetKind::BackgroundAgents);
}

#[test]
fn named_models_and_permissions_are_validated() {
    let f = load_str(
        "models:\n  fast:\n    provider: openai\n    model: gpt-4o-mini\n    max_tokens: 100\npermissions:\n  allow: [\"read_*\"]\n  deny: [\"shell:cmd=*sudo*\"]\nagents:\n  root:\n    model: fast\n",
        "a.yaml",
        Path::new("."),
    )
    .unwrap();
    assert_eq!(f.resolve_model("fast").unwrap().id(), "openai/gpt-4o-mini");
    assert_eq!(f.permissions.deny[0].source, "shell:cmd=*sudo*");
    assert_eq!(
        first("permissions:\n  deny: [\"shell:cmd=[x\"]\nagents:\n  root: {}\n"),
        "agent.yaml:2:10: permissions.deny[0]: invalid glob `[x`: unclosed `[`"
    );
    assert_eq!(
        first("models:\n  m:\n    provider: acme\n    model: x\nagents:\n  root: {}\n"),
        "agent.yaml:3:15: models.m.provider: unknown provider `acme`"
    );
}

#[test]
fn duplicate_keys_are_rejected() {
    let e = errors("agents:\n  root: {}\n  root: {}\n");
    assert!(e[0].contains("duplicate"), "{}", e[0]);
}

#[test]
fn an_empty_file_has_no_agents() {
    assert_eq!(
        first("version: \"2\"\n"),
        "agent.yaml:1:1: agents: no agents defined"
    );
}

#[test]
fn instruction_file_is_read_relative_to_the_agent_file() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("prompt.md"), "be brief").unwrap();
    std::fs::write(
        dir.path().join("agent.yaml"),
        "agents:\n  root:\n    instruction_file: prompt.md\n",
    )
    .unwrap();
    let f = load_file(&dir.path().join("agent.yaml")).unwrap();
    assert_eq!(f.agents[0].instruction, "be brief");
}

#[test]
fn commands_and_welcome_message_load_in_every_form() {
    let file = load_str(
        "agents:\n  root:\n    welcome_message: Hi\n    commands:\n      - a: plain ${args}\n      - b: {description: Bee, instruction: 'do ${env.X || \"y\"}'}\n      - c: {description: Only a description}\n",
        "agent.yaml",
        Path::new("."),
    )
    .unwrap();
    let root = file.agent("root").unwrap();
    assert_eq!(root.welcome_message.as_deref(), Some("Hi"));
    let names: Vec<(&str, &str, &str)> = root
        .commands
        .iter()
        .map(|c| {
            (
                c.name.as_str(),
                c.description.as_str(),
                c.instruction.as_str(),
            )
        })
        .collect();
    assert_eq!(
        names,
        [
            ("a", "", "plain ${args}"),
            ("b", "Bee", "do ${env.X || \"y\"}"),
            ("c", "Only a description", "Only a description"),
        ]
    );
    assert!(root.command("a").unwrap().uses_args());
    assert!(!root.command("b").unwrap().uses_args());
    let e = first("agents:\n  root:\n    commands: {x: {instruction: 1}}\n");
    assert!(
        e.ends_with("command `x`: `instruction` must be a string, not `1`"),
        "{e}"
    );
}

#[test]
fn docker_catalog_servers_take_secret_names_in_env() {
    load_str(
        "agents:\n  root:\n    toolsets:\n      - type: mcp\n        ref: docker:brave\n        env:\n          brave.api_key: ${BRAVE_API_KEY}\n",
        "agent.yaml",
        Path::new("."),
    )
    .unwrap();
    let e = first(
        "agents:\n  root:\n    toolsets:\n      - type: mcp\n        command: srv\n        env:\n          brave.api_key: x\n",
    );
    assert!(
        e.ends_with("invalid environment variable name `brave.api_key` in `env`"),
        "{e}"
    );
}

#[test]
fn docker_agent_fields_tether_lacks_are_not_supported_yet_not_unknown() {
    let e = first("agents:\n  root:\n    model: openai/gpt-4o\n    harness: {type: claude}\n");
    assert!(
        e.starts_with("agent.yaml:4:5: agents.root: the field `harness` is not supported yet"),
        "{e}"
    );
    let full = errors("agents:\n  root:\n    harness: {type: claude}\n").join("\n");
    assert!(
        full.contains("hint: docker-agent's format has it"),
        "{full}"
    );
    let e = first(
        "models:\n  m:\n    provider: openai\n    model: x\n    title_model: y\nagents:\n  root: {}\n",
    );
    assert!(
        e.contains("models.m: the field `title_model` is not supported yet"),
        "{e}"
    );
    // A typo is still unknown, with a suggestion.
    let e = errors("agents:\n  root:\n    welcome_mesage: hi\n").join("\n");
    assert!(
        e.contains("unknown field `welcome_mesage`")
            && e.contains("did you mean `welcome_message`?"),
        "{e}"
    );
}

#[test]
fn external_sub_agents_are_recorded_with_their_source_and_attached() {
    let digest = "sha256:".to_owned() + &"ab".repeat(32);
    let mut f = load_str(
        &format!("agents:\n  root:\n    model: openai/gpt-4o\n    sub_agents: [agentcatalog/pirate, 'https://example.com/a.yaml', team/helper.yml, 'localhost:5000/team/x:v2', 'ghcr.io/org/agent@{digest}']\n    handoffs: [agentcatalog/pirate]\n"),
        "agent.yaml",
        Path::new("."),
    )
    .unwrap();
    let sources: Vec<_> = f.externals.iter().map(|e| e.source.clone()).collect();
    let oci = |r: &str| match OciReference::parse(r) {
        Ok(o) => ExternalSource::Oci(o),
        Err(e) => panic!("{e}"),
    };
    assert_eq!(
        sources,
        [
            oci("agentcatalog/pirate"),
            ExternalSource::Url("https://example.com/a.yaml".into()),
            ExternalSource::File("team/helper.yml".into()),
            oci("localhost:5000/team/x:v2"),
            oci(&format!("ghcr.io/org/agent@{digest}")),
        ]
    );
    let ExternalSource::Oci(hub) = &sources[0] else {
        unreachable!()
    };
    assert_eq!(
        (
            hub.registry.as_str(),
            hub.repository.as_str(),
            hub.tag.as_str(),
            hub.api_host(),
            hub.scheme()
        ),
        (
            "docker.io",
            "agentcatalog/pirate",
            "latest",
            "registry-1.docker.io",
            "https"
        )
    );
    let ExternalSource::Oci(local) = &sources[3] else {
        unreachable!()
    };
    assert_eq!(
        (local.registry.as_str(), local.tag.as_str(), local.scheme()),
        ("localhost:5000", "v2", "http")
    );
    let ExternalSource::Oci(pinned) = &sources[4] else {
        unreachable!()
    };
    assert_eq!(pinned.identifier(), digest);
    assert_eq!(f.externals[0].origin.location(), "agent.yaml:4:18");

    // Attached, the external file's default agent is the member of that name.
    let pirate = load_str(
        "models:\n  m: {provider: openai, model: gpt-4o-mini}\nagents:\n  captain:\n    model: m\n",
        "pirate.yaml",
        Path::new("."),
    )
    .unwrap();
    f.attach("agentcatalog/pirate", pirate).unwrap();
    let (file, agent) = f.member("agentcatalog/pirate").unwrap();
    assert_eq!(
        (agent.name.as_str(), &*file.source_name),
        ("captain", "pirate.yaml")
    );
    assert!(f.member("https://example.com/a.yaml").is_none());

    // A team of its own is refused at the reference.
    let team = load_str(
        "agents:\n  root:\n    model: openai/gpt-4o\n    sub_agents: [mate]\n  mate:\n    model: openai/gpt-4o\n",
        "team.yaml",
        Path::new("."),
    )
    .unwrap();
    let e = f
        .attach("https://example.com/a.yaml", team)
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("agent.yaml:4:39: agents.root.sub_agents[1]: external agent `https://example.com/a.yaml`: its agent `root` has `sub_agents`"), "{e}");
}

#[test]
fn malformed_agent_references_are_errors() {
    for (reference, why) in [
        ("Team/Pirate", "`Team` is not a repository name"),
        ("ftp://x/a.yaml", "`ftp://` URLs are not supported"),
        ("team/pirate:-x", "`-x` is not a tag"),
        (
            "team/pirate@sha256:12",
            "`sha256:12` is not a sha256 digest",
        ),
    ] {
        let e = first(&format!(
            "agents:\n  root:\n    model: openai/gpt-4o\n    sub_agents: ['{reference}']\n"
        ));
        assert!(
            e.starts_with(&format!("agent.yaml:4:18: agents.root.sub_agents[0]: invalid agent reference `{reference}`: {why}")),
            "{e}"
        );
    }
}

#[test]
fn an_agents_readonly_applies_to_every_toolset() {
    let file = load_str(
        "agents:\n  root:\n    model: openai/gpt-4o\n    readonly: true\n    toolsets: [{type: shell}, {type: filesystem}]\n",
        "agent.yaml",
        Path::new("."),
    )
    .unwrap();
    assert!(file.agents[0].toolsets.iter().all(|t| t.readonly));
}

#[test]
fn models_fallback_and_providers_are_checked() {
    let e = errors(
        "providers:\n  gw: {api_type: openai_soap}\nmodels:\n  r:\n    provider: openai\n    model: x\n    routing:\n      - model: nowhere\n        examples: [hi]\nagents:\n  root:\n    model: r\n    fallback: {models: [acme/x], retries: -3, cooldown: soon}\n",
    );
    let joined = e.join("\n");
    for want in [
        "providers.gw.api_type: unknown api_type `openai_soap`",
        "models.r.routing[0].model: unknown model `nowhere`",
        "agents.root.fallback.models[0]: unknown provider `acme`",
        "agents.root.fallback.retries: retries must be -1 (none), 0 (the default, 2) or a positive count, got -3",
        "agents.root.fallback.cooldown: invalid duration `soon`",
    ] {
        assert!(joined.contains(want), "{want}\n{joined}");
    }
}

#[test]
fn api_openapi_todo_filesystem_and_model_picker_options_load() {
    let f = load_str(
        "agents:\n  root:\n    model: openai/gpt-4o\n    toolsets:\n      - type: api\n        timeout: 5\n        allow_private_ips: true\n        api_config:\n          name: weather\n          instruction: Get the weather\n          endpoint: \"https://api.example.com/w?city=${city}&key=${env.KEY}\"\n          method: get\n          headers: {X-Key: \"${env.KEY}\"}\n          args: {city: {type: string}}\n          required: [city]\n          output_schema: {type: object}\n      - type: openapi\n        url: specs/petstore.yaml\n        headers: {Authorization: \"Bearer ${env.TOKEN}\"}\n        max_output_bytes: 0\n      - type: todo\n        shared: true\n      - type: filesystem\n        ignore_vcs: false\n        post_edit:\n          - {path: \"*.go\", cmd: \"gofmt -w $path\"}\n      - type: model_picker\n        models: [openai/gpt-4o-mini, fast]\nmodels:\n  fast: {provider: anthropic, model: claude-haiku-4-5}\n",
        "a.yaml",
        Path::new("/proj"),
    )
    .unwrap();
    let t = &f.agents[0].toolsets;
    let api = t[0].api.as_ref().unwrap();
    assert_eq!(
        (api.name.as_str(), api.method.as_str(), api.required.clone()),
        ("weather", "GET", vec!["city".to_owned()])
    );
    assert_eq!(t[0].timeout, Some(std::time::Duration::from_secs(5)));
    assert!(t[0].allow_private_ips);
    assert_eq!(t[1].url.as_deref(), Some("/proj/specs/petstore.yaml"));
    assert_eq!(t[1].max_output_bytes, None);
    assert!(t[2].shared);
    assert!(!t[3].ignore_vcs);
    assert_eq!(t[3].post_edit[0].cmd, "gofmt -w $path");
    assert_eq!(t[4].models, ["openai/gpt-4o-mini", "fast"]);
}

#[test]
fn misplaced_or_invalid_toolset_options_are_errors_at_their_position() {
    let e = errors(
        "agents:\n  root:\n    model: openai/gpt-4o\n    toolsets:\n      - type: api\n      - type: api\n        api_config: {name: x, endpoint: \"ftp://h/\", method: FETCH, required: [y]}\n      - type: openapi\n      - type: shell\n        shared: true\n        post_edit: [{path: \"*.go\", cmd: x}]\n        models: [openai/gpt-4o]\n        url: http://x/\n      - type: filesystem\n        allow_list: [\" \"]\n        post_edit: [{path: \"[\", cmd: x}]\n      - type: model_picker\n        models: [nowhere]\n      - type: fetch\n        max_output_bytes: 10\n",
    );
    let firsts: Vec<_> = e
        .iter()
        .map(|d| d.lines().next().unwrap().to_owned())
        .collect();
    assert_eq!(
        firsts,
        [
            "agent.yaml:5:9: agents.root.toolsets[0]: a `type: api` toolset needs `api_config`",
            "agent.yaml:7:61: agents.root.toolsets[1].api_config.method: unknown method `FETCH` (expected one of GET, POST, PUT, PATCH, DELETE)",
            "agent.yaml:7:41: agents.root.toolsets[1].api_config.endpoint: invalid endpoint `ftp://h/`: only `http://` and `https://` URLs are supported",
            "agent.yaml:7:79: agents.root.toolsets[1].api_config.required[0]: required argument `y` is not one of `args`",
            "agent.yaml:8:9: agents.root.toolsets[2]: a `type: openapi` toolset needs `url`",
            "agent.yaml:13:14: agents.root.toolsets[3].url: `url` only applies to `type: openapi`, `open_url` and `a2a` toolsets, not `type: shell`",
            "agent.yaml:10:17: agents.root.toolsets[3].shared: `shared` only applies to `type: todo` toolsets, not `type: shell`",
            "agent.yaml:11:20: agents.root.toolsets[3].post_edit: `post_edit` only applies to `type: filesystem` and `file` toolsets, not `type: shell`",
            "agent.yaml:12:17: agents.root.toolsets[3].models: `models` only applies to `type: model_picker` toolsets, not `type: shell`",
            "agent.yaml:15:22: agents.root.toolsets[4].allow_list[0]: an `allow_list` entry must not be empty",
            "agent.yaml:16:28: agents.root.toolsets[4].post_edit[0].path: invalid glob `[`: error parsing glob '[': unclosed character class; missing ']'",
            "agent.yaml:18:18: agents.root.toolsets[5].models[0]: unknown model `nowhere`",
            "agent.yaml:20:27: agents.root.toolsets[6].max_output_bytes: `max_output_bytes` only applies to `type: openapi` toolsets, not `type: fetch`",
        ]
    );
}

#[test]
fn path_and_domain_lists_load_as_written_and_parsed() {
    let f = load_str(
        "agents:\n  root:\n    model: openai/gpt-4o\n    toolsets:\n      - type: filesystem\n        allow_list: [., \"~/projects\", /srv/data, \"${env.DATA}\"]\n        deny_list: [\" ~/.ssh \"]\n      - type: fetch\n        allowed_domains: [Example.COM, \"*.docs.rs\", 10.0.0.0/8]\n        escape_html: true\n      - type: fetch\n        allowed_domains: []\n        blocked_domains: [169.254.169.254]\n",
        "a.yaml",
        Path::new("/proj"),
    )
    .unwrap();
    let t = &f.agents[0].toolsets;
    assert_eq!(
        t[0].allow_list,
        [".", "~/projects", "/srv/data", "${env.DATA}"]
    );
    assert_eq!(t[0].deny_list, ["~/.ssh"]);
    let written: Vec<&str> = t[1]
        .allowed_domains
        .iter()
        .map(DomainPattern::as_written)
        .collect();
    assert_eq!(written, ["Example.COM", "*.docs.rs", "10.0.0.0/8"]);
    assert!(t[1].escape_html && t[1].blocked_domains.is_empty());
    assert!(t[2].allowed_domains.is_empty() && !t[2].escape_html);
    assert_eq!(t[2].blocked_domains[0].as_written(), "169.254.169.254");
}

#[test]
fn bad_list_entries_and_misplaced_lists_are_errors_at_their_position() {
    let e = errors(
        "agents:\n  root:\n    model: openai/gpt-4o\n    toolsets:\n      - type: filesystem\n        allow_list: [src, \"\"]\n        deny_list: [\"${HOME\"]\n        allowed_domains: [x.com]\n      - type: fetch\n        allowed_domains: [\"foo.*\", ok.com]\n        blocked_domains: [10.0.0.0/33]\n        deny_list: [/etc]\n      - type: shell\n        escape_html: true\n",
    );
    let firsts: Vec<_> = e
        .iter()
        .map(|d| d.lines().next().unwrap().to_owned())
        .collect();
    assert_eq!(
        firsts,
        [
            "agent.yaml:6:27: agents.root.toolsets[0].allow_list[1]: an `allow_list` entry must not be empty",
            "agent.yaml:7:21: agents.root.toolsets[0].deny_list[0]: invalid `deny_list` entry: unterminated `${` in `${HOME`",
            "agent.yaml:8:26: agents.root.toolsets[0].allowed_domains: `allowed_domains` only applies to `type: fetch` toolsets, not `type: filesystem`",
            "agent.yaml:12:20: agents.root.toolsets[1].deny_list: `deny_list` only applies to `type: filesystem` and `file` toolsets, not `type: fetch`",
            "agent.yaml:11:26: agents.root.toolsets[1].blocked_domains: `allowed_domains` and `blocked_domains` are mutually exclusive",
            "agent.yaml:10:27: agents.root.toolsets[1].allowed_domains[0]: invalid domain pattern `foo.*`: `*` may only start a pattern, as `*.example.com`",
            "agent.yaml:11:27: agents.root.toolsets[1].blocked_domains[0]: invalid domain pattern `10.0.0.0/33`: not a valid CIDR",
            "agent.yaml:14:22: agents.root.toolsets[2].escape_html: `escape_html` only applies to `type: fetch` toolsets, not `type: shell`",
        ]
    );
    let hints = e.join("\n");
    assert!(
        hints.contains("list the hosts to allow, or the hosts to refuse, not both"),
        "{hints}"
    );
}

#[test]
fn shared_toolsets_and_command_groups_are_added_to_the_agents_that_use_them() {
    let file = load_str(
        "toolsets:\n  sh: {type: shell}\ncommands:\n  ops:\n    deploy: Deploy it\n    status: Show status\nagents:\n  root:\n    model: openai/gpt-4o\n    toolsets: [{type: think}]\n    use_toolsets: [sh]\n    commands: {status: My status}\n    use_commands: [ops]\n  other:\n    model: openai/gpt-4o\n    use_toolsets: [sh]\n",
        "agent.yaml",
        Path::new("."),
    )
    .unwrap();
    let kinds: Vec<ToolsetKind> = file.agents[0].toolsets.iter().map(|t| t.kind).collect();
    assert_eq!(kinds, [ToolsetKind::Think, ToolsetKind::Shell]);
    assert_eq!(file.agents[1].toolsets[0].kind, ToolsetKind::Shell);
    let names: Vec<&str> = file.agents[0]
        .commands
        .iter()
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(names, ["status", "deploy"]);
    let e =
        errors("agents:\n  root:\n    use_toolsets: [nope]\n    use_commands: [none]\n").join("\n");
    assert!(
        e.contains("agents.root.use_toolsets[0]: unknown toolset `nope`"),
        "{e}"
    );
    assert!(
        e.contains("agents.root.use_commands[0]: unknown command group `none`"),
        "{e}"
    );
}

#[test]
fn a_field_the_provider_has_no_place_for_is_an_error() {
    let e = errors(
        "models:\n  c: {provider: anthropic, model: claude-sonnet-4-5, frequency_penalty: 0.5}\n  g: {provider: google, model: gemini-2.5-flash, parallel_tool_calls: false, track_usage: false}\nagents:\n  root: {model: c}\n",
    )
    .join("\n");
    for want in [
        "models.c: `frequency_penalty` is not supported by the `anthropic` provider",
        "models.g: `parallel_tool_calls` is not supported by the `google` provider",
        "models.g: `track_usage: false` is not supported by the `google` provider",
    ] {
        assert!(e.contains(want), "{want}\n{e}");
    }
}

#[test]
fn skill_groups_merge_into_agents_with_the_agents_own_inline_skills_last() {
    let f = load_str(
        "skills:\n  team:\n    - {name: review, description: group review, instructions: g}\n    - {name: deploy, description: deploy, instructions: d}\n  lint: [lint-rules]\nagents:\n  root:\n    model: openai/gpt-4o\n    use_skills: [team, lint]\n    skills:\n      - {name: review, description: my review, instructions: mine}\n",
        "agent.yaml",
        Path::new("."),
    )
    .unwrap();
    let s = f.agents[0].skills.as_ref().unwrap();
    let inline: Vec<_> = s
        .inline
        .iter()
        .map(|i| (i.name.as_str(), i.description.as_str()))
        .collect();
    assert_eq!(inline, [("deploy", "deploy"), ("review", "my review")]);
    // The name filter of `lint` turns on local discovery, kept to that name.
    assert!(s.local);
    assert_eq!(s.only, ["lint-rules"]);
    let e = first("agents:\n  root:\n    model: openai/gpt-4o\n    use_skills: [nope]\n");
    assert!(
        e.starts_with("agent.yaml:4:18: agents.root.use_skills[0]: unknown skill group `nope`"),
        "{e}"
    );
}

#[test]
fn compaction_settings_on_models_and_providers_are_checked_and_inherited() {
    let f = load_str(
        "providers:\n  corp: {provider: openai, base_url: 'https://llm.example.com/v1', compaction_model: cheap}\nmodels:\n  cheap: {provider: openai, model: gpt-4o-mini}\n  big: {provider: corp, model: gpt-5, compaction_threshold: 0.8}\nagents:\n  root: {model: big}\n",
        "agent.yaml",
        Path::new("."),
    )
    .unwrap();
    let big = f.model("big").unwrap();
    assert_eq!(
        (big.compaction_model.as_deref(), big.compaction_threshold),
        (Some("cheap"), Some(0.8))
    );
    let e = errors(
        "providers:\n  corp: {provider: openai, compaction_model: nowhere}\nmodels:\n  m: {provider: openai, model: gpt-4o, compaction_threshold: 1.5}\nagents:\n  root: {model: m}\n",
    );
    let firsts: Vec<_> = e
        .iter()
        .map(|d| d.lines().next().unwrap().to_owned())
        .collect();
    assert_eq!(
        firsts,
        [
            "agent.yaml:4:62: models.m.compaction_threshold: compaction_threshold must be greater than 0 and at most 1, got 1.5",
            "agent.yaml:2:46: providers.corp.compaction_model: unknown model `nowhere`",
        ]
    );
}

#[test]
fn runtime_sets_the_default_safety_and_refuses_a_sandbox() {
    let f = load_str(
        "runtime: {safety: restricted, sandbox: false}\nagents:\n  root: {model: openai/gpt-4o}\n",
        "agent.yaml",
        Path::new("."),
    )
    .unwrap();
    assert_eq!(f.default_safety, Some(tether_config::Safety::Restricted));
    let e =
        errors("runtime: {safety: wild, sandbox: true}\nagents:\n  root: {model: openai/gpt-4o}\n");
    let firsts: Vec<_> = e
        .iter()
        .map(|d| d.lines().next().unwrap().to_owned())
        .collect();
    assert_eq!(
        firsts,
        [
            "agent.yaml:1:34: runtime.sandbox: `runtime.sandbox` is not supported yet: Tether does not run agents in a Docker sandbox",
            "agent.yaml:1:19: runtime.safety: unknown safety mode `wild`",
        ]
    );
}
