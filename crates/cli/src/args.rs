//! The command line (docs/cli.md is the contract). Declarative: exempt from the file-size rule.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};
use tether_config::CliHooks;

/// Tether: an agent runtime with a deterministic lifecycle-hooks engine.
///
/// Diagnostic logs go to stderr when `TETHER_LOG` holds a filter in `RUST_LOG` syntax: `debug`
/// shows, among others, every hook error (an `http_post` or `unload` that was not delivered
/// included); `tether_hooks=debug` only the hooks engine's.
#[derive(Debug, Parser)]
#[command(name = "tether", version, propagate_version = true)]
pub(crate) struct Cli {
    #[command(subcommand)]
    pub(crate) command: Command,
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Run an agent file: one-shot with `--exec` (or a prompt on a non-terminal), else an
    /// interactive session.
    Run(RunArgs),
    /// List, show or delete stored sessions.
    #[command(subcommand)]
    Sessions(SessionsCommand),
    /// Work with hooks without running a model.
    #[command(subcommand)]
    Hooks(HooksCommand),
    /// Work with an agent's MCP servers without running a model.
    #[command(subcommand)]
    Mcp(McpCommand),
    /// Serve agents to other programs: a web UI (`api`), another agent (`mcp`, `a2a`), the
    /// OpenAI chat API (`chat`) or an editor (`acp`). Every hook and rule applies.
    #[command(subcommand)]
    Serve(ServeCommand),
    /// Print the JSON Schema of agent files (for editors).
    Schema,
    /// Print a shell completion script.
    Completions {
        /// The shell.
        shell: clap_complete::Shell,
    },
    /// Print a generated reference document (`docs/` holds them).
    #[command(hide = true)]
    Docs {
        /// `hooks`, `cli`, `schema` or `agent-files`.
        which: String,
    },
}

#[derive(Debug, Subcommand)]
pub(crate) enum HooksCommand {
    /// Validate an agent file and list the effective hooks of an agent, per event.
    Check(CheckArgs),
    /// Dispatch one event through an agent's hooks and print the aggregated result as JSON
    /// (one event, not the approval decision: see `decide`).
    Fire(FireArgs),
    /// Decide one tool call as the runtime would (the whole approval ladder, hooks included,
    /// never the tool, never a prompt) and print the decision as JSON.
    Decide(DecideArgs),
    /// Re-decide every tool call of a stored session under an agent file (its own by
    /// default) and list the calls whose decision changes.
    Replay(ReplayArgs),
    /// Show the command hooks an agent file (and the agent files it fetches) would run, and
    /// trust them by content hash; `--list` the trusted files, `--revoke` one.
    Trust(TrustArgs),
    /// Print the Tether `hooks:` YAML (and `permissions`) equivalent to a Claude Code settings file.
    ImportClaude(ImportClaudeArgs),
    /// List the hook events, one line each.
    Events,
}

#[derive(Debug, Subcommand)]
pub(crate) enum McpCommand {
    /// Start an agent's MCP servers and list each with its transport, status and tools.
    List(McpListArgs),
    /// Call one tool through the approval chain and every hook, without a model; print the
    /// result and the verdicts as JSON.
    Call(McpCallArgs),
}

#[derive(Debug, Args)]
pub(crate) struct McpListArgs {
    /// The agent file.
    pub(crate) agent_file: PathBuf,
    /// The agent whose servers to list (default: `root`, else the first).
    #[arg(long, value_name = "NAME")]
    pub(crate) agent: Option<String>,
    /// The directory servers run in (default: the current one).
    #[arg(long, value_name = "DIR")]
    pub(crate) working_dir: Option<PathBuf>,
    /// Print JSON instead of text.
    #[arg(long)]
    pub(crate) json: bool,
}

