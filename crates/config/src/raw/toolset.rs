//! Toolsets (`agents.NAME.toolsets[i]`, `toolsets.NAME`) and MCP servers (`mcps.NAME`).

use std::collections::BTreeMap;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, Visitor};
use serde_saphyr::Spanned;

use super::{OrderedMap, Scalar};
use crate::mcp::{LifecycleProfile, Restart};
use crate::schema::{FieldType, FieldType as T, Shape};
use crate::toolset::{ApiConfig, ToolsetKind};

described! {
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[schema(name = "toolset")]
    pub(crate) struct RawToolset {
        /// The toolset.
        #[serde(rename = "type")]
        #[schema(required, ty = T::Enum(&ToolsetKind::NAMES))]
        pub(crate) kind: Option<Spanned<String>>,
        /// Expose only these tools of the set (MCP: the server's tool names).
        pub(crate) tools: Option<Vec<Spanned<String>>>,
        /// Shell only: classify every command with `safer_shell` on the preempt lane.
        pub(crate) safer: Option<Spanned<bool>>,
        /// The toolset's system-prompt text: replaces the built-in text; `{ORIGINAL_INSTRUCTIONS}`
        /// stands for it.
        pub(crate) instruction: Option<String>,
        /// Shell, background jobs: variables for commands. MCP: variables for the server
        /// (`${env.NAME}` expands). LSP: variables for the language server (as written).
        pub(crate) env: Option<BTreeMap<String, Scalar>>,
        // Every toolset type.
        /// MCP: tools are exposed as `NAME_tool`; `NAME` is the server in `mcp:NAME:tool`.
        pub(crate) name: Option<Spanned<String>>,
        /// `true` or a list of tool names: kept out of the model's list until `add_tool` activates
        /// them (`search_tool` finds them).
        pub(crate) defer: Option<Spanned<RawDefer>>,
        /// Expose only the tools that declare themselves read-only.
        pub(crate) readonly: Option<Spanned<bool>>,
        /// Comma-separated regexes over tool names whose JSON-object output is re-encoded as TOON.
        pub(crate) toon: Option<Spanned<String>>,
        /// The model for the turn right after one of these tools ran (`models:` name or
        /// `provider/model`).
        pub(crate) model: Option<Spanned<String>>,
        // `type: mcp`.
        /// MCP: `docker:NAME` (Docker MCP Gateway) or the name of a `mcps:` entry. RAG: the name
        /// of a top-level `rag:` source.
        #[serde(rename = "ref")]
        pub(crate) reference: Option<Spanned<String>>,
        /// MCP: the program of a stdio server. LSP: the language server.
        pub(crate) command: Option<Spanned<String>>,
        /// MCP: the stdio server's arguments. LSP: the language server's.
        pub(crate) args: Option<Spanned<Vec<Scalar>>>,
        /// MCP: a server over HTTP.
        pub(crate) remote: Option<Spanned<RawRemote>>,
        /// MCP, `ref: docker:…`: the server's configuration for the gateway.
        pub(crate) config: Option<Spanned<serde_json::Value>>,
        /// MCP, `command`: docker-agent's auto-install package, named in the error when the command
        /// is missing.
        pub(crate) version: Option<Spanned<Scalar>>,
        /// MCP, `command` / `ref`: where the server runs (relative to the working directory).
        pub(crate) working_dir: Option<Spanned<String>>,
        /// `type: lsp`: the file extensions the server takes (`[".py"]`); every file when not given.
        pub(crate) file_types: Option<Spanned<Vec<Spanned<String>>>>,
        /// MCP: start timeout, call timeout and restarts.
        pub(crate) lifecycle: Option<Spanned<RawLifecycle>>,
        /// `type: fetch`, `api`, `openapi`: private and loopback addresses may be reached (refused
        /// by default). On `type: mcp`: not supported yet (it governs OAuth requests).
        pub(crate) allow_private_ips: Option<Spanned<bool>>,
        // `type: memory`.
        /// `type: memory`: the SQLite file, relative to the working directory (default:
        /// `$TETHER_HOME/memory/default/memory.db`). `type: tasks`: the JSON file of tasks,
        /// relative to the working directory (default `tasks.json`); a task's `path` argument
        /// must name a file inside its directory.
        pub(crate) path: Option<Spanned<String>>,
        // `type: fetch`.
        /// `type: fetch`, `api`, `openapi`: the request timeout in seconds (default 30).
        pub(crate) timeout: Option<Spanned<i64>>,
        /// `type: fetch`: only these hosts may be fetched, each redirect and robots.txt too.
        /// Case-insensitive; `example.com` is the host and its subdomains, `.example.com` or
        /// `*.example.com` only its subdomains; an IP address or CIDR range (`10.0.0.0/8`,
        /// `::1/128`) matches IP hosts. Not with `blocked_domains`.
        pub(crate) allowed_domains: Option<Spanned<Vec<Spanned<String>>>>,
        /// `type: fetch`: these hosts are refused, each redirect too; patterns as in
        /// `allowed_domains`, with which it cannot be combined.
        pub(crate) blocked_domains: Option<Spanned<Vec<Spanned<String>>>>,
        /// `type: fetch`: write `<`, `>` and `&` as `\u003c`, `\u003e`, `\u0026` in the JSON result
        /// of a multi-URL call (default false; single-URL results are plain text).
        pub(crate) escape_html: Option<Spanned<bool>>,
        // `type: script`.
        /// `type: script`: named commands, each a tool the model can call.
        pub(crate) shell: Option<Spanned<OrderedMap<Spanned<RawScript>>>>,
        // `type: api`.
        /// `type: api`: the HTTP tool.
        pub(crate) api_config: Option<Spanned<RawApiConfig>>,
        // `type: openapi`.
        /// `type: openapi`: the OpenAPI 3 document, an `http(s)` URL or a file path (relative to
        /// the agent file); `${env.NAME}` expands. One tool per operation.
        pub(crate) url: Option<Spanned<String>>,
        /// `type: openapi`: sent with every request, the document's included; `${env.NAME}`
        /// expands.
        pub(crate) headers: Option<Spanned<OrderedMap<Spanned<Scalar>>>>,
        /// `type: openapi`: responses are cut to this many bytes (default 30000; 0 = no cut).
        pub(crate) max_output_bytes: Option<Spanned<i64>>,
        // `type: todo`.
        /// `type: todo`: one list for every agent of the run.
        pub(crate) shared: Option<Spanned<bool>>,
        // `type: filesystem`.
        /// `type: filesystem`, `file`: commands run after `write_file` or `edit_file` changed a
        /// matching file.
        pub(crate) post_edit: Option<Spanned<Vec<Spanned<RawPostEdit>>>>,
        /// `type: filesystem`: walks honour `.gitignore` and skip `.git` (default true).
        pub(crate) ignore_vcs: Option<Spanned<bool>>,
        /// `type: filesystem`, `file`: the directories the tools may touch: `.` (the working directory),
        /// `~` or `~/…` (home), a relative path (to the working directory) or an absolute one;
        /// `$NAME` and `${env.NAME}` expand. Symlinks and `..` are resolved before the check; with
        /// either list set, the checked path is then opened without following any symlink, so a
        /// link that leads outside (or into `deny_list`) is refused, even one swapped in after the
        /// check. Walks skip what is outside. Empty or absent: no restriction.
        pub(crate) allow_list: Option<Spanned<Vec<Spanned<String>>>>,
        /// `type: filesystem`, `file`: directories the tools must not touch, written as in `allow_list`;
        /// deny wins over allow, and walks skip denied subtrees.
        pub(crate) deny_list: Option<Spanned<Vec<Spanned<String>>>>,
        // `type: model_picker`.
        /// `type: model_picker`: the models `change_model` may switch to (`models:` names or
        /// `provider/model`).
        pub(crate) models: Option<Spanned<Vec<Spanned<String>>>>,
        // `type: webhook`.
        /// `type: webhook`: where `send_webhook` delivers, and how.
        pub(crate) webhook_config: Option<Spanned<RawWebhookConfig>>,
        // `type: background_jobs`.
        /// `type: background_jobs`: let `run_background_job` ask for the job's output to be
        /// delivered to the agent when it ends. Only `false` (the default) is supported yet.
        pub(crate) recall: Option<Spanned<bool>>,
        // `type: mcp_catalog`.
        /// `type: mcp_catalog`: when not empty, only these catalog server ids are offered.
        pub(crate) allowed_servers: Option<Spanned<Vec<Spanned<String>>>>,
        /// `type: mcp_catalog`: these catalog server ids are never offered, even when
        /// `allowed_servers` lists them.
        pub(crate) blocked_servers: Option<Spanned<Vec<Spanned<String>>>>,
    }
}

