//! Validation of `persistent:` on a hook definition.

use serde_saphyr::Spanned;

use crate::hooks::HookKind;

use super::Validator;

impl Validator<'_> {
    /// `persistent: true` is for command hooks that are awaited: an `async` hook's answer is
    /// never read, so a process kept to answer it would only cost. `None` after an error.
    pub(super) fn persistent(
        &mut self,
        path: &str,
        kind: &HookKind,
        run_async: bool,
        given: Option<Spanned<bool>>,
    ) -> Option<bool> {
        let Some(p) = given else {
            return Some(false);
        };
        if !p.value {
            return Some(false);
        }
        let at = self.origin(&p.referenced, format!("{path}.persistent"));
        if !matches!(kind, HookKind::Command { .. }) {
            self.error(at, "`persistent` only applies to `type: command` hooks");
            return None;
        }
        if run_async {
            self.error_hint(
                at,
                "a persistent hook cannot be `async`",
                "a persistent process answers every event in turn; leave out `async: true`",
            );
            return None;
        }
        Some(true)
    }
}