#[derive(Debug, Args)]
pub(crate) struct McpCallArgs {
    /// The agent file.
    pub(crate) agent_file: PathBuf,
    /// The tool, as the model would call it (e.g. `read_note` or `notes_read_note`).
    pub(crate) tool: String,
    /// The arguments, a JSON object.
    #[arg(long, value_name = "JSON", default_value = "{}")]
    pub(crate) args: String,
    /// The agent whose tools and hooks to use (default: `root`, else the first).
    #[arg(long, value_name = "NAME")]
    pub(crate) agent: Option<String>,
    /// The directory servers and hooks run in (default: the current one).
    #[arg(long, value_name = "DIR")]
    pub(crate) working_dir: Option<PathBuf>,
    /// Approve the call without asking (the preempt lane and hooks still run).
    #[arg(long)]
    pub(crate) yolo: bool,
    /// Append one JSON line per hook run to this file.
    #[arg(long, value_name = "FILE")]
    pub(crate) hook_log: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct RunArgs {
    /// The agent file.
    pub(crate) agent_file: PathBuf,
    /// The prompt (words are joined with spaces).
    pub(crate) prompt: Vec<String>,
    /// Run the prompt once and exit.
    #[arg(long)]
    pub(crate) exec: bool,
    /// The agent to start with (default: `root`, else the first).
    #[arg(long, value_name = "NAME")]
    pub(crate) agent: Option<String>,
    /// Override an agent's model: `PROVIDER/MODEL` for every agent, `AGENT=PROVIDER/MODEL` for one
    /// (repeatable).
    #[arg(long, value_name = "[AGENT=]PROVIDER/MODEL")]
    pub(crate) model: Vec<String>,
    /// Approve every tool call (hooks on the preempt lane still run).
    #[arg(long)]
    pub(crate) yolo: bool,
    /// Where tools and hooks run (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub(crate) working_dir: Option<PathBuf>,
    /// Print one JSON event per line instead of text.
    #[arg(long)]
    pub(crate) json: bool,
    /// Do not print tool calls and their results.
    #[arg(long)]
    pub(crate) hide_tool_calls: bool,
    /// Append one JSON line per hook run to this file.
    #[arg(long, value_name = "FILE")]
    pub(crate) hook_log: Option<PathBuf>,
    /// Continue this stored session.
    #[arg(long, value_name = "ID", conflicts_with = "resume")]
    pub(crate) session: Option<String>,
    /// Continue the most recently updated top-level session.
    #[arg(long)]
    pub(crate) resume: bool,
    /// The session database: a SQLite path (default: `$TETHER_HOME/sessions.db`) or a
    /// `postgres://` URL.
    #[arg(long, value_name = "PATH|URL")]
    pub(crate) session_db: Option<PathBuf>,
    /// Run the agent file's untrusted command hooks for this run only (nothing is recorded).
    #[arg(long)]
    pub(crate) trust_hooks: bool,
    /// Run in a new git worktree of the working directory (named NAME, or generated).
    #[arg(long, value_name = "NAME", num_args = 0..=1, default_missing_value = "", require_equals = true)]
    pub(crate) worktree: Option<String>,
    /// How long a `code_mode_tools` script may run, not counting the time its tool calls take.
    #[arg(long, value_name = "SECONDS", default_value_t = 60.0)]
    pub(crate) code_mode_timeout: f64,
    #[command(flatten)]
    pub(crate) hooks: HookFlags,
}

#[derive(Debug, Subcommand)]
pub(crate) enum SessionsCommand {
    /// One line per top-level session, most recent first.
    List(SessionsListArgs),
    /// Print a session's transcript.
    Show(SessionIdArgs),
    /// Delete a session and its sub-sessions.
    Rm(SessionIdArgs),
}

#[derive(Debug, Args)]
pub(crate) struct SessionsListArgs {
    /// One JSON object per line.
    #[arg(long)]
    pub(crate) json: bool,
    /// The session database: a SQLite path (default: `$TETHER_HOME/sessions.db`) or a
    /// `postgres://` URL.
    #[arg(long, value_name = "PATH|URL")]
    pub(crate) session_db: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct SessionIdArgs {
    pub(crate) id: String,
    /// The session database: a SQLite path (default: `$TETHER_HOME/sessions.db`) or a
    /// `postgres://` URL.
    #[arg(long, value_name = "PATH|URL")]
    pub(crate) session_db: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct CheckArgs {
    /// The agent file.
    pub(crate) agent_file: PathBuf,
    /// The agent to inspect (default: `root`, else the first).
    #[arg(long, value_name = "NAME")]
    pub(crate) agent: Option<String>,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub(crate) json: bool,
    #[command(flatten)]
    pub(crate) hooks: HookFlags,
}

#[derive(Debug, Args)]
pub(crate) struct ImportClaudeArgs {
    /// The Claude Code settings file (e.g. `.claude/settings.json`).
    pub(crate) settings: PathBuf,
}

#[derive(Debug, Args)]
pub(crate) struct ReplayArgs {
    /// The stored session (`tether sessions list`).
    #[arg(long, value_name = "ID")]
    pub(crate) session: String,
    /// The agent file to decide under (default: the one the session ran).
    #[arg(long, value_name = "AGENT.yaml")]
    pub(crate) config: Option<PathBuf>,
    /// Decide as under `--yolo`.
    #[arg(long)]
    pub(crate) yolo: bool,
    /// Print JSON (every re-decided call, changed or not) instead of a table of the changes.
    #[arg(long)]
    pub(crate) json: bool,
    /// The session database: a SQLite path (default: `$TETHER_HOME/sessions.db`) or a
    /// `postgres://` URL.
    #[arg(long, value_name = "PATH|URL")]
    pub(crate) session_db: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct DecideArgs {
    /// The agent file.
    pub(crate) agent_file: PathBuf,
    /// The tool, as the model would call it.
    #[arg(long, value_name = "NAME")]
    pub(crate) tool: String,
    /// The call: a hook Input JSON (its `tool_input` is used) or the arguments object itself
    /// (`-` for standard input; default `{}`).
    #[arg(long, value_name = "FILE|-")]
    pub(crate) input: Option<String>,
    /// Decide as under `--yolo`.
    #[arg(long)]
    pub(crate) yolo: bool,
    /// The agent whose tools, hooks and permissions to use (default: `root`, else the first).
    #[arg(long, value_name = "NAME")]
    pub(crate) agent: Option<String>,
    /// The directory hooks run in (default: the current one).
    #[arg(long, value_name = "DIR")]
    pub(crate) working_dir: Option<PathBuf>,
    /// Append one JSON line per hook run to this file.
    #[arg(long, value_name = "FILE")]
    pub(crate) hook_log: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct FireArgs {
    /// The event, by wire name (`pre_tool_use`, `session_start`, …).
    pub(crate) event: String,
    /// The agent file whose hooks to use; without it only the hook flags are used.
    #[arg(long, value_name = "AGENT.yaml")]
    pub(crate) config: Option<PathBuf>,
    /// The agent whose hooks to use (default: `root`, else the first).
    #[arg(long, value_name = "NAME")]
    pub(crate) agent: Option<String>,
    /// The hook Input JSON (`-` for standard input).
    #[arg(long, value_name = "FILE|-")]
    pub(crate) input: Option<String>,
    /// Sets `tool_name` in the Input.
    #[arg(long, value_name = "NAME")]
    pub(crate) tool: Option<String>,
    /// Append one JSON line per hook run to this file.
    #[arg(long, value_name = "FILE")]
    pub(crate) hook_log: Option<PathBuf>,
    #[command(flatten)]
    pub(crate) hooks: HookFlags,
}

#[derive(Debug, Subcommand)]
pub(crate) enum ServeCommand {
    /// docker-agent's HTTP API (`/api`, events over SSE) for the agent files of a file or
    /// directory.
    #[command(
        after_long_help = "Example:\n\n    tether serve api ./agents --listen 127.0.0.1:8080\n    curl -s localhost:8080/api/agents\n    curl -s -XPOST localhost:8080/api/sessions -d '{}'            # → {\"id\": \"SESSION\", …}\n    curl -N -XPOST localhost:8080/api/sessions/SESSION/agent/desk \\\n         -d '[{\"content\": \"List files in current dir\"}]'         # events over SSE\n    curl -XPOST localhost:8080/api/sessions/SESSION/resume -d '{\"confirmation\": \"approve\"}'"
    )]
    Api(ServeApiArgs),
    /// Each agent as one MCP tool (`{message}` → `{response}`), over stdio or streamable HTTP.
    #[command(
        after_long_help = "Example (an MCP client's server entry; stdio):\n\n    {\"command\": \"tether\", \"args\": [\"serve\", \"mcp\", \"/path/to/agent.yaml\"]}\n\nOver HTTP, with a token:\n\n    tether serve mcp agent.yaml --http --listen 127.0.0.1:8081 --auth-token \"$TOKEN\""
    )]
    Mcp(ServeMcpArgs),
    /// An agent over A2A (JSON-RPC, protocol 1.0 and 0.3), with its agent card.
    #[command(
        after_long_help = "Example:\n\n    tether serve a2a agent.yaml --listen 127.0.0.1:8082\n    curl -s localhost:8082/.well-known/agent-card.json"
    )]
    A2a(ServeA2aArgs),
    /// The agents as models of an OpenAI-compatible `/v1/chat/completions`.
    #[command(
        after_long_help = "Example:\n\n    tether serve chat agent.yaml --api-key-env TETHER_CHAT_KEY\n    curl -s localhost:8083/v1/chat/completions -H \"Authorization: Bearer $TETHER_CHAT_KEY\" \\\n         -d '{\"model\": \"root\", \"messages\": [{\"role\": \"user\", \"content\": \"hello\"}]}'"
    )]
    Chat(ServeChatArgs),
    /// The Agent Client Protocol over stdio, for editors (Zed, JetBrains, Neovim).
    #[command(
        after_long_help = "Example (Zed's settings.json):\n\n    \"agent_servers\": {\"Tether\": {\"command\": \"tether\", \"args\": [\"serve\", \"acp\", \"/path/to/agent.yaml\"]}}"
    )]
    Acp(ServeAcpArgs),
}