described! {
    /// `webhook_config:` of a `type: webhook` toolset.
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[schema(name = "webhook_config")]
    pub(crate) struct RawWebhookConfig {
        /// The payload's shape: `text` for most, `content` for `discord`, `value1`..`value3` for
        /// `ifttt`, `chat_id` and `text` for `telegram` (default `generic`).
        #[schema(ty = T::Enum(&crate::WebhookConfig::PROVIDERS))]
        pub(crate) provider: Option<Spanned<String>>,
        /// The endpoint (`http://` or `https://`); `${env.NAME}` expands when a message is sent.
        /// It usually holds a secret, and never appears in a tool's answer.
        #[schema(required)]
        pub(crate) url: Option<Spanned<String>>,
        /// Request headers; `${env.NAME}` expands.
        pub(crate) headers: Option<OrderedMap<Spanned<Scalar>>>,
        /// `provider: telegram`: the destination chat.
        pub(crate) chat_id: Option<Spanned<Scalar>>,
    }
}

described! {
    /// `api_config:` of a `type: api` toolset.
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[schema(name = "api_config")]
    pub(crate) struct RawApiConfig {
        /// The tool's name.
        #[schema(required)]
        pub(crate) name: Option<Spanned<String>>,
        /// The tool's description, also the toolset's system-prompt text.
        pub(crate) instruction: Option<String>,
        /// The URL; `${env.NAME}` expands, and `${ARG}` is the call's argument `ARG` of `args`
        /// (URL-encoded; in the path and query only, never the scheme or host).
        #[schema(required)]
        pub(crate) endpoint: Option<Spanned<String>>,
        /// `POST`, `PUT` and `PATCH` send the arguments as a JSON body. Only `GET` is read-only
        /// (runs without asking).
        #[schema(required, ty = T::Enum(&ApiConfig::METHODS))]
        pub(crate) method: Option<Spanned<String>>,
        /// Request headers; `${env.NAME}` expands.
        pub(crate) headers: Option<OrderedMap<Spanned<Scalar>>>,
        /// The arguments: JSON Schema properties by name.
        pub(crate) args: Option<OrderedMap<serde_json::Value>>,
        /// Required arguments.
        pub(crate) required: Option<Vec<Spanned<String>>>,
        /// A JSON Schema of the response, for documentation; the model receives the body as text.
        pub(crate) output_schema: Option<Spanned<serde_json::Value>>,
    }
}

