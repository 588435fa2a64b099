//! Validation of an agent's `inject_memories`, `max_inject_memories` and
//! `inject_memories_strategy`.
//!
//! The companions alone are accepted (as docker-agent does) and mean nothing until
//! `inject_memories: true`; then the agent must have a `type: memory` toolset, whose file the
//! memories come from.

use serde_saphyr::Spanned;

use crate::agent::InjectMemories;
use crate::toolset::{Toolset, ToolsetKind};

use super::Validator;

/// `max_inject_memories` when it is absent or 0 (docker-agent's default).
const DEFAULT_LIMIT: usize = 5;

impl Validator<'_> {
    pub(super) fn inject_memories(
        &mut self,
        path: &str,
        toolsets: &[Toolset],
        enabled: Option<Spanned<bool>>,
        max: Option<Spanned<i64>>,
        strategy: Option<Spanned<String>>,
    ) -> Option<InjectMemories> {
        let mut ok = true;
        if let Some(s) = &strategy
            && s.value != "local"
        {
            self.error_hint(
                self.origin(&s.referenced, format!("{path}.inject_memories_strategy")),
                format!("inject_memories_strategy `{}` is invalid", s.value),
                "the one strategy is `local` (BM25 over the stored memories)",
            );
            ok = false;
        }
        let limit = match &max {
            None => DEFAULT_LIMIT,
            Some(m) => match usize::try_from(m.value) {
                Ok(0) => DEFAULT_LIMIT,
                Ok(n) => n,
                Err(_) => {
                    self.error(
                        self.origin(&m.referenced, format!("{path}.max_inject_memories")),
                        format!("max_inject_memories must be >= 0, got {}", m.value),
                    );
                    ok = false;
                    DEFAULT_LIMIT
                }
            },
        };
        let enabled = enabled?;
        if !enabled.value {
            return None;
        }
        let Some(memory) = toolsets.iter().find(|t| t.kind == ToolsetKind::Memory) else {
            self.error_hint(
                self.origin(&enabled.referenced, format!("{path}.inject_memories")),
                "`inject_memories` needs a `type: memory` toolset on the agent",
                "add `- type: memory` (with an optional `path`) to the agent's `toolsets`",
            );
            return None;
        };
        ok.then(|| InjectMemories {
            limit,
            path: memory.path.clone(),
        })
    }
}