/// What every `serve` mode takes.
#[derive(Debug, Clone, Args)]
pub(crate) struct ServeCommon {
    /// Override an agent's model: `PROVIDER/MODEL` for every agent, `AGENT=PROVIDER/MODEL` for one
    /// (repeatable).
    #[arg(long, value_name = "[AGENT=]PROVIDER/MODEL")]
    pub(crate) model: Vec<String>,
    /// Where tools and hooks run (default: the current directory).
    #[arg(long, value_name = "DIR")]
    pub(crate) working_dir: Option<PathBuf>,
    /// The session database: a SQLite path (default: `$TETHER_HOME/sessions.db`) or a
    /// `postgres://` URL (sessions shared by every server on it).
    #[arg(long, short = 's', value_name = "PATH|URL")]
    pub(crate) session_db: Option<String>,
    /// The safety mode of agents that set none (`strict`, `balanced`, `restricted`,
    /// `autonomous`). Default: `balanced` for `api` and `acp` (a person answers), `autonomous`
    /// for `mcp` over stdio, `restricted` for `mcp --http`, `a2a` and `chat`.
    #[arg(long, value_name = "MODE")]
    pub(crate) safety: Option<String>,
    /// Append one JSON line per hook run to this file.
    #[arg(long, value_name = "FILE")]
    pub(crate) hook_log: Option<PathBuf>,
    /// Run the agent files' untrusted command hooks while this server runs (nothing is
    /// recorded).
    #[arg(long)]
    pub(crate) trust_hooks: bool,
    #[command(flatten)]
    pub(crate) hooks: HookFlags,
}