described! {
    /// A `post_edit:` entry of a `type: filesystem` toolset.
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[schema(name = "post_edit")]
    pub(crate) struct RawPostEdit {
        /// A glob over the edited file's name (with a `/`: over its path relative to the working
        /// directory).
        #[schema(required)]
        pub(crate) path: Option<Spanned<String>>,
        /// Run with `$SHELL -c` in the working directory; the file's path is in `$path` and
        /// `$file`. A failure is reported in the tool's result.
        #[schema(required)]
        pub(crate) cmd: Option<String>,
    }
}

described! {
    /// One named command of a `type: script` toolset.
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[schema(name = "script")]
    pub(crate) struct RawScript {
        /// The command, run with `$SHELL -c`; its arguments are environment variables (`${name}`).
        #[schema(required)]
        pub(crate) cmd: Option<String>,
        /// What the tool does, for the model.
        pub(crate) description: Option<String>,
        /// The arguments: JSON Schema properties by name (type defaults to string).
        pub(crate) args: Option<OrderedMap<serde_json::Value>>,
        /// Required arguments (default: all of them).
        pub(crate) required: Option<Vec<String>>,
        /// Environment variables for the command.
        pub(crate) env: Option<BTreeMap<String, Scalar>>,
        /// Where the command runs, relative to the working directory.
        pub(crate) working_dir: Option<String>,
    }
}

described! {
    /// A `mcps:` entry: an MCP server defined once (docker-agent's `MCPToolset`).
    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[schema(name = "mcp_server")]
    pub(crate) struct RawMcpDef {
        /// The program of a stdio server.
        pub(crate) command: Option<Spanned<String>>,
        /// The stdio server's arguments.
        pub(crate) args: Option<Spanned<Vec<Scalar>>>,
        /// `docker:NAME`: a Docker catalog server run by the MCP Gateway.
        #[serde(rename = "ref")]
        pub(crate) reference: Option<Spanned<String>>,
        /// A server over HTTP.
        pub(crate) remote: Option<Spanned<RawRemote>>,
        /// `ref: docker:…`: the server's configuration for the gateway.
        pub(crate) config: Option<Spanned<serde_json::Value>>,
        /// docker-agent's auto-install package, named in the error when the command is missing.
        pub(crate) version: Option<Spanned<Scalar>>,
        /// Variables for the server; a toolset's own win key by key.
        pub(crate) env: Option<BTreeMap<String, Scalar>>,
        /// Expose only these tools.
        pub(crate) tools: Option<Vec<Spanned<String>>>,
        /// The server's system-prompt text.
        pub(crate) instruction: Option<String>,
        /// Tools are exposed as `NAME_tool`.
        pub(crate) name: Option<Spanned<String>>,
        /// `true` or a list of tool names to defer.
        pub(crate) defer: Option<Spanned<RawDefer>>,
        /// Where a stdio server or the gateway runs.
        pub(crate) working_dir: Option<Spanned<String>>,
        /// Start timeout, call timeout and restarts.
        pub(crate) lifecycle: Option<Spanned<RawLifecycle>>,
    }
}

