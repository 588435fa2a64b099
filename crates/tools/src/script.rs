//! `type: script` tools: each named command of the toolset is a tool. The command runs with
//! `$SHELL -c`, in its own process group like the shell tool's, with the call's arguments as
//! environment variables (declared ones only), so `cmd: ./deploy.sh ${env}` is the shell's own expansion and an
//! argument can never inject shell syntax.

use std::ffi::OsString;
use std::fmt::Write as _;
use std::path::PathBuf;

use futures::future::BoxFuture;
use serde_json::{Map, Value, json};
use tether_config::Script;
use tether_exec::Shell;

use crate::args::resolve;
use crate::shell::{DEFAULT_TIMEOUT, command_spec, default_spool_dir, render};
use crate::{Tool, ToolContext, ToolDefinition, ToolResult};

/// One named command.
#[derive(Debug)]
pub struct ScriptTool {
    definition: ToolDefinition,
    cmd: String,
    shell: Shell,
    env: Vec<(OsString, OsString)>,
    working_dir: Option<String>,
    spool_dir: PathBuf,
    /// The script's `args`: the only arguments passed to the command.
    declared: Vec<String>,
}

impl ScriptTool {
    /// `toolset_env` is the toolset's `env`; the script's own wins over it.
    pub fn new(script: &Script, shell: Shell, toolset_env: &[(String, String)]) -> Self {
        let properties: Map<String, Value> = script
            .args
            .iter()
            .map(|(name, schema)| {
                let mut schema = match schema {
                    Value::Object(m) => m.clone(),
                    _ => Map::new(),
                };
                schema
                    .entry("type")
                    .or_insert_with(|| Value::String("string".to_owned()));
                (name.clone(), Value::Object(schema))
            })
            .collect();
        let description = if script.description.is_empty() {
            format!("Execute shell command: {}", script.cmd)
        } else {
            script.description.clone()
        };
        Self {
            definition: ToolDefinition {
                name: script.name.clone(),
                description,
                parameters: json!({
                    "type": "object",
                    "properties": properties,
                    "required": script.required,
                }),
                read_only: false,
                category: "",
            },
            cmd: script.cmd.clone(),
            shell,
            env: toolset_env
                .iter()
                .chain(&script.env)
                .map(|(k, v)| (OsString::from(k), OsString::from(v)))
                .collect(),
            working_dir: script.working_dir.clone(),
            spool_dir: default_spool_dir(),
            declared: script.args.iter().map(|(name, _)| name.clone()).collect(),
        }
    }
}

/// An argument as the command sees it: strings as they are, anything else as JSON.
fn env_value(v: &Value) -> Option<String> {
    match v {
        Value::Null => None,
        Value::String(s) => Some(s.clone()),
        other => Some(other.to_string()),
    }
}

impl Tool for ScriptTool {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn call<'a>(
        &'a self,
        args: &'a Map<String, Value>,
        ctx: ToolContext<'a>,
    ) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            let missing: Vec<&str> = self.definition.parameters["required"]
                .as_array()
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .filter(|r| args.get(*r).is_none_or(Value::is_null))
                .collect();
            if !missing.is_empty() {
                return ToolResult::error(format!(
                    "missing required argument(s) for `{}`: {}",
                    self.definition.name,
                    missing.join(", ")
                ));
            }
            let cwd = match self.working_dir.as_deref() {
                None | Some("") => ctx.working_dir.to_path_buf(),
                Some(dir) => resolve(ctx.working_dir, dir),
            };
            // Only declared arguments become variables: a model-chosen name such as
            // `BASH_ENV` or `BASH_FUNC_echo%%` would run code before the command does.
            let mut env = self.env.clone();
            env.extend(self.declared.iter().filter_map(|name| {
                let value = env_value(args.get(name)?)?;
                Some((OsString::from(name), OsString::from(value)))
            }));
            let spec = command_spec(
                &self.shell,
                &self.cmd,
                cwd,
                &env,
                DEFAULT_TIMEOUT,
                &ctx,
                &self.spool_dir,
            );
            render(&tether_exec::run(spec).await, DEFAULT_TIMEOUT)
        })
    }
}

/// The system-prompt text of a script toolset (docker-agent's "Custom Shell Tools").
pub fn script_instruction(scripts: &[Script]) -> String {
    let mut text = String::from("## Custom Shell Tools\n\n");
    for s in scripts {
        let _ = writeln!(text, "### {}", s.name);
        if s.description.is_empty() {
            let _ = writeln!(text, "Runs: `{}`", s.cmd);
        } else {
            let _ = writeln!(text, "{}", s.description);
        }
        for (name, schema) in &s.args {
            let about = schema
                .get("description")
                .and_then(Value::as_str)
                .unwrap_or_default();
            let required = if s.required.contains(name) {
                " (required)"
            } else {
                ""
            };
            let _ = writeln!(text, "- `{name}`: {about}{required}");
        }
        text.push('\n');
    }
    text
}