#[derive(Debug, Args)]
pub(crate) struct ServeApiArgs {
    /// An agent file, or a directory of them.
    pub(crate) agents: PathBuf,
    /// `HOST:PORT` or `unix://PATH`.
    #[arg(
        long,
        short = 'l',
        value_name = "ADDR",
        default_value = "127.0.0.1:8080"
    )]
    pub(crate) listen: String,
    #[command(flatten)]
    pub(crate) common: ServeCommon,
}

#[derive(Debug, Args)]
pub(crate) struct ServeMcpArgs {
    /// The agent file.
    pub(crate) agent_file: PathBuf,
    /// Serve only this agent (default: every agent of the file).
    #[arg(long, short = 'a', value_name = "NAME")]
    pub(crate) agent: Option<String>,
    /// Streamable HTTP instead of stdio.
    #[arg(long)]
    pub(crate) http: bool,
    /// `HOST:PORT` or `unix://PATH` (with `--http`).
    #[arg(
        long,
        short = 'l',
        value_name = "ADDR",
        default_value = "127.0.0.1:8081"
    )]
    pub(crate) listen: String,
    /// Require `Authorization: Bearer TOKEN` on every HTTP request.
    #[arg(
        long,
        value_name = "TOKEN",
        env = "TETHER_SERVE_TOKEN",
        hide_env_values = true
    )]
    pub(crate) auth_token: Option<String>,
    #[command(flatten)]
    pub(crate) common: ServeCommon,
}

#[derive(Debug, Args)]
pub(crate) struct ServeA2aArgs {
    /// The agent file.
    pub(crate) agent_file: PathBuf,
    /// The agent to serve.
    #[arg(long, short = 'a', value_name = "NAME", default_value = "root")]
    pub(crate) agent: String,
    /// `HOST:PORT` or `unix://PATH`.
    #[arg(
        long,
        short = 'l',
        value_name = "ADDR",
        default_value = "127.0.0.1:8082"
    )]
    pub(crate) listen: String,
    /// Require `Authorization: Bearer TOKEN` on every request but the agent card.
    #[arg(
        long,
        value_name = "TOKEN",
        env = "TETHER_SERVE_TOKEN",
        hide_env_values = true
    )]
    pub(crate) auth_token: Option<String>,
    /// Serve a non-loopback address without a token.
    #[arg(long, conflicts_with = "auth_token")]
    pub(crate) insecure_no_auth: bool,
    #[command(flatten)]
    pub(crate) common: ServeCommon,
}

