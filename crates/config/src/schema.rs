//! The agent-file schema as data: one table of fields per object, from which the JSON Schema
//! (`tether schema`, editor completion) and the reference docs are generated. A test checks each
//! table against the keys the strict loader accepts, so the two never drift.

use serde_json::{Map, Value, json};
use tether_protocol::HookEvent;

use crate::hooks::{Dialect, MODEL_HOOK_SCHEMAS};
use crate::model::KNOWN_PROVIDERS;

/// The shape of a field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FieldType {
    String,
    Integer,
    Number,
    Boolean,
    /// A string, number or boolean.
    Scalar,
    StringList,
    ScalarList,
    /// A map of strings (or scalars) to strings.
    StringMap,
    /// Any JSON/YAML value.
    Any,
    /// One of these strings.
    Enum(&'static [&'static str]),
    /// A definition of the schema, by name.
    Ref(&'static str),
    /// A list of a definition.
    RefList(&'static str),
    /// A map from names to a definition.
    RefMap(&'static str),
}

/// One documented field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Field {
    pub name: &'static str,
    pub ty: FieldType,
    pub doc: &'static str,
}

const fn f(name: &'static str, ty: FieldType, doc: &'static str) -> Field {
    Field { name, ty, doc }
}

use FieldType as T;

pub const FILE_FIELDS: &[Field] = &[
    f(
        "version",
        T::Scalar,
        "Schema version (docker-agent's); accepted, not interpreted.",
    ),
    f(
        "agents",
        T::RefMap("agent"),
        "The agents, in order: `root` (else the first) starts.",
    ),
    f(
        "models",
        T::RefMap("model"),
        "Named models that agents refer to by name.",
    ),
    f(
        "permissions",
        T::Ref("permissions"),
        "Tool permission rules for every agent.",
    ),
    f(
        "metadata",
        T::Any,
        "Free-form metadata (author, license, …).",
    ),
    f(
        "mcps",
        T::RefMap("mcp_server"),
        "MCP servers defined once, used by `type: mcp` toolsets with `ref: NAME`.",
    ),
    f(
        "toolsets",
        T::RefMap("toolset"),
        "Toolsets defined once, added to agents with `use_toolsets`.",
    ),
    f(
        "commands",
        T::Any,
        "Command groups defined once (each like an agent's `commands`), added to agents with `use_commands`.",
    ),
    f(
        "providers",
        T::RefMap("provider"),
        "Endpoints and defaults that models name as their `provider` (custom gateways).",
    ),
    f(
        "rag",
        T::Any,
        "RAG sources: not supported yet (a load error).",
    ),
    f(
        "evaluators",
        T::RefMap("evaluator"),
        "Named classifiers that `type: evaluator` hooks call.",
    ),
    f(
        "skills",
        T::Any,
        "Named skill groups (each like an agent's `skills`) that agents add with `use_skills`.",
    ),
    f(
        "runtime",
        T::Ref("runtime"),
        "Defaults for running the file.",
    ),
    f(
        "budget",
        T::Ref("budget"),
        "Ceilings on what the run consumes, whichever agent spends (sub-agents and background tasks included).",
    ),
    f(
        "budgets",
        T::RefMap("budget"),
        "Named ceilings; agents opt in with their `budgets`, and agents naming the same budget share one pot.",
    ),
];

pub const CACHE_FIELDS: &[Field] = &[
    f("enabled", T::Boolean, "Turn the cache on (default false)."),
    f(
        "case_sensitive",
        T::Boolean,
        "Questions must match in case too (default false).",
    ),
    f(
        "trim_spaces",
        T::Boolean,
        "Leading and trailing whitespace does not count (default false).",
    ),
    f(
        "path",
        T::String,
        "A JSON file keeping the answers across runs, relative to the agent file; absent: in memory only.",
    ),
];

pub const RUNTIME_FIELDS: &[Field] = &[
    f(
        "safety",
        T::Enum(&["strict", "balanced", "restricted", "autonomous"]),
        "The safety mode when neither the agent (`safety`) nor the user (`settings.safety`) chose one.",
    ),
    f(
        "sandbox",
        T::Boolean,
        "`false` only: a Docker sandbox is not supported yet (`true` is a load error).",
    ),
    f(
        "network_allowlist",
        T::StringList,
        "Empty only: it configures the sandbox, which is not supported yet.",
    ),
];

pub const BUDGET_FIELDS: &[Field] = &[
    f(
        "max_cost",
        T::Number,
        "USD (0: unlimited). Only priced model calls count; an unpriced model's calls are a warning.",
    ),
    f(
        "max_tokens",
        T::Integer,
        "Input plus output tokens over the run's lifetime (0: unlimited); compaction does not reset it.",
    ),
    f(
        "max_time",
        T::String,
        "The sum of turn durations, as a duration (`30s`, `10m`, `1h30m`); time waiting for the user does not count.",
    ),
];

pub const EVALUATOR_FIELDS: &[Field] = &[
    f(
        "type",
        T::Enum(&["choice", "boolean", "score"]),
        "`choice` (required); `boolean` and `score` are not supported yet (a load error).",
    ),
    f(
        "model",
        T::String,
        "The classifier: a `models:` name or `provider/model`; with `provider`, the provider's model id.",
    ),
    f(
        "provider",
        T::String,
        "A provider Tether knows or a `providers:` entry: the classifier is `PROVIDER/MODEL`. `typesafe` is not supported yet.",
    ),
    f(
        "instructions",
        T::String,
        "The question or rubric the evaluator answers (required).",
    ),
    f(
        "choices",
        T::StringMap,
        "`type: choice`: 2 to 255 outcome keys, each with a description.",
    ),
    f(
        "levels",
        T::StringList,
        "`type: score` only: not supported yet (a load error).",
    ),
    f(
        "timeout",
        T::Scalar,
        "Bounds one classifier call: a duration (`3s`) or seconds (default 10s; 0 = default).",
    ),
    f(
        "base_url",
        T::String,
        "The classifier's API endpoint (its chat API), instead of its provider's.",
    ),
    f(
        "token_key",
        T::String,
        "The variable holding the classifier's API key.",
    ),
    f(
        "endpoint",
        T::String,
        "A vendor classification URL: not supported yet (a load error); use `base_url`.",
    ),
    f(
        "cost",
        T::Any,
        "Evaluator pricing: not supported yet (a load error).",
    ),
    f(
        "bypass_models_gateway",
        T::Boolean,
        "Not supported yet (a load error): Tether has no models gateway.",
    ),
];

pub const EVALUATOR_POLICY_FIELDS: &[Field] = &[
    f(
        "decisions",
        T::StringMap,
        "Choice keys mapped to `allow`, `ask` or `deny`.",
    ),
    f(
        "min_probability",
        T::Number,
        "Above 0, at most 1: below it (or for an unmapped choice) `fallback` applies.",
    ),
    f(
        "fallback",
        T::Enum(&["ask", "deny"]),
        "The decision when the evaluator is unsure or its choice has no decision.",
    ),
];

pub const ROUTING_POLICY_FIELDS: &[Field] = &[
    f(
        "routes",
        T::StringMap,
        "Every choice of the evaluator mapped to an agent of the file.",
    ),
    f(
        "min_probability",
        T::Number,
        "Above 0, at most 1: below it, on a tie or when the evaluator fails, the agent's `routing.default_agent` is used.",
    ),
];

pub const AGENT_FIELDS: &[Field] = &[
    f(
        "model",
        T::String,
        "`provider/model`, or the name of an entry under `models:`.",
    ),
    f(
        "description",
        T::String,
        "What the agent does (shown to parent agents).",
    ),
    f("instruction", T::String, "The system prompt."),
    f(
        "instruction_file",
        T::String,
        "A file holding the system prompt, relative to the agent file.",
    ),
    f(
        "toolsets",
        T::RefList("toolset"),
        "The tools the agent can call.",
    ),
    f(
        "sub_agents",
        T::StringList,
        "Agents `transfer_task` may delegate to: names in this file, or external agents (an OCI reference such as `agentcatalog/pirate`, an http(s) URL, a `.yaml` file).",
    ),
    f(
        "handoffs",
        T::StringList,
        "Agents `handoff` may give the conversation to (names, or external agents as in `sub_agents`).",
    ),
    f(
        "force_handoff",
        T::String,
        "The agent every natural stop hands off to.",
    ),
    f(
        "max_iterations",
        T::Integer,
        "Model calls per run before asking to continue (0 = unlimited).",
    ),
    f(
        "max_consecutive_tool_calls",
        T::Integer,
        "Identical consecutive tool batches before the loop detector stops the run (0 = 5).",
    ),
    f(
        "num_history_items",
        T::Integer,
        "Send only this many recent messages (0 = all).",
    ),
    f(
        "add_date",
        T::Boolean,
        "Shorthand: the `add_date` builtin on `turn_start`.",
    ),
    f(
        "add_environment_info",
        T::Boolean,
        "Shorthand: the `add_environment_info` builtin on `session_start`.",
    ),
    f(
        "add_prompt_files",
        T::StringList,
        "Shorthand: the `add_prompt_files` builtin on `turn_start` with these files.",
    ),
    f(
        "redact_secrets",
        T::Boolean,
        "Shorthand: `redact_secrets` on pre_tool_use, before_llm_call and tool_response_transform.",
    ),
    f(
        "commands",
        T::Any,
        "Named prompts run as `/NAME [ARGS]`: a map (or a list of one-entry maps) of strings or `{description, instruction}`; `${env.X}`, `${args…}` and `${TOOL({…})}` are evaluated.",
    ),
    f(
        "welcome_message",
        T::String,
        "Shown when an interactive session starts.",
    ),
    f(
        "readonly",
        T::Boolean,
        "Every toolset keeps only the tools that declare themselves read-only.",
    ),
    f(
        "use_toolsets",
        T::StringList,
        "Top-level `toolsets:` entries appended to this agent's own, in order.",
    ),
    f(
        "use_commands",
        T::StringList,
        "Top-level `commands:` groups merged into this agent's (its own win on a name clash).",
    ),
    f(
        "add_description_parameter",
        T::Boolean,
        "Every tool takes an optional `description` argument: why the model calls it (hooks see it; the tool does not).",
    ),
    f(
        "code_mode_tools",
        T::Boolean,
        "The toolsets' tools (but `todo`) reach the model as one tool, `run_tools_with_javascript`, whose JavaScript calls them, each call through the hooks and approvals (see Code mode below).",
    ),
    f(
        "max_tool_result_tokens",
        T::Integer,
        "Cut each tool result to this many tokens (bytes / 4), keeping head and tail (0 or -1: no cap).",
    ),
    f(
        "budgets",
        T::StringList,
        "Names of top-level `budgets` the agent spends against (every one applies; the first exhausted stops the run).",
    ),
    f(
        "max_old_tool_call_tokens",
        T::Integer,
        "Keep this many tokens (bytes / 4) of older tool calls' arguments and results, newest first; older ones reach the model as placeholders (the latest batch is always whole; 0 or -1: keep all). The session keeps everything.",
    ),
    f(
        "add_prompt_files_depth",
        T::Integer,
        "Also list, by path, the `add_prompt_files` names found up to this many directory levels below the working directory (1: direct subdirectories; default 0). Their contents are not loaded.",
    ),
    f(
        "session_compaction",
        T::Boolean,
        "Compact the conversation near the context window and after an overflow (default true).",
    ),
    f(
        "compaction_model",
        T::String,
        "The model that writes compaction summaries (`models:` name or `provider/model`; default: the agent's).",
    ),
    f(
        "compaction_threshold",
        T::Number,
        "The share of the context window past which the conversation is compacted (0 < x ≤ 1, default 0.9).",
    ),
    f(
        "safety",
        T::Enum(&["strict", "balanced", "restricted", "autonomous"]),
        "How calls no rule or hook decided are approved (default `balanced`; `--yolo` is `autonomous`).",
    ),
    f(
        "routing",
        T::Ref("agent_routing"),
        "The agents this agent's `before_agent_run` / `after_agent_complete` hook may send the run to.",
    ),
    f(
        "fallback",
        T::Ref("fallback"),
        "Models tried in order when the agent's model fails (`on_error` and `notification` hooks see each switch).",
    ),
    f(
        "structured_output",
        T::Ref("structured_output"),
        "A JSON Schema every answer of the agent must match (native on OpenAI and Gemini; a forced answer tool on Anthropic).",
    ),
    f(
        "skills",
        T::Any,
        "`true` (local `SKILL.md` skills), `false`, or a list of `local`, skill names to keep, and inline skills `{name, description, instructions}`.",
    ),
    f(
        "cache",
        T::Ref("cache"),
        "A response cache: a user question asked again is answered with the previous answer, without calling the model.",
    ),
    f(
        "use_skills",
        T::StringList,
        "Top-level `skills` groups merged into the agent's skills, in order; the agent's own inline skills win on a name.",
    ),
    f(
        "rag",
        T::Any,
        "RAG sources of the agent: not supported yet (a load error).",
    ),
    f("hooks", T::Ref("hooks"), "Lifecycle hooks, per event."),
];

pub const SCRIPT_FIELDS: &[Field] = &[
    f(
        "cmd",
        T::String,
        "The command, run with `$SHELL -c`; its arguments are environment variables (`${name}`).",
    ),
    f(
        "description",
        T::String,
        "What the tool does, for the model.",
    ),
    f(
        "args",
        T::Any,
        "The arguments: JSON Schema properties by name (type defaults to string).",
    ),
    f(
        "required",
        T::StringList,
        "Required arguments (default: all of them).",
    ),
    f(
        "env",
        T::StringMap,
        "Environment variables for the command.",
    ),
    f(
        "working_dir",
        T::String,
        "Where the command runs, relative to the working directory.",
    ),
];

pub const TOOLSET_FIELDS: &[Field] = &[
    f(
        "type",
        T::Enum(&[
            "shell",
            "filesystem",
            "think",
            "todo",
            "mcp",
            "script",
            "user_prompt",
            "memory",
            "fetch",
            "api",
            "openapi",
            "model_picker",
            "background_agents",
        ]),
        "The toolset.",
    ),
    f(
        "tools",
        T::StringList,
        "Expose only these tools of the set (MCP: the server's tool names).",
    ),
    f(
        "safer",
        T::Boolean,
        "Shell only: classify every command with `safer_shell` on the preempt lane.",
    ),
    f(
        "instruction",
        T::String,
        "The toolset's system-prompt text: replaces the built-in text; `{ORIGINAL_INSTRUCTIONS}` stands for it.",
    ),
    f(
        "env",
        T::StringMap,
        "Shell: variables for commands. MCP: variables for the server (`${env.NAME}` expands).",
    ),
    f(
        "name",
        T::String,
        "MCP: tools are exposed as `NAME_tool`; `NAME` is the server in `mcp:NAME:tool`.",
    ),
    f(
        "defer",
        T::Any,
        "`true` or a list of tool names: kept out of the model's list until `add_tool` activates them (`search_tool` finds them).",
    ),
    f(
        "readonly",
        T::Boolean,
        "Expose only the tools that declare themselves read-only.",
    ),
    f(
        "toon",
        T::String,
        "Comma-separated regexes over tool names whose JSON-object output is re-encoded as TOON.",
    ),
    f(
        "model",
        T::String,
        "The model for the turn right after one of these tools ran (`models:` name or `provider/model`).",
    ),
    f(
        "ref",
        T::String,
        "MCP: `docker:NAME` (Docker MCP Gateway) or the name of a `mcps:` entry.",
    ),
    f("command", T::String, "MCP: the program of a stdio server."),
    f("args", T::ScalarList, "MCP: the stdio server's arguments."),
    f("remote", T::Ref("mcp_remote"), "MCP: a server over HTTP."),
    f(
        "config",
        T::Any,
        "MCP, `ref: docker:…`: the server's configuration for the gateway.",
    ),
    f(
        "version",
        T::Scalar,
        "MCP, `command`: docker-agent's auto-install package, named in the error when the command is missing.",
    ),
    f(
        "working_dir",
        T::String,
        "MCP, `command` / `ref`: where the server runs (relative to the working directory).",
    ),
    f(
        "lifecycle",
        T::Ref("mcp_lifecycle"),
        "MCP: start timeout, call timeout and restarts.",
    ),
    f(
        "allow_private_ips",
        T::Boolean,
        "`type: fetch`, `api`, `openapi`: private and loopback addresses may be reached (refused by default). On `type: mcp`: not supported yet (it governs OAuth requests).",
    ),
    f(
        "shell",
        T::RefMap("script"),
        "`type: script`: named commands, each a tool the model can call.",
    ),
    f(
        "path",
        T::String,
        "`type: memory`: the SQLite file, relative to the working directory (default: `$TETHER_HOME/memory/default/memory.db`).",
    ),
    f(
        "timeout",
        T::Integer,
        "`type: fetch`, `api`, `openapi`: the request timeout in seconds (default 30).",
    ),
    f(
        "allowed_domains",
        T::StringList,
        "`type: fetch`: only these hosts may be fetched, each redirect and robots.txt too. Case-insensitive; `example.com` is the host and its subdomains, `.example.com` or `*.example.com` only its subdomains; an IP address or CIDR range (`10.0.0.0/8`, `::1/128`) matches IP hosts. Not with `blocked_domains`.",
    ),
    f(
        "blocked_domains",
        T::StringList,
        "`type: fetch`: these hosts are refused, each redirect too; patterns as in `allowed_domains`, with which it cannot be combined.",
    ),
    f(
        "escape_html",
        T::Boolean,
        "`type: fetch`: write `<`, `>` and `&` as `\\u003c`, `\\u003e`, `\\u0026` in the JSON result of a multi-URL call (default false; single-URL results are plain text).",
    ),
    f(
        "api_config",
        T::Ref("api_config"),
        "`type: api`: the HTTP tool.",
    ),
    f(
        "url",
        T::String,
        "`type: openapi`: the OpenAPI 3 document, an `http(s)` URL or a file path (relative to the agent file); `${env.NAME}` expands. One tool per operation.",
    ),
    f(
        "headers",
        T::StringMap,
        "`type: openapi`: sent with every request, the document's included; `${env.NAME}` expands.",
    ),
    f(
        "max_output_bytes",
        T::Integer,
        "`type: openapi`: responses are cut to this many bytes (default 30000; 0 = no cut).",
    ),
    f(
        "shared",
        T::Boolean,
        "`type: todo`: one list for every agent of the run.",
    ),
    f(
        "post_edit",
        T::RefList("post_edit"),
        "`type: filesystem`: commands run after `write_file` or `edit_file` changed a matching file.",
    ),
    f(
        "ignore_vcs",
        T::Boolean,
        "`type: filesystem`: walks honour `.gitignore` and skip `.git` (default true).",
    ),
    f(
        "allow_list",
        T::StringList,
        "`type: filesystem`: the directories the tools may touch: `.` (the working directory), `~` or `~/…` (home), a relative path (to the working directory) or an absolute one; `$NAME` and `${env.NAME}` expand. Symlinks and `..` are resolved before the check; with either list set, the checked path is then opened without following any symlink, so a link that leads outside (or into `deny_list`) is refused, even one swapped in after the check. Walks skip what is outside. Empty or absent: no restriction.",
    ),
    f(
        "deny_list",
        T::StringList,
        "`type: filesystem`: directories the tools must not touch, written as in `allow_list`; deny wins over allow, and walks skip denied subtrees.",
    ),
    f(
        "models",
        T::StringList,
        "`type: model_picker`: the models `change_model` may switch to (`models:` names or `provider/model`).",
    ),
];

pub const API_CONFIG_FIELDS: &[Field] = &[
    f("name", T::String, "The tool's name."),
    f(
        "instruction",
        T::String,
        "The tool's description, also the toolset's system-prompt text.",
    ),
    f(
        "endpoint",
        T::String,
        "The URL; `${env.NAME}` expands, and `${ARG}` is the call's argument `ARG` of `args` (URL-encoded; in the path and query only, never the scheme or host).",
    ),
    f(
        "method",
        T::Enum(&["GET", "POST", "PUT", "PATCH", "DELETE"]),
        "`POST`, `PUT` and `PATCH` send the arguments as a JSON body. Only `GET` is read-only (runs without asking).",
    ),
    f(
        "headers",
        T::StringMap,
        "Request headers; `${env.NAME}` expands.",
    ),
    f(
        "args",
        T::Any,
        "The arguments: JSON Schema properties by name.",
    ),
    f("required", T::StringList, "Required arguments."),
    f(
        "output_schema",
        T::Any,
        "A JSON Schema of the response, for documentation; the model receives the body as text.",
    ),
];

pub const POST_EDIT_FIELDS: &[Field] = &[
    f(
        "path",
        T::String,
        "A glob over the edited file's name (with a `/`: over its path relative to the working directory).",
    ),
    f(
        "cmd",
        T::String,
        "Run with `$SHELL -c` in the working directory; the file's path is in `$path` and `$file`. A failure is reported in the tool's result.",
    ),
];

pub const MCP_SERVER_FIELDS: &[Field] = &[
    f("command", T::String, "The program of a stdio server."),
    f("args", T::ScalarList, "The stdio server's arguments."),
    f(
        "ref",
        T::String,
        "`docker:NAME`: a Docker catalog server run by the MCP Gateway.",
    ),
    f("remote", T::Ref("mcp_remote"), "A server over HTTP."),
    f(
        "config",
        T::Any,
        "`ref: docker:…`: the server's configuration for the gateway.",
    ),
    f(
        "version",
        T::Scalar,
        "docker-agent's auto-install package, named in the error when the command is missing.",
    ),
    f(
        "env",
        T::StringMap,
        "Variables for the server; a toolset's own win key by key.",
    ),
    f("tools", T::StringList, "Expose only these tools."),
    f("instruction", T::String, "The server's system-prompt text."),
    f("name", T::String, "Tools are exposed as `NAME_tool`."),
    f("defer", T::Any, "`true` or a list of tool names to defer."),
    f(
        "working_dir",
        T::String,
        "Where a stdio server or the gateway runs.",
    ),
    f(
        "lifecycle",
        T::Ref("mcp_lifecycle"),
        "Start timeout, call timeout and restarts.",
    ),
];

pub const MCP_REMOTE_FIELDS: &[Field] = &[
    f(
        "url",
        T::String,
        "`http://` or `https://`; `${env.NAME}` expands.",
    ),
    f(
        "transport_type",
        T::Enum(&["streamable", "streamable-http", "sse"]),
        "Streamable HTTP (default) or the legacy HTTP+SSE transport.",
    ),
    f(
        "headers",
        T::StringMap,
        "Sent with every request; `${env.NAME}` expands.",
    ),
    f(
        "oauth",
        T::Any,
        "Not supported yet: pass a token in `headers`.",
    ),
];

pub const MCP_LIFECYCLE_FIELDS: &[Field] = &[
    f(
        "profile",
        T::Enum(&crate::mcp::LifecycleProfile::NAMES),
        "`resilient` (default: restart with backoff), `strict` (required, never restarted), `best-effort` (one attempt).",
    ),
    f(
        "required",
        T::Boolean,
        "The run does not start without this server (default: true under `strict`).",
    ),
    f(
        "startup_timeout",
        T::Scalar,
        "Go duration capping connect + initialize (default 60s; `0` = none).",
    ),
    f(
        "call_timeout",
        T::Scalar,
        "Go duration capping one tool call; the call is cancelled on the server (default: none).",
    ),
    f(
        "restart",
        T::Enum(&crate::mcp::Restart::NAMES),
        "When a dead server is restarted (default `on_failure`).",
    ),
    f(
        "max_restarts",
        T::Integer,
        "Consecutive failed restarts before giving up (0 = default 5, -1 = unlimited).",
    ),
    f(
        "backoff",
        T::Ref("mcp_backoff"),
        "Waits between restart attempts.",
    ),
];

pub const MCP_BACKOFF_FIELDS: &[Field] = &[
    f("initial", T::Scalar, "First wait (default 1s)."),
    f("max", T::Scalar, "Longest wait (default 32s)."),
    f("multiplier", T::Number, "Growth per attempt (default 2)."),
    f(
        "jitter",
        T::Number,
        "Random fraction (0..1) of each wait (default 0).",
    ),
];

pub const MODEL_FIELDS: &[Field] = &[
    f(
        "provider",
        T::String,
        "`openai`, `anthropic`, `google`, `mistral`, `dmr`, `script`, an OpenAI-compatible service (`xai`, `nebius`, `ollama`, `openrouter`, …), a `providers:` entry, or any name with `base_url`.",
    ),
    f(
        "model",
        T::String,
        "The provider's model name (a script file for `script`).",
    ),
    f(
        "description",
        T::String,
        "What the model is for (listed by `model_picker` toolsets).",
    ),
    f(
        "base_url",
        T::String,
        "The API endpoint; wins over the environment. `${env.NAME}` expands.",
    ),
    f(
        "token_key",
        T::String,
        "The variable holding the API key, instead of the provider's own.",
    ),
    f("max_tokens", T::Integer, "Maximum output tokens."),
    f("temperature", T::Number, "Sampling temperature."),
    f("top_p", T::Number, "Nucleus sampling."),
    f(
        "frequency_penalty",
        T::Number,
        "Penalise repeated tokens (OpenAI-compatible, Gemini).",
    ),
    f(
        "presence_penalty",
        T::Number,
        "Encourage new topics (OpenAI-compatible, Gemini).",
    ),
    f(
        "parallel_tool_calls",
        T::Boolean,
        "`false`: one tool call per answer.",
    ),
    f(
        "track_usage",
        T::Boolean,
        "OpenAI-compatible streams report usage (default true).",
    ),
    f(
        "thinking_budget",
        T::Scalar,
        "Reasoning: `none`/`0`, an effort level (`minimal` … `max`, `adaptive[/EFFORT]`), or a token count (Anthropic, Gemini; `-1` Gemini's dynamic).",
    ),
    f(
        "routing",
        T::RefList("routing_rule"),
        "Makes this model a router: each request goes to the rule whose examples it matches best, else to this model.",
    ),
    f(
        "cost",
        T::Ref("cost"),
        "Prices in USD per million tokens (`input`, `output`, `cache_read`, `cache_write`; absent ones are free), over the built-in catalogue's: session cost and `after_llm_call`'s `cost` use them.",
    ),
    f(
        "first_available",
        T::StringList,
        "Models tried in order at start: the first whose key is set is used (instead of `provider`/`model`).",
    ),
    f(
        "compaction_model",
        T::String,
        "Writes the compaction summaries of agents running this model (a `models:` name or `provider/model`); an agent's own `compaction_model` wins.",
    ),
    f(
        "compaction_threshold",
        T::Number,
        "The share of the context window past which agents running this model compact; wins over the agent's.",
    ),
    f(
        "provider_opts",
        T::Any,
        "Provider options: `context_size`, `api` (responses | chat), timeouts, retries, `unload_api`.",
    ),
];

pub const PROVIDER_FIELDS: &[Field] = &[
    f(
        "provider",
        T::String,
        "The client: `openai` (default), `anthropic`, `google`, `dmr` or a known service.",
    ),
    f(
        "api_type",
        T::Enum(&["openai_chatcompletions", "openai_responses"]),
        "OpenAI-compatible API flavour.",
    ),
    f(
        "base_url",
        T::String,
        "The endpoint of models of this provider; `${env.NAME}` expands.",
    ),
    f("token_key", T::String, "The variable holding the API key."),
    f(
        "unload_api",
        T::String,
        "The endpoint the `unload` builtin posts to.",
    ),
    f("max_tokens", T::Integer, "Default maximum output tokens."),
    f("temperature", T::Number, "Default sampling temperature."),
    f("top_p", T::Number, "Default nucleus sampling."),
    f("frequency_penalty", T::Number, "Default frequency penalty."),
    f("presence_penalty", T::Number, "Default presence penalty."),
    f(
        "parallel_tool_calls",
        T::Boolean,
        "Default for `parallel_tool_calls`.",
    ),
    f("track_usage", T::Boolean, "Default for `track_usage`."),
    f("thinking_budget", T::Scalar, "Default thinking budget."),
    f(
        "compaction_model",
        T::String,
        "The default `compaction_model` of its models.",
    ),
    f("provider_opts", T::Any, "Default provider options."),
];

pub const ROUTING_RULE_FIELDS: &[Field] = &[
    f(
        "model",
        T::String,
        "The model for requests like the examples (`models:` name or `provider/model`).",
    ),
    f("examples", T::StringList, "Example requests."),
];

pub const AGENT_ROUTING_FIELDS: &[Field] = &[
    f(
        "allowed_agents",
        T::StringList,
        "Agents of this file a routing hook may pick (not this agent).",
    ),
    f(
        "default_agent",
        T::String,
        "Where an uncertain or failed routing decision goes (one of `allowed_agents`).",
    ),
];

pub const COST_FIELDS: &[Field] = &[
    f("input", T::Number, "USD per million uncached input tokens."),
    f("output", T::Number, "USD per million output tokens."),
    f(
        "cache_read",
        T::Number,
        "USD per million input tokens read from the prompt cache.",
    ),
    f(
        "cache_write",
        T::Number,
        "USD per million input tokens written to the prompt cache.",
    ),
];

pub const FALLBACK_FIELDS: &[Field] = &[
    f(
        "models",
        T::StringList,
        "Fallback models in order (`models:` names or `provider/model`).",
    ),
    f(
        "retries",
        T::Integer,
        "Extra attempts per model on 5xx and timeouts: 0 = default (2), -1 = none.",
    ),
    f(
        "cooldown",
        T::String,
        "How long a fallback that answered after a rate limit or client error is kept (default `1m`).",
    ),
];

pub const STRUCTURED_OUTPUT_FIELDS: &[Field] = &[
    f("name", T::String, "The schema's name."),
    f("description", T::String, "What the answer is."),
    f("schema", T::Any, "A JSON Schema with `type: object`."),
    f(
        "strict",
        T::Boolean,
        "OpenAI: enforce the schema exactly (every property required).",
    ),
    f(
        "mode",
        T::Enum(&["native"]),
        "`native` (the provider enforces it); `tool` is not supported yet.",
    ),
];

pub const PERMISSIONS_FIELDS: &[Field] = &[
    f(
        "allow",
        T::StringList,
        "Patterns that run without asking (matched strictly: exact keys and case; a shell line only when each of its commands is allowed).",
    ),
    f(
        "ask",
        T::StringList,
        "Patterns that always ask (matched generously, like `deny`).",
    ),
    f(
        "deny",
        T::StringList,
        "Patterns that never run (checked first; matched generously: any case, wildcards cross `/`, every command of a shell line).",
    ),
];

pub const MATCHER_FIELDS: &[Field] = &[
    f(
        "matcher",
        T::String,
        "A regex over the tool name, anchored (`^(?:…)$`); absent, `\"\"` or `*` match every tool.",
    ),
    f(
        "hooks",
        T::RefList("hook"),
        "The hooks to run (at least one).",
    ),
    f(
        "preempt_yolo",
        T::Boolean,
        "`pre_tool_use` only: run before `--yolo` and permission rules; any failure or block is a deny.",
    ),
];

pub const HOOK_FIELDS: &[Field] = &[
    f(
        "type",
        T::Enum(&[
            "command",
            "builtin",
            "model",
            "evaluator",
            "http",
            "mcp",
            "mcp_tool",
        ]),
        "What runs (required).",
    ),
    f(
        "command",
        T::String,
        "`command`: shell text run with `$SHELL -c`; `builtin`: the builtin's name.",
    ),
    f(
        "args",
        T::ScalarList,
        "Builtin parameters (part of the de-duplication key for every type).",
    ),
    f(
        "timeout",
        T::Integer,
        "Seconds (default 60; 0 or less means the default).",
    ),
    f("name", T::String, "A display name for logs and notices."),
    f(
        "working_dir",
        T::String,
        "Where the hook runs; relative paths join the working directory.",
    ),
    f(
        "env",
        T::StringMap,
        "Variables added to the hook's environment.",
    ),
    f(
        "on_error",
        T::Enum(&["warn", "ignore", "block"]),
        "What a failing hook does on events that do not fail closed (default warn).",
    ),
    f(
        "model",
        T::String,
        "`model`: `provider/model` or a `models:` name.",
    ),
    f(
        "prompt",
        T::String,
        "`model`: a Go text/template over the hook Input.",
    ),
    f(
        "schema",
        T::Enum(&MODEL_HOOK_SCHEMAS),
        "`model`: the reply shape (`pre_tool_use_decision`); absent = free text as context.",
    ),
    f(
        "url",
        T::String,
        "`http`: the URL the Input is POSTed to (http or https).",
    ),
    f(
        "headers",
        T::StringMap,
        "`http`: request headers; `${VAR}` only for variables in `allowed_env`.",
    ),
    f(
        "allowed_env",
        T::StringList,
        "`http`: variables `headers` may expand.",
    ),
    f(
        "async",
        T::Boolean,
        "Start and do not wait (observational events only).",
    ),
    f(
        "dialect",
        T::Enum(&Dialect::NAMES),
        "`command` / `http`: `claude` gives the hook Claude Code's event and tool names and input keys (`tool_input.command`, `file_path`), maps its `updatedInput` back and reads its verdicts as Claude Code does, so Claude Code hook scripts run unchanged.",
    ),
    f(
        "server",
        T::String,
        "`mcp`: the agent's MCP server to call (a toolset's `name` or `ref` name).",
    ),
    f("tool", T::String, "`mcp`: the tool to call."),
    f(
        "input",
        T::Any,
        "`mcp`: the tool's arguments, `${path}` strings filled from the Input; absent = the whole Input.",
    ),
    f(
        "strict_output",
        T::Boolean,
        "stdout must be empty or one JSON Output object with only the keys the event reads; anything else is a hook failure (`on_error` applies; fail-closed events deny).",
    ),
    f(
        "system_prompt",
        T::String,
        "`model`: the literal system message, replacing the default one (not a template).",
    ),
    f(
        "evaluator",
        T::String,
        "`evaluator`: the `evaluators:` entry to call.",
    ),
    f(
        "evaluator_policy",
        T::Ref("evaluator_policy"),
        "`evaluator` on pre_tool_use (guarding events): the choice's decision.",
    ),
    f(
        "routing_policy",
        T::Ref("routing_policy"),
        "`evaluator` on before_agent_run / after_agent_complete: the choice's agent.",
    ),
];

fn field_schema(ty: FieldType, doc: &str) -> Value {
    let mut v = match ty {
        T::String => json!({"type": "string"}),
        T::Integer => json!({"type": "integer"}),
        T::Number => json!({"type": "number"}),
        T::Boolean => json!({"type": "boolean"}),
        T::Scalar => json!({"type": ["string", "number", "boolean"]}),
        T::StringList => json!({"type": ["array", "null"], "items": {"type": "string"}}),
        T::ScalarList => {
            json!({"type": ["array", "null"], "items": {"type": ["string", "number", "boolean"]}})
        }
        T::StringMap => {
            json!({"type": ["object", "null"], "additionalProperties": {"type": ["string", "number", "boolean"]}})
        }
        T::Any => json!({}),
        T::Enum(values) => json!({"type": "string", "enum": values}),
        T::Ref(name) => json!({"$ref": format!("#/$defs/{name}")}),
        T::RefList(name) => {
            json!({"type": ["array", "null"], "items": {"$ref": format!("#/$defs/{name}")}})
        }
        T::RefMap(name) => {
            json!({"type": ["object", "null"], "additionalProperties": {"$ref": format!("#/$defs/{name}")}})
        }
    };
    if let Value::Object(m) = &mut v {
        m.insert("description".to_owned(), Value::String(doc.to_owned()));
    }
    v
}

fn object(fields: &[Field], required: &[&str]) -> Value {
    let props: Map<String, Value> = fields
        .iter()
        .map(|f| (f.name.to_owned(), field_schema(f.ty, f.doc)))
        .collect();
    json!({"type": "object", "properties": props, "required": required, "additionalProperties": false})
}

/// `defer`: a boolean or a list of tool names.
fn defer_schema(fields: &[Field]) -> Value {
    let doc = fields
        .iter()
        .find(|f| f.name == "defer")
        .map_or("", |f| f.doc);
    json!({
        "description": doc,
        "oneOf": [{"type": "boolean"}, {"type": "array", "items": {"type": "string"}}],
    })
}

/// The JSON Schema (draft 2020-12) of agent files.
pub fn agent_file_schema() -> Value {
    let events: Map<String, Value> = HookEvent::ALL
        .into_iter()
        .map(|e| {
            let item = if e.uses_matcher() {
                "matcher_entry"
            } else {
                "hook"
            };
            let schema = json!({
                "type": ["array", "null"],
                "items": {"$ref": format!("#/$defs/{item}")},
                "description": e.description(),
            });
            (e.wire_name().to_owned(), schema)
        })
        .collect();
    let mut toolset = object(TOOLSET_FIELDS, &["type"]);
    toolset["properties"]["defer"] = defer_schema(TOOLSET_FIELDS);
    // An MCP toolset says where its server is: a command, a remote URL or a `ref`.
    toolset["allOf"] = json!([
        {
            "if": {"properties": {"type": {"const": "mcp"}}, "required": ["type"]},
            "then": {"anyOf": [{"required": ["command"]}, {"required": ["remote"]}, {"required": ["ref"]}]},
        },
        {
            "if": {"properties": {"type": {"const": "api"}}, "required": ["type"]},
            "then": {"required": ["api_config"]},
        },
        {
            "if": {"properties": {"type": {"const": "openapi"}}, "required": ["type"]},
            "then": {"required": ["url"]},
        },
        {
            "if": {"properties": {"type": {"const": "model_picker"}}, "required": ["type"]},
            "then": {"required": ["models"]},
        },
    ]);
    let mut mcp_server = object(MCP_SERVER_FIELDS, &[]);
    mcp_server["properties"]["defer"] = defer_schema(MCP_SERVER_FIELDS);
    let mut model = object(MODEL_FIELDS, &[]);
    model["properties"]["provider"]["examples"] = json!(KNOWN_PROVIDERS);
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": "https://tether.dev/schema/agent-file.json",
        "title": "Tether agent file",
        "description": "An agent file (docker-agent's format): agents, models, permissions and lifecycle hooks.",
        "type": "object",
        "properties": object(FILE_FIELDS, &[])["properties"].clone(),
        "required": ["agents"],
        "additionalProperties": false,
        "$defs": {
            "agent": object(AGENT_FIELDS, &[]),
            "toolset": toolset,
            "model": model,
            "permissions": object(PERMISSIONS_FIELDS, &[]),
            "provider": object(PROVIDER_FIELDS, &[]),
            "routing_rule": object(ROUTING_RULE_FIELDS, &["model", "examples"]),
            "fallback": object(FALLBACK_FIELDS, &["models"]),
            "cost": object(COST_FIELDS, &[]),
            "budget": object(BUDGET_FIELDS, &[]),
            "runtime": object(RUNTIME_FIELDS, &[]),
            "cache": object(CACHE_FIELDS, &[]),
            "agent_routing": object(AGENT_ROUTING_FIELDS, &["allowed_agents"]),
            "structured_output": object(STRUCTURED_OUTPUT_FIELDS, &["name", "schema"]),
            "mcp_server": mcp_server,
            "script": object(SCRIPT_FIELDS, &["cmd"]),
            "api_config": object(API_CONFIG_FIELDS, &["name", "endpoint", "method"]),
            "post_edit": object(POST_EDIT_FIELDS, &["path", "cmd"]),
            "mcp_remote": object(MCP_REMOTE_FIELDS, &["url"]),
            "mcp_lifecycle": object(MCP_LIFECYCLE_FIELDS, &[]),
            "mcp_backoff": object(MCP_BACKOFF_FIELDS, &[]),
            "hooks": {"type": ["object", "null"], "properties": events, "additionalProperties": false},
            "matcher_entry": object(MATCHER_FIELDS, &["hooks"]),
            "hook": object(HOOK_FIELDS, &["type"]),
            "evaluator": object(EVALUATOR_FIELDS, &["type", "model", "instructions"]),
            "evaluator_policy": object(EVALUATOR_POLICY_FIELDS, &["decisions", "min_probability", "fallback"]),
            "routing_policy": object(ROUTING_POLICY_FIELDS, &["routes", "min_probability"]),
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::load::load_str;

    /// The keys the strict loader accepts where `yaml` has an unknown key `zzz`.
    fn accepted_keys(yaml: &str) -> Vec<String> {
        let err = load_str(yaml, "a.yaml", std::path::Path::new("."))
            .unwrap_err()
            .to_string();
        let list = err
            .split("expected one of ")
            .nth(1)
            .unwrap_or_else(|| panic!("{err}"))
            .lines()
            .next()
            .unwrap();
        let mut keys: Vec<String> = list.split(", ").map(|k| k.trim().to_owned()).collect();
        keys.sort();
        keys
    }

    fn names(fields: &[Field]) -> Vec<String> {
        let mut n: Vec<String> = fields.iter().map(|f| f.name.to_owned()).collect();
        n.sort();
        n
    }

    #[test]
    fn every_table_matches_what_the_loader_accepts() {
        let cases: [(&str, &[Field]); 25] = [
            (
                "agents:\n  root:\n    routing: {zzz: 1}\n",
                AGENT_ROUTING_FIELDS,
            ),
            (
                "evaluators:\n  e:\n    zzz: 1\nagents:\n  root: {}\n",
                EVALUATOR_FIELDS,
            ),
            (
                "agents:\n  root:\n    hooks:\n      pre_tool_use:\n        - hooks:\n            - type: evaluator\n              evaluator_policy: {zzz: 1}\n",
                EVALUATOR_POLICY_FIELDS,
            ),
            (
                "agents:\n  root:\n    hooks:\n      stop:\n        - type: evaluator\n          routing_policy: {zzz: 1}\n",
                ROUTING_POLICY_FIELDS,
            ),
            (
                "providers:\n  p:\n    zzz: 1\nagents:\n  root: {}\n",
                PROVIDER_FIELDS,
            ),
            (
                "models:\n  m:\n    routing:\n      - zzz: 1\nagents:\n  root: {}\n",
                ROUTING_RULE_FIELDS,
            ),
            (
                "agents:\n  root:\n    fallback: {zzz: 1}\n",
                FALLBACK_FIELDS,
            ),
            ("budget: {zzz: 1}\nagents:\n  root: {}\n", BUDGET_FIELDS),
            ("runtime: {zzz: 1}\nagents:\n  root: {}\n", RUNTIME_FIELDS),
            ("agents:\n  root:\n    cache: {zzz: 1}\n", CACHE_FIELDS),
            (
                "models:\n  m:\n    provider: openai\n    model: gpt-4o\n    cost: {zzz: 1}\nagents:\n  root: {}\n",
                COST_FIELDS,
            ),
            (
                "agents:\n  root:\n    structured_output: {zzz: 1}\n",
                STRUCTURED_OUTPUT_FIELDS,
            ),
            (
                "agents:\n  root:\n    toolsets:\n      - type: api\n        api_config: {zzz: 1}\n",
                API_CONFIG_FIELDS,
            ),
            (
                "agents:\n  root:\n    toolsets:\n      - type: filesystem\n        post_edit: [{zzz: 1}]\n",
                POST_EDIT_FIELDS,
            ),
            ("zzz: 1\nagents:\n  root: {}\n", FILE_FIELDS),
            ("agents:\n  root:\n    zzz: 1\n", AGENT_FIELDS),
            (
                "agents:\n  root:\n    toolsets:\n      - zzz: 1\n",
                TOOLSET_FIELDS,
            ),
            (
                "models:\n  m:\n    zzz: 1\nagents:\n  root: {}\n",
                MODEL_FIELDS,
            ),
            (
                "permissions:\n  zzz: []\nagents:\n  root: {}\n",
                PERMISSIONS_FIELDS,
            ),
            (
                "agents:\n  root:\n    hooks:\n      pre_tool_use:\n        - zzz: 1\n",
                MATCHER_FIELDS,
            ),
            (
                "agents:\n  root:\n    hooks:\n      stop:\n        - zzz: 1\n",
                HOOK_FIELDS,
            ),
            (
                "mcps:\n  m:\n    zzz: 1\nagents:\n  root: {}\n",
                MCP_SERVER_FIELDS,
            ),
            (
                "agents:\n  root:\n    toolsets:\n      - type: mcp\n        remote: {zzz: 1}\n",
                MCP_REMOTE_FIELDS,
            ),
            (
                "agents:\n  root:\n    toolsets:\n      - type: mcp\n        lifecycle: {zzz: 1}\n",
                MCP_LIFECYCLE_FIELDS,
            ),
            (
                "agents:\n  root:\n    toolsets:\n      - type: mcp\n        lifecycle: {backoff: {zzz: 1}}\n",
                MCP_BACKOFF_FIELDS,
            ),
        ];
        for (yaml, fields) in cases {
            assert_eq!(accepted_keys(yaml), names(fields), "{yaml}");
        }
    }

    #[test]
    fn the_schema_lists_every_event() {
        let schema = agent_file_schema();
        let events = schema["$defs"]["hooks"]["properties"].as_object().unwrap();
        assert_eq!(events.len(), 32);
        assert_eq!(
            events["pre_tool_use"]["items"]["$ref"],
            "#/$defs/matcher_entry"
        );
        assert_eq!(events["stop"]["items"]["$ref"], "#/$defs/hook");
    }
}
