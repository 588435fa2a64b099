//! `add_context`: each argument is a Go text/template over the hook Input (docker-agent's Go
//! field names: `{{ .SessionID }}`, `{{ .AgentName }}`, `{{ .Cwd }}`, `{{ .ToolName }}`, …);
//! the rendered texts that are not blank are joined with newlines as `additional_context`.
//! Templates are checked at load, so an unknown field or function is a config error.

use futures::future::BoxFuture;
use tether_protocol::HookOutput;

use crate::registry::{Builtin, BuiltinCall};
use crate::template::PromptTemplate;

#[derive(Debug, Clone, Copy, Default)]
pub struct AddContext;

fn compile(arg: &str, i: usize) -> Result<PromptTemplate, String> {
    PromptTemplate::compile(arg).map_err(|issue| {
        format!(
            "args[{i}]: invalid template (line {}, column {}): {}",
            issue.line, issue.column, issue.message
        )
    })
}

impl Builtin for AddContext {
    fn name(&self) -> &'static str {
        "add_context"
    }

    fn check_args(&self, args: &[String]) -> Result<(), String> {
        if args.is_empty() {
            return Err(
                "needs at least one template argument (e.g. `args: [\"Session: {{ .SessionID }}\"]`)"
                    .to_owned(),
            );
        }
        for (i, arg) in args.iter().enumerate() {
            compile(arg, i)?;
        }
        Ok(())
    }

    fn call<'a>(
        &'a self,
        call: BuiltinCall<'a>,
    ) -> BoxFuture<'a, Result<Option<HookOutput>, String>> {
        Box::pin(async move {
            let mut parts = Vec::with_capacity(call.args.len());
            for (i, arg) in call.args.iter().enumerate() {
                let text = compile(arg, i)?
                    .render(call.input)
                    .map_err(|e| format!("args[{i}]: {e}"))?;
                let text = text.trim();
                if !text.is_empty() {
                    parts.push(text.to_owned());
                }
            }
            Ok(super::context(&call, parts.join("\n")))
        })
    }
}
