//! The runtime end-to-end harness: a fake LLM server speaking OpenAI Chat Completions, a real
//! agent file, real hook processes (the hook-fixture logs what each received), a recording sink
//! and a scripted user.

#![allow(
    dead_code,
    unreachable_pub,
    reason = "a test-only module shared by several test files"
)]

use std::collections::VecDeque;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use futures::future::BoxFuture;
use serde_json::Value;
use tempfile::TempDir;
use tether_core::{
    Confirmation, ConfirmationRequest, EventSink, Interaction, ProviderModelRunner, RunOutcome,
    Runtime, RuntimeOptions, Session, SetupError, build_runtime,
};
use tether_exec::Shell;
use tether_protocol::{HookEvent, RuntimeEvent};
use tether_providers::MapEnv;
use tether_test_support::fake_llm::{CapturedRequest, Dialect, FakeLlm, Turn};
use tokio_util::sync::CancellationToken;

#[derive(Debug, Default)]
pub struct Recorder(
    pub Mutex<Vec<RuntimeEvent>>,
    pub Mutex<Vec<(String, String, String)>>,
);

impl EventSink for Recorder {
    fn emit(&self, _: &str, event: RuntimeEvent) {
        self.0.lock().unwrap().push(event);
    }

    /// Also records which conversation a sub-session's event was for:
    /// `(conversation, session, kind)`.
    fn emit_for(&self, conversation: &str, session_id: &str, event: RuntimeEvent) {
        self.1.lock().unwrap().push((
            conversation.to_owned(),
            session_id.to_owned(),
            event.kind().to_owned(),
        ));
        self.emit(session_id, event);
    }
}

/// Answers confirmations from a queue (then "no"), records what it was asked.
#[derive(Debug, Default)]
pub struct ScriptedUser {
    pub answers: Mutex<VecDeque<Confirmation>>,
    pub asked: Mutex<Vec<ConfirmationRequest>>,
    pub resume: Mutex<VecDeque<bool>>,
}

impl Interaction for ScriptedUser {
    fn confirm_tool<'a>(&'a self, request: &'a ConfirmationRequest) -> BoxFuture<'a, Confirmation> {
        self.asked.lock().unwrap().push(request.clone());
        let a = self
            .answers
            .lock()
            .unwrap()
            .pop_front()
            .unwrap_or(Confirmation::No { reason: None });
        Box::pin(async move { a })
    }

    fn approve_more_iterations(&self, _: u32) -> BoxFuture<'_, bool> {
        let a = self.resume.lock().unwrap().pop_front().unwrap_or(false);
        Box::pin(async move { a })
    }
}

pub fn fixture() -> String {
    tether_test_support::bins::hook_fixture()
        .display()
        .to_string()
}

/// The `models:` block of an agent file: one model, `fake`, served by `fake`, with
/// `provider_opts` (the inside of a YAML flow mapping).
pub fn fake_model(fake: &FakeLlm, provider_opts: &str) -> String {
    format!(
        "models:\n  fake:\n    provider: openai\n    model: gpt-4o\n    base_url: {}/v1\n    provider_opts: {{{provider_opts}}}\n",
        fake.base_url()
    )
}

/// Writes `yaml` to `dir/agent.yaml` and builds the runtime of its `root` agent: the shell found
/// on `PATH`, the test OpenAI key, and `type: model` hooks answered by `fake` (a model name of
/// the file, or `openai/…` through `OPENAI_BASE_URL`).
pub fn try_build(
    fake: &FakeLlm,
    dir: &Path,
    yaml: &str,
    mut opts: RuntimeOptions,
    sink: Arc<dyn EventSink>,
    user: Arc<dyn Interaction>,
) -> Result<Runtime, SetupError> {
    std::fs::write(dir.join("agent.yaml"), yaml).unwrap();
    let file = tether_config::load_file(&dir.join("agent.yaml")).unwrap_or_else(|e| panic!("{e}"));
    opts.shell = Shell::detect(None, std::env::var("PATH").ok().as_deref());
    let env = MapEnv::new([
        ("OPENAI_API_KEY", "test-key".to_owned()),
        ("OPENAI_BASE_URL", fake.base_url_for(Dialect::OpenAiChat)),
    ]);
    let mut registry = tether_hooks::default_registry(opts.shell.clone());
    registry.set_model_runner(Arc::new(ProviderModelRunner::new(
        Some(&file),
        Arc::new(env.clone()),
    )));
    build_runtime(&file, "root", Arc::new(registry), &env, opts, sink, user)
}

/// [`try_build`], for an agent file that must build.
pub fn build(
    fake: &FakeLlm,
    dir: &Path,
    yaml: &str,
    opts: RuntimeOptions,
    sink: Arc<dyn EventSink>,
    user: Arc<dyn Interaction>,
) -> Runtime {
    try_build(fake, dir, yaml, opts, sink, user).unwrap_or_else(|e| panic!("{e}"))
}

pub struct Harness {
    pub fake: FakeLlm,
    pub dir: TempDir,
    pub events: Arc<Recorder>,
    pub user: Arc<ScriptedUser>,
    pub runtime: Runtime,
    pub session: Session,
}

/// Options a test may change before building.
pub struct Setup {
    /// The agent's body (indented 4 spaces under `agents: root:`), e.g. toolsets and hooks.
    pub agent: String,
    /// Extra top-level YAML (permissions, more agents).
    pub top: String,
    pub yolo: bool,
    pub non_interactive: bool,
    /// More agents, as YAML under `agents:` (they use the `fake` model).
    pub extra_agents: String,
    /// Extra `provider_opts` of the `fake` model, e.g. `context_size: 1000`.
    pub provider_opts: String,
    /// How long `async` hooks may go on after `session_end`.
    pub async_hook_grace: std::time::Duration,
}

