//! The tools of the small built-in toolsets (`calculator`, `random`, `datetime`,
//! `environment`, `open_url`, `webhook`, `git`), each with its system-prompt text.

use std::sync::Arc;

use tether_config::ToolsetKind;
use tether_exec::Shell;

use crate::{
    CALCULATOR_INSTRUCTION, CalculatorTool, DATETIME_INSTRUCTION, DatetimeTool,
    ENVIRONMENT_INSTRUCTION, EnvironmentTool, GIT_INSTRUCTION, GitTool, OpenUrlTool, RandomTool,
    Tool, WEBHOOK_INSTRUCTION, WebhookTool, open_url_instruction,
};

/// The tools of `cfg` (one of the small kinds) and their instruction.
pub(crate) fn build(
    cfg: &tether_config::Toolset,
    shell: &Shell,
) -> (Vec<Arc<dyn Tool>>, Option<String>) {
    match cfg.kind {
        ToolsetKind::Calculator => (
            vec![Arc::new(CalculatorTool::default())],
            Some(CALCULATOR_INSTRUCTION.to_owned()),
        ),
        ToolsetKind::Random => (vec![Arc::new(RandomTool::default())], None),
        ToolsetKind::Datetime => (
            vec![Arc::new(DatetimeTool::default())],
            Some(DATETIME_INSTRUCTION.to_owned()),
        ),
        ToolsetKind::Environment => (
            vec![Arc::new(EnvironmentTool::new(shell))],
            Some(ENVIRONMENT_INSTRUCTION.to_owned()),
        ),
        ToolsetKind::OpenUrl => match &cfg.url {
            Some(url) => {
                let tool = OpenUrlTool::new(cfg.name.as_deref(), url);
                let name = tool.definition().name.clone();
                (vec![Arc::new(tool)], Some(open_url_instruction(&name, url)))
            }
            None => (Vec::new(), None),
        },
        ToolsetKind::Webhook => match &cfg.webhook {
            Some(w) => (
                vec![Arc::new(WebhookTool::new(
                    w,
                    cfg.timeout,
                    cfg.allow_private_ips,
                ))],
                Some(WEBHOOK_INSTRUCTION.to_owned()),
            ),
            None => (Vec::new(), None),
        },
        ToolsetKind::Git => (
            GitTool::all()
                .into_iter()
                .map(|t| Arc::new(t) as Arc<dyn Tool>)
                .collect(),
            Some(GIT_INSTRUCTION.to_owned()),
        ),
        _ => (Vec::new(), None),
    }
}
