//! `type: model_picker`: `change_model` and `revert_model`, which switch the model the agent
//! calls from the next model call on, as docker-agent's do. The choice belongs to the agent
//! (not to one session), so a sub-session of the same agent uses it too; a toolset's `model:`
//! routing still wins for the one call after its tools ran.

use std::sync::{Arc, Mutex, PoisonError};

use futures::future::BoxFuture;
use serde_json::{Map, Value, json};
use tether_tools::{Tool, ToolContext, ToolDefinition, ToolResult};

pub(crate) const CHANGE_MODEL: &str = "change_model";
pub(crate) const REVERT_MODEL: &str = "revert_model";

/// The model an agent switched to: an index into its `tool_models`, `None` for its own.
pub(crate) type Picked = Arc<Mutex<Option<usize>>>;

/// The toolset's system-prompt text.
/// `models`: each model as written, with its `models:` entry's `description` when it has one.
pub(crate) fn instruction(models: &[(&str, Option<&str>)]) -> String {
    let listed: Vec<String> = models
        .iter()
        .map(|(m, d)| match d {
            Some(d) => format!("{m} ({d})"),
            None => (*m).to_owned(),
        })
        .collect();
    format!(
        "## Model Switching\n\nAvailable models: {}.\n\nUse `{CHANGE_MODEL}` to switch to a model better suited for the current task (e.g., faster model for simple tasks, more capable model for complex reasoning).\nUse `{REVERT_MODEL}` to return to the original model when done.",
        listed.join(", ")
    )
}

/// One of the two tools.
#[derive(Debug)]
pub(crate) struct ModelPickerTool {
    definition: ToolDefinition,
    /// The allowed models as written, with their index into the agent's `tool_models`.
    models: Vec<(String, usize)>,
    picked: Picked,
}

impl ModelPickerTool {
    /// Both tools over `picked`.
    pub(crate) fn pair(models: Vec<(String, usize)>, picked: &Picked) -> Vec<Arc<dyn Tool>> {
        let names: Vec<&str> = models.iter().map(|(m, _)| m.as_str()).collect();
        let change = ToolDefinition {
            name: CHANGE_MODEL.to_owned(),
            description: format!(
                "Change the current model to one of the available models: {}. Use this when you need a different model for the current task.",
                names.join(", ")
            ),
            parameters: json!({
                "type": "object",
                "properties": {"model": {"type": "string", "description": "The model to switch to. Must be one of the available models."}},
                "required": ["model"],
                "additionalProperties": false
            }),
            read_only: true,
            category: "model",
        };
        let revert = ToolDefinition {
            name: REVERT_MODEL.to_owned(),
            description: "Revert to the agent's original/default model. Use this after completing a task that required a different model.".to_owned(),
            parameters: json!({"type": "object", "properties": {}}),
            read_only: true,
            category: "model",
        };
        [change, revert]
            .into_iter()
            .map(|definition| {
                Arc::new(Self {
                    definition,
                    models: models.clone(),
                    picked: Arc::clone(picked),
                }) as Arc<dyn Tool>
            })
            .collect()
    }

    fn run(&self, args: &Map<String, Value>) -> ToolResult {
        let mut picked = self.picked.lock().unwrap_or_else(PoisonError::into_inner);
        if self.definition.name == REVERT_MODEL {
            *picked = None;
            return ToolResult::ok("Model reverted to the agent's default model");
        }
        let wanted = args.get("model").and_then(Value::as_str).unwrap_or("");
        if wanted.is_empty() {
            return ToolResult::error("model parameter is required");
        }
        match self.models.iter().find(|(m, _)| m == wanted) {
            Some((_, index)) => {
                *picked = Some(*index);
                ToolResult::ok(format!("Model changed to {wanted}"))
            }
            None => {
                let names: Vec<&str> = self.models.iter().map(|(m, _)| m.as_str()).collect();
                ToolResult::error(format!(
                    "model \"{wanted}\" is not in the allowed list. Available models: {}",
                    names.join(", ")
                ))
            }
        }
    }
}

impl Tool for ModelPickerTool {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn call<'a>(
        &'a self,
        args: &'a Map<String, Value>,
        _ctx: ToolContext<'a>,
    ) -> BoxFuture<'a, ToolResult> {
        Box::pin(std::future::ready(self.run(args)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_descriptions_are_listed_beside_their_names() {
        let text = instruction(&[
            ("fast", Some("cheap, for summaries")),
            ("openai/gpt-4o", None),
        ]);
        assert!(
            text.contains("Available models: fast (cheap, for summaries), openai/gpt-4o."),
            "{text}"
        );
    }
}