impl Setup {
    pub fn new(agent: &str) -> Self {
        Self {
            agent: agent.to_owned(),
            top: String::new(),
            yolo: false,
            non_interactive: false,
            extra_agents: String::new(),
            provider_opts: String::new(),
            async_hook_grace: tether_core::ASYNC_HOOK_GRACE,
        }
    }
}

impl Harness {
    pub async fn start(setup: Setup) -> Self {
        let fake = FakeLlm::start().await.unwrap();
        let dir = TempDir::new().unwrap();
        let body: String = setup.agent.lines().map(|l| format!("    {l}\n")).collect();
        let yaml = format!(
            "{}{}\nagents:\n  root:\n    model: fake\n    instruction: You are a test agent.\n{body}{}",
            fake_model(&fake, &format!("max_retries: 0, {}", setup.provider_opts)),
            setup.top,
            setup.extra_agents
        );
        let events = Arc::new(Recorder::default());
        let user = Arc::new(ScriptedUser::default());
        let mut opts = RuntimeOptions::new(dir.path());
        opts.yolo = setup.yolo;
        opts.non_interactive = setup.non_interactive;
        opts.async_hook_grace = setup.async_hook_grace;
        let runtime = build(&fake, dir.path(), &yaml, opts, events.clone(), user.clone());
        Self {
            fake,
            dir,
            events,
            user,
            runtime,
            session: Session::new("sess-1", "root"),
        }
    }

    pub fn path(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }

    pub fn push(&self, turn: Turn) {
        self.fake.push(turn);
    }

    /// Starts the session, runs one prompt, ends the session.
    pub async fn run_once(&mut self, prompt: &str) -> RunOutcome {
        let cancel = CancellationToken::new();
        self.runtime
            .start_session(&mut self.session, "startup", &cancel)
            .await;
        let out = self
            .runtime
            .run(&mut self.session, Some(prompt.to_owned()), &cancel)
            .await;
        self.runtime.end_session(&self.session, "other").await;
        out
    }

    pub fn requests(&self) -> Vec<CapturedRequest> {
        self.fake.requests()
    }

    /// The `messages` of request `i` as `(role, content)`.
    pub fn sent(&self, i: usize) -> Vec<(String, String)> {
        self.requests()[i].body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| {
                (
                    m["role"].as_str().unwrap_or_default().to_owned(),
                    m["content"].as_str().unwrap_or_default().to_owned(),
                )
            })
            .collect()
    }

    /// The tool results the model received in request `i`, as `(tool_call_id, content)`.
    pub fn tool_results(&self, i: usize) -> Vec<(String, String)> {
        self.requests()[i].body["messages"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|m| m["role"] == "tool")
            .map(|m| {
                (
                    m["tool_call_id"].as_str().unwrap_or_default().to_owned(),
                    m["content"].as_str().unwrap_or_default().to_owned(),
                )
            })
            .collect()
    }

    pub fn events(&self) -> Vec<RuntimeEvent> {
        self.events.0.lock().unwrap().clone()
    }

    /// The `tool_response` events, as `(response, is_error)`.
    pub fn tool_responses(&self) -> Vec<(String, bool)> {
        self.events()
            .into_iter()
            .filter_map(|e| match e {
                RuntimeEvent::ToolResponse {
                    response, is_error, ..
                } => Some((response, is_error)),
                _ => None,
            })
            .collect()
    }

    /// The warnings shown to the user.
    pub fn warnings(&self) -> Vec<String> {
        self.events()
            .into_iter()
            .filter_map(|e| match e {
                RuntimeEvent::Warning { message } => Some(message),
                _ => None,
            })
            .collect()
    }
}

/// A `shell` call of `cmd` with the call id `id`.
pub fn shell_call(cmd: &str, id: &str) -> Turn {
    Turn::tool_call("shell", serde_json::json!({ "cmd": cmd })).with_id(id)
}

/// A hook line that logs its stdin to `log` and prints `stdout`.
pub fn logging_hook(log: &Path, stdout: &str) -> String {
    let out = if stdout.is_empty() {
        String::new()
    } else {
        format!(" --stdout {}", shell_quote(stdout))
    };
    format!("{} --log {}{out}", fixture(), log.display())
}

pub fn shell_quote(s: &str) -> String {
    format!("'{}'", s.replace('\'', r"'\''"))
}

/// A YAML double-quoted scalar.
pub fn yq(s: &str) -> String {
    serde_json::to_string(s).unwrap()
}

/// What each logged hook run received on stdin.
pub fn inputs(log: &Path) -> Vec<Value> {
    std::fs::read_to_string(log)
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str::<Value>(l).unwrap()["stdin"].clone())
        .collect()
}

/// A flat hook entry for `event` that logs to `log` and prints `stdout`.
pub fn hook_yaml(event: HookEvent, log: &Path, stdout: &str) -> String {
    let cmd = yq(&logging_hook(log, stdout));
    if event.uses_matcher() {
        format!(
            "  {event}:\n    - matcher: '*'\n      hooks:\n        - {{type: command, command: {cmd}}}\n"
        )
    } else {
        format!("  {event}:\n    - {{type: command, command: {cmd}}}\n")
    }
}