#[derive(Debug, Args)]
pub(crate) struct ServeChatArgs {
    /// The agent file.
    pub(crate) agent_file: PathBuf,
    /// Serve only this agent (default: every agent of the file, each a model).
    #[arg(long, short = 'a', value_name = "NAME")]
    pub(crate) agent: Option<String>,
    /// `HOST:PORT` or `unix://PATH`.
    #[arg(
        long,
        short = 'l',
        value_name = "ADDR",
        default_value = "127.0.0.1:8083"
    )]
    pub(crate) listen: String,
    /// Require `Authorization: Bearer KEY`.
    #[arg(long, value_name = "KEY", conflicts_with = "api_key_env")]
    pub(crate) api_key: Option<String>,
    /// Read the required key from this environment variable.
    #[arg(long, value_name = "VAR")]
    pub(crate) api_key_env: Option<String>,
    /// Keep up to N conversations server-side, named by the `X-Conversation-Id` header
    /// (default 0: stateless, the request's messages are the conversation).
    #[arg(long, value_name = "N", default_value_t = 0)]
    pub(crate) conversations_max: usize,
    /// Forget a conversation idle this long (e.g. `30m`, `2h`).
    #[arg(long, value_name = "DURATION", default_value = "30m")]
    pub(crate) conversation_ttl: String,
    #[command(flatten)]
    pub(crate) common: ServeCommon,
}

#[derive(Debug, Args)]
pub(crate) struct ServeAcpArgs {
    /// The agent file.
    pub(crate) agent_file: PathBuf,
    /// The agent sessions start with (default: `root`, else the first).
    #[arg(long, short = 'a', value_name = "NAME")]
    pub(crate) agent: Option<String>,
    #[command(flatten)]
    pub(crate) common: ServeCommon,
}

/// The six repeatable `--hook-*` flags (appended to the agent file's hooks).
#[derive(Debug, Clone, Default, Args)]
pub(crate) struct HookFlags {
    /// Run a command before every tool call (repeatable).
    #[arg(long = "hook-pre-tool-use", value_name = "CMD")]
    pub(crate) pre_tool_use: Vec<String>,
    /// Run a command after every tool call (repeatable).
    #[arg(long = "hook-post-tool-use", value_name = "CMD")]
    pub(crate) post_tool_use: Vec<String>,
    /// Run a command when a session starts (repeatable).
    #[arg(long = "hook-session-start", value_name = "CMD")]
    pub(crate) session_start: Vec<String>,
    /// Run a command when a session ends (repeatable).
    #[arg(long = "hook-session-end", value_name = "CMD")]
    pub(crate) session_end: Vec<String>,
    /// Run a command when the agent waits for input (repeatable).
    #[arg(long = "hook-on-user-input", value_name = "CMD")]
    pub(crate) on_user_input: Vec<String>,
    /// Run a command when the model finishes responding (repeatable).
    #[arg(long = "hook-stop", value_name = "CMD")]
    pub(crate) stop: Vec<String>,
}

impl HookFlags {
    pub(crate) fn to_cli_hooks(&self) -> CliHooks {
        CliHooks {
            pre_tool_use: self.pre_tool_use.clone(),
            post_tool_use: self.post_tool_use.clone(),
            session_start: self.session_start.clone(),
            session_end: self.session_end.clone(),
            on_user_input: self.on_user_input.clone(),
            stop: self.stop.clone(),
        }
    }
}

#[derive(Debug, Args)]
pub(crate) struct TrustArgs {
    /// The agent file whose command hooks to trust.
    #[arg(required_unless_present_any = ["list", "revoke"], conflicts_with_all = ["list", "revoke"])]
    pub(crate) agent_file: Option<PathBuf>,
    /// List the trusted files and their hooks.
    #[arg(long, conflicts_with = "revoke")]
    pub(crate) list: bool,
    /// Forget the trust recorded for an agent file (or the URL or `oci:REFERENCE` `--list`
    /// shows).
    #[arg(long, value_name = "AGENT.yaml|KEY")]
    pub(crate) revoke: Option<String>,
    /// Where the hooks will run, to find the scripts they start (default: the current
    /// directory).
    #[arg(long, value_name = "DIR")]
    pub(crate) working_dir: Option<PathBuf>,
    /// One JSON object instead of text.
    #[arg(long)]
    pub(crate) json: bool,
}
