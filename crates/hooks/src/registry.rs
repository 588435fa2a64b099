//! The registry of hook handlers: builtins by name, the injected model runner, the shell.
//!
//! The engine knows nothing of providers or of the agent loop: whoever builds the registry
//! plugs in builtins that need runtime state (snapshots, session temp dirs) and the model
//! runner that model hooks use.

use std::collections::HashMap;
use std::ffi::OsString;
use std::fmt;
use std::path::Path;
use std::sync::Arc;

use futures::future::BoxFuture;
use tether_exec::Shell;
use tether_protocol::{HookEvent, HookInput, HookOutput};
use tokio_util::sync::CancellationToken;

/// An in-process hook.
pub trait Builtin: Send + Sync + fmt::Debug {
    /// The name hooks use in `command:`.
    fn name(&self) -> &'static str;

    /// Checks `args` at load; an error is a config error at the hook's location.
    fn check_args(&self, args: &[String]) -> Result<(), String> {
        let _ = args;
        Ok(())
    }

    /// Called for each hook of this builtin when an executor is built, before any event: the
    /// place to start costly set-up (on a thread of its own) that the first call would
    /// otherwise wait for.
    fn prepare(&self) {}

    /// Runs the builtin. `Ok(None)` is a successful no-op; `Err` is a hook failure.
    fn call<'a>(
        &'a self,
        call: BuiltinCall<'a>,
    ) -> BoxFuture<'a, Result<Option<HookOutput>, String>>;
}

/// Everything a builtin may look at.
#[derive(Debug, Clone, Copy)]
pub struct BuiltinCall<'a> {
    /// The dispatching event (the Input's `hook_event_name` says the same).
    pub event: HookEvent,
    /// The hook Input; `cwd` is the hook's `working_dir` when it has one.
    pub input: &'a HookInput,
    pub args: &'a [String],
    /// The directory the hook runs in.
    pub cwd: &'a Path,
    /// The environment for any process the builtin starts.
    pub env: &'a HookEnv,
    pub cancel: &'a CancellationToken,
    /// Failures the builtin swallows (a notification not delivered): the run stays `ok` and
    /// they become its `error` in the hook log.
    pub notes: &'a Notes,
}

/// What a builtin reports without failing its run. One per call.
#[derive(Debug, Default)]
pub struct Notes(std::sync::Mutex<Vec<String>>);

impl Notes {
    /// Records one swallowed failure.
    pub fn push(&self, note: impl Into<String>) {
        if let Ok(mut notes) = self.0.lock() {
            notes.push(note.into());
        }
    }

    /// Everything recorded, joined with `; `, or `None`.
    pub fn take(&self) -> Option<String> {
        let notes = std::mem::take(&mut *self.0.lock().ok()?);
        (!notes.is_empty()).then(|| notes.join("; "))
    }
}

/// An environment: a base (or this process's) plus overrides.
#[derive(Debug, Clone, Default)]
pub struct HookEnv {
    /// `None` inherits this process's environment.
    pub base: Option<Arc<[(OsString, OsString)]>>,
    pub vars: Vec<(OsString, OsString)>,
}

impl HookEnv {
    /// Looks a variable up: overrides first, then the base (or this process).
    pub fn var(&self, name: &str) -> Option<String> {
        if let Some((_, v)) = self.vars.iter().rev().find(|(k, _)| k == name) {
            return Some(v.to_string_lossy().into_owned());
        }
        match &self.base {
            Some(base) => base
                .iter()
                .find(|(k, _)| k == name)
                .map(|(_, v)| v.to_string_lossy().into_owned()),
            None => std::env::var(name).ok(),
        }
    }
}

/// A model call for `type: model` hooks, provided by the runtime.
pub trait ModelRunner: Send + Sync + fmt::Debug {
    /// Sends `system` and `prompt` to `model` (`provider/model` or a `models:` name), asking
    /// for `schema` as structured output when given; returns the reply text. The caller
    /// bounds the call with the hook's timeout.
    fn complete<'a>(&'a self, request: ModelRequest<'a>) -> BoxFuture<'a, Result<String, String>>;

    /// Checks at load that `model` names something this runner can call; the error becomes a
    /// config error at the hook's location. Credentials are not checked here.
    fn check(&self, model: &str) -> Result<(), String> {
        let _ = model;
        Ok(())
    }
}

/// One model-hook request.
#[derive(Debug, Clone, Copy)]
pub struct ModelRequest<'a> {
    pub model: &'a str,
    pub system: &'a str,
    pub prompt: &'a str,
    /// Structured output to ask for (strict JSON on providers that support it).
    pub schema: Option<&'a StructuredOutput>,
}

/// A named JSON schema for structured output (docs/design.md, Model hooks).
#[derive(Debug, Clone, PartialEq)]
pub struct StructuredOutput {
    pub name: String,
    pub description: String,
    pub schema: serde_json::Value,
    /// Ask the vendor to enforce the schema exactly.
    pub strict: bool,
}

/// Builtins by name, the model runner and the shell.
#[derive(Debug, Clone)]
pub struct Registry {
    builtins: HashMap<&'static str, Arc<dyn Builtin>>,
    model_runner: Option<Arc<dyn ModelRunner>>,
    shell: Shell,
}

impl Registry {
    /// An empty registry running command hooks with `shell`.
    pub fn new(shell: Shell) -> Self {
        Self {
            builtins: HashMap::new(),
            model_runner: None,
            shell,
        }
    }

    /// Adds (or replaces) a builtin.
    pub fn register(&mut self, builtin: Arc<dyn Builtin>) {
        self.builtins.insert(builtin.name(), builtin);
    }

    pub fn set_model_runner(&mut self, runner: Arc<dyn ModelRunner>) {
        self.model_runner = Some(runner);
    }

    pub fn builtin(&self, name: &str) -> Option<&Arc<dyn Builtin>> {
        self.builtins.get(name)
    }

    /// Registered builtin names, sorted.
    pub fn builtin_names(&self) -> Vec<&'static str> {
        let mut names: Vec<_> = self.builtins.keys().copied().collect();
        names.sort_unstable();
        names
    }

    pub fn model_runner(&self) -> Option<&Arc<dyn ModelRunner>> {
        self.model_runner.as_ref()
    }

    pub fn shell(&self) -> &Shell {
        &self.shell
    }
}