described! {
    /// `remote:` of an MCP toolset.
    #[derive(Debug, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[schema(name = "mcp_remote")]
    pub(crate) struct RawRemote {
        /// `http://` or `https://`; `${env.NAME}` expands.
        #[schema(required)]
        pub(crate) url: Option<Spanned<String>>,
        /// Streamable HTTP (default) or the legacy HTTP+SSE transport.
        #[schema(ty = T::Enum(&["streamable", "streamable-http", "sse"]))]
        pub(crate) transport_type: Option<Spanned<String>>,
        /// Sent with every request; `${env.NAME}` expands.
        pub(crate) headers: Option<OrderedMap<Spanned<Scalar>>>,
        /// Not supported yet: pass a token in `headers`.
        pub(crate) oauth: Option<Spanned<serde_json::Value>>,
    }
}

described! {
    /// `lifecycle:` of an MCP toolset.
    #[derive(Debug, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[schema(name = "mcp_lifecycle")]
    pub(crate) struct RawLifecycle {
        /// `resilient` (default: restart with backoff), `strict` (required, never restarted),
        /// `best-effort` (one attempt).
        #[schema(ty = T::Enum(&LifecycleProfile::NAMES))]
        pub(crate) profile: Option<Spanned<String>>,
        /// The run does not start without this server (default: true under `strict`).
        pub(crate) required: Option<bool>,
        /// Go duration capping connect + initialize (default 60s; `0` = none).
        pub(crate) startup_timeout: Option<Spanned<Scalar>>,
        /// Go duration capping one tool call; the call is cancelled on the server (default: none).
        pub(crate) call_timeout: Option<Spanned<Scalar>>,
        /// When a dead server is restarted (default `on_failure`).
        #[schema(ty = T::Enum(&Restart::NAMES))]
        pub(crate) restart: Option<Spanned<String>>,
        /// Consecutive failed restarts before giving up (0 = default 5, -1 = unlimited).
        pub(crate) max_restarts: Option<Spanned<i64>>,
        /// Waits between restart attempts.
        pub(crate) backoff: Option<RawBackoff>,
    }
}

described! {
    #[derive(Debug, Clone, Deserialize)]
    #[serde(deny_unknown_fields)]
    #[schema(name = "mcp_backoff")]
    pub(crate) struct RawBackoff {
        /// First wait (default 1s).
        pub(crate) initial: Option<Spanned<Scalar>>,
        /// Longest wait (default 32s).
        pub(crate) max: Option<Spanned<Scalar>>,
        /// Growth per attempt (default 2).
        pub(crate) multiplier: Option<Spanned<f64>>,
        /// Random fraction (0..1) of each wait (default 0).
        pub(crate) jitter: Option<Spanned<f64>>,
    }
}

/// `defer: true` (every tool) or a list of tool names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum RawDefer {
    All(bool),
    Tools(Vec<String>),
}

impl<'de> Deserialize<'de> for RawDefer {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct DeferVisitor;
        impl<'de> Visitor<'de> for DeferVisitor {
            type Value = RawDefer;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("true, false or a list of tool names")
            }
            fn visit_bool<E: de::Error>(self, v: bool) -> Result<RawDefer, E> {
                Ok(RawDefer::All(v))
            }
            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<RawDefer, A::Error> {
                let mut tools = Vec::new();
                while let Some(name) = seq.next_element::<String>()? {
                    tools.push(name);
                }
                Ok(RawDefer::Tools(tools))
            }
        }
        d.deserialize_any(DeferVisitor)
    }
}

/// What the deserializer accepts: `true`, `false` or a list of names.
impl Shape for RawDefer {
    const SHAPE: FieldType = FieldType::OneOf(&[FieldType::Boolean, FieldType::StringList]);
}
