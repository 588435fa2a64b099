//! `type: environment`: docker-agent's `get_environment_info`. It takes no arguments and
//! answers only the operating system and the shell's program name (`{"os":"Linux","shell":"bash"}`):
//! no variables, paths, user or working directory, so nothing secret can reach the transcript
//! through it, and the model cannot steer what it reads.

use futures::future::BoxFuture;
use serde_json::{Map, Value, json};
use tether_exec::Shell;

use crate::schema::object;
use crate::{Tool, ToolContext, ToolDefinition, ToolResult};

const DESCRIPTION: &str = r#"Returns the operating system and resolved shell that will run shell-tool commands (e.g. {"os":"Windows","shell":"powershell"}). No arguments, no side effects. Call this when unsure which shell syntax to use."#;

/// The toolset's system-prompt text.
pub const ENVIRONMENT_INSTRUCTION: &str = r#"## Environment Info

Call get_environment_info when you're unsure which shell syntax to use.
Returns the OS and the resolved shell (e.g. {"os":"Windows","shell":"powershell"}),
nothing else. Cheap: no arguments, no side effects, auto-approved."#;

/// The `get_environment_info` tool.
#[derive(Debug)]
pub struct EnvironmentTool {
    definition: ToolDefinition,
    answer: String,
}

impl EnvironmentTool {
    /// Reports `shell`, the one the shell tool runs commands with.
    pub fn new(shell: &Shell) -> Self {
        let shell_name = shell
            .program
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        Self {
            definition: ToolDefinition {
                name: "get_environment_info".to_owned(),
                description: DESCRIPTION.to_owned(),
                parameters: object(json!({}), &[]),
                read_only: true,
                category: "environment",
            },
            answer: json!({"os": os_name(), "shell": shell_name}).to_string(),
        }
    }
}

/// The names docker-agent's shell tool uses for the operating system.
fn os_name() -> &'static str {
    match std::env::consts::OS {
        "macos" => "macOS",
        "windows" => "Windows",
        "linux" => "Linux",
        other => other,
    }
}

impl Tool for EnvironmentTool {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn call<'a>(
        &'a self,
        _args: &'a Map<String, Value>,
        _ctx: ToolContext<'a>,
    ) -> BoxFuture<'a, ToolResult> {
        Box::pin(std::future::ready(ToolResult::ok(self.answer.clone())))
    }
}
