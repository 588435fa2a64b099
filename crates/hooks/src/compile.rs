//! Compiling a hook definition into something ready to run: its handler (command, builtin,
//! model, http or mcp), resolved once at load, with its working directory, environment and
//! de-duplication key.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use tether_config::{Diagnostic, Dialect, HookKind, HookSpec};
use tether_exec::Direct;

use crate::evaluator_hook::EvaluatorHook;
use crate::executor::ExecutorOptions;
use crate::http_hook::HttpHook;
use crate::mcp_hook::McpHook;
use crate::model_hook::ModelHook;
use crate::policy_hook::PolicyHook;
use crate::registry::{Builtin, HookEnv, ModelRunner, Registry};

#[derive(Debug)]
pub(crate) enum Handler {
    /// The shell text, and its words when the shell can be skipped (a plain word list run by a
    /// shell whose start-up `tether-exec` reproduces).
    Command(String, Option<Direct>),
    /// `persistent: true`: the shell text (and its words, as for `Command`), run once per
    /// session through the pool.
    Persistent(String, Option<Direct>),
    Builtin(Arc<dyn Builtin>),
    Model(ModelHook, Arc<dyn ModelRunner>),
    Evaluator(EvaluatorHook, Arc<dyn ModelRunner>),
    Http(HttpHook),
    Mcp(McpHook),
    Policy(Box<PolicyHook>),
    Unavailable(String),
}

/// A hook ready to run.
#[derive(Debug)]
pub(crate) struct CompiledHook {
    pub(crate) spec: HookSpec,
    pub(crate) handler: Handler,
    pub(crate) cwd: PathBuf,
    pub(crate) env: HookEnv,
    pub(crate) dedupe_key: String,
    /// The sandbox a command hook (persistent or not) runs in.
    pub(crate) sandbox: Option<Arc<tether_exec::sandbox::Sandbox>>,
}

fn dedupe_key(spec: &HookSpec) -> String {
    // docs/design.md, De-duplication key: type, command, args, env, working_dir, and model/prompt/schema; not timeout,
    // name or on_error.
    let kind = match &spec.kind {
        HookKind::Command { command } if spec.persistent => {
            format!("command\0{command}\0persistent")
        }
        HookKind::Command { command } => format!("command\0{command}"),
        HookKind::Builtin { name } => format!("builtin\0{name}"),
        HookKind::Model {
            model,
            prompt,
            schema,
            system_prompt,
            ..
        } => format!(
            "model\0{model}\0{prompt}\0{}\0{}",
            schema.as_deref().unwrap_or(""),
            system_prompt.as_deref().unwrap_or("")
        ),
        HookKind::Evaluator { evaluator, policy } => {
            format!("evaluator\0{}\0{policy:?}", evaluator.name)
        }
        HookKind::Http { url, headers, .. } => format!("http\0{url}\0{headers:?}"),
        HookKind::Mcp {
            server,
            tool,
            input,
            ..
        } => format!("mcp\0{server}\0{tool}\0{input:?}"),
        HookKind::Policy(p) => format!("policy\0{}", p.text),
    };
    format!(
        "{kind}\0{:?}\0{:?}\0{:?}\0{:?}",
        spec.args, spec.env, spec.working_dir, spec.dialect
    )
}

/// How to run `command` without the shell, when its text allows it.
fn direct(registry: &Registry, command: &str) -> Option<Direct> {
    let words = tether_shell_safety::plain_words(command)?;
    Some(Direct {
        flavor: registry.shell().flavor()?,
        words: words.into_iter().map(OsString::from).collect(),
    })
}

fn resolve_dir(base: &Path, working_dir: Option<&str>) -> PathBuf {
    match working_dir {
        Some(w) if Path::new(w).is_absolute() => PathBuf::from(w),
        Some(w) => base.join(w),
        None => base.to_path_buf(),
    }
}

pub(crate) fn compile(
    spec: &HookSpec,
    registry: &Registry,
    opts: &ExecutorOptions,
) -> Result<CompiledHook, Box<Diagnostic>> {
    let handler = match &spec.kind {
        HookKind::Command { command } if spec.persistent => {
            Handler::Persistent(command.clone(), direct(registry, command))
        }
        HookKind::Command { command } => {
            Handler::Command(command.clone(), direct(registry, command))
        }
        HookKind::Builtin { name } => {
            let Some(b) = registry.builtin(name) else {
                let known = registry.builtin_names().join(", ");
                return Err(Box::new(
                    Diagnostic::new(spec.origin.clone(), format!("unknown builtin `{name}`"))
                        .with_hint(format!("registered builtins: {known}")),
                ));
            };
            b.check_args(&spec.args).map_err(|e| {
                Box::new(Diagnostic::new(
                    spec.origin.clone(),
                    format!("builtin `{name}`: {e}"),
                ))
            })?;
            b.prepare();
            Handler::Builtin(Arc::clone(b))
        }
        HookKind::Model { .. } => {
            let runner = registry.model_runner();
            let hook = ModelHook::compile(spec, runner.map(AsRef::as_ref))?;
            match runner {
                Some(r) => Handler::Model(hook, Arc::clone(r)),
                None => Handler::Unavailable(
                    "model hooks need a model runner and none is configured".to_owned(),
                ),
            }
        }
        HookKind::Evaluator { .. } => {
            let runner = registry.model_runner();
            let hook = EvaluatorHook::compile(spec, runner.map(AsRef::as_ref))?;
            match runner {
                Some(r) => Handler::Evaluator(hook, Arc::clone(r)),
                None => Handler::Unavailable(
                    "evaluator hooks need a model runner and none is configured".to_owned(),
                ),
            }
        }
        HookKind::Http { url, headers, .. } => Handler::Http(HttpHook::new(url, headers)),
        HookKind::Mcp {
            server,
            tool,
            input,
            ..
        } => match &opts.mcp {
            Some(caller) => Handler::Mcp(McpHook {
                server: server.clone(),
                tool: tool.clone(),
                input: input.as_ref().map(|t| t.0.clone()),
                caller: Arc::clone(caller),
            }),
            None => Handler::Unavailable(format!(
                "mcp hook: the agent has no MCP server `{server}` to call"
            )),
        },
        HookKind::Policy(p) => match PolicyHook::compile(p, &opts.safety) {
            Ok(hook) => Handler::Policy(Box::new(hook)),
            Err(e) => {
                return Err(Box::new(Diagnostic::new(
                    spec.origin.clone(),
                    format!("policy hook: {e}"),
                )));
            }
        },
    };
    // Claude Code hooks find the project through CLAUDE_PROJECT_DIR; their own `env` wins.
    let claude_dir = (spec.dialect == Dialect::Claude).then(|| {
        (
            OsString::from("CLAUDE_PROJECT_DIR"),
            opts.working_dir.clone().into_os_string(),
        )
    });
    let env = HookEnv {
        base: opts.base_env.clone(),
        vars: claude_dir
            .into_iter()
            .chain(
                spec.env
                    .iter()
                    .map(|(k, v)| (OsString::from(k), OsString::from(v))),
            )
            .collect(),
    };
    let cwd = resolve_dir(&opts.working_dir, spec.working_dir.as_deref());
    let sandbox = crate::sandbox::build(spec, &cwd, &env)?;
    Ok(CompiledHook {
        handler,
        cwd,
        sandbox,
        env,
        dedupe_key: dedupe_key(spec),
        spec: spec.clone(),
    })
}
