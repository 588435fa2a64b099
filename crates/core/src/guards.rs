//! `prompt_file_guard` and `skill_content_guard`: text that would become instructions is
//! vetted first, and only text every hook explicitly allows gets in. A refusal or a failure
//! stops the turn (prompt files) or rejects the load (skills), in every safety mode.

use tether_config::HookKind;
use tether_hooks::HookResult;
use tether_protocol::{HookEvent, Lane, Payload, PromptFilePayload, SkillPayload};
use tokio_util::sync::CancellationToken;

use crate::agent::AgentRuntime;
use crate::runtime::Runtime;

/// Every hook that ran said `permission_decision: allow`, and none blocked or failed.
fn approved(r: &HookResult) -> bool {
    r.allowed && r.explicit_allows >= r.runs.len()
}

fn refusal(r: &HookResult) -> String {
    if r.message.is_empty() {
        "not every hook allowed it".to_owned()
    } else {
        r.message.clone()
    }
}

impl Runtime {
    /// The prompt files this turn's `add_prompt_files` hooks load, each through
    /// `prompt_file_guard`; the first refused file is the error.
    pub(crate) async fn guard_prompt_files(
        &self,
        agent: &AgentRuntime,
        session_id: &str,
        cancel: &CancellationToken,
    ) -> Result<(), String> {
        if !agent
            .executor
            .has(HookEvent::PromptFileGuard, Lane::Default)
        {
            return Ok(());
        }
        let names: Vec<String> = agent
            .executor
            .hooks(HookEvent::TurnStart, Lane::Default)
            .into_iter()
            .filter(|(_, h)| matches!(&h.kind, HookKind::Builtin { name } if name == "add_prompt_files"))
            .flat_map(|(_, h)| h.args.clone())
            .collect();
        for path in tether_hooks::builtins::prompt_file_paths(&self.working_dir, &names) {
            let Ok(content) = std::fs::read_to_string(&path) else {
                continue;
            };
            let input = PromptFilePayload {
                prompt_file: path.display().to_string(),
                prompt_file_content: content,
            }
            .into_input(self.input(agent, session_id));
            let r = self
                .fire(agent, session_id, HookEvent::PromptFileGuard, input, cancel)
                .await;
            if !approved(&r) {
                return Err(format!(
                    "prompt file {} was refused by prompt_file_guard: {}",
                    path.display(),
                    refusal(&r)
                ));
            }
        }
        Ok(())
    }

    /// A skill's text through `skill_content_guard`.
    pub(crate) async fn guard_skill(
        &self,
        agent: &AgentRuntime,
        session_id: &str,
        name: &str,
        content: &str,
        cancel: &CancellationToken,
    ) -> Result<(), String> {
        if !agent
            .executor
            .has(HookEvent::SkillContentGuard, Lane::Default)
        {
            return Ok(());
        }
        let input = SkillPayload {
            skill_name: name.to_owned(),
            skill_content: content.to_owned(),
        }
        .into_input(self.input(agent, session_id));
        let r = self
            .fire(
                agent,
                session_id,
                HookEvent::SkillContentGuard,
                input,
                cancel,
            )
            .await;
        if approved(&r) {
            Ok(())
        } else {
            Err(format!(
                "skill `{name}` was refused by skill_content_guard: {}",
                refusal(&r)
            ))
        }
    }
}
