//! Validation of `type: policy` hooks: the Cedar policy set is read, parsed and (with
//! `schema:`) validated here, once; its errors point at their line and column in the policy
//! file, or inside the agent file for `policy_text:`.

use std::path::Path;
use std::sync::Arc;

use cedar_policy::{PolicySet, Schema, ValidationMode, Validator as CedarValidator};
use serde_saphyr::Spanned;
use tether_protocol::HookEvent;

use crate::diagnostic::{Origin, TextOrigin};
use crate::hooks::HookKind;
use crate::policy::{POLICY_EVENTS, PolicyHook, TextAt};
use crate::raw::RawHookDef;

use super::Validator;

/// The first labelled offset of a Cedar diagnostic, and its message with its help.
fn describe(d: &dyn miette::Diagnostic, what: &str) -> (Option<usize>, String) {
    let offset = d.labels().and_then(|mut l| l.next()).map(|l| l.offset());
    let mut message = format!("{what}: {d}");
    if let Some(help) = d.help() {
        message.push_str(&format!(" ({help})"));
    }
    (offset, message)
}

impl Validator<'_> {
    /// `type: policy`: `policy:` (a file) or `policy_text:`, and an optional `schema:` file.
    pub(super) fn policy_hook(
        &mut self,
        event: HookEvent,
        path: &str,
        origin: &Origin,
        d: &mut RawHookDef,
    ) -> Option<HookKind> {
        if !POLICY_EVENTS.contains(&event) {
            let events: Vec<&str> = POLICY_EVENTS.iter().map(|e| e.wire_name()).collect();
            self.error_hint(
                origin.clone(),
                format!("`type: policy` does not run on `{event}`"),
                format!("policy hooks run on {}", events.join(", ")),
            );
            return None;
        }
        for (key, given) in [
            ("command", d.command.as_ref().map(|v| &v.referenced)),
            ("model", d.model.as_ref().map(|v| &v.referenced)),
            ("prompt", d.prompt.as_ref().map(|v| &v.referenced)),
        ] {
            if let Some(at) = given {
                self.error(
                    self.origin(at, format!("{path}.{key}")),
                    format!("`{key}` does not apply to `type: policy` hooks"),
                );
                return None;
            }
        }
        let (text, at, source) = match (d.policy.take(), d.policy_text.take()) {
            (Some(_), Some(t)) => {
                self.error(
                    self.origin(&t.referenced, format!("{path}.policy_text")),
                    "give `policy` (a file) or `policy_text`, not both",
                );
                return None;
            }
            (None, None) => {
                self.error_hint(
                    origin.clone(),
                    "policy hooks need `policy` (a Cedar file) or `policy_text`",
                    "e.g. `policy: ./policies/tools.cedar`",
                );
                return None;
            }
            (Some(file), None) => {
                let text = self.read_policy_file(&file, &format!("{path}.policy"), "policy")?;
                (
                    text,
                    TextAt::File(Arc::from(file.value.as_str())),
                    file.value,
                )
            }
            (None, Some(t)) => {
                let at = self.origin(&t.referenced, format!("{path}.policy_text"));
                let text_at = TextAt::Inline(TextOrigin::new(at, self.source, &t.value));
                (t.value, text_at, "inline".to_owned())
            }
        };
        let set = match text.parse::<PolicySet>() {
            Ok(set) => set,
            Err(errors) => {
                for e in errors.iter() {
                    let (offset, message) = describe(e, "Cedar policy parse error");
                    let o = offset.map_or_else(
                        || origin.clone(),
                        |off| at.origin(&text, off, &format!("{path}.policy")),
                    );
                    self.error(o, message);
                }
                return None;
            }
        };
        let mut validated = false;
        if let Some(schema_file) = d.schema.take() {
            let schema_path = format!("{path}.schema");
            let schema_text = self.read_policy_file(&schema_file, &schema_path, "schema")?;
            let schema_at = TextAt::File(Arc::from(schema_file.value.as_str()));
            let schema = match Schema::from_cedarschema_str(&schema_text) {
                Ok((schema, _warnings)) => schema,
                Err(e) => {
                    let (offset, message) = describe(&e, "Cedar schema error");
                    let o = offset.map_or_else(
                        || self.origin(&schema_file.referenced, schema_path.clone()),
                        |off| schema_at.origin(&schema_text, off, &schema_path),
                    );
                    self.error(o, message);
                    return None;
                }
            };
            let result = CedarValidator::new(schema).validate(&set, ValidationMode::Strict);
            if !result.validation_passed() {
                for e in result.validation_errors() {
                    let (offset, message) = describe(
                        e,
                        &format!("policy `{}` does not match the schema", e.policy_id()),
                    );
                    let o = offset.map_or_else(
                        || origin.clone(),
                        |off| at.origin(&text, off, &format!("{path}.policy")),
                    );
                    self.error(o, message);
                }
                return None;
            }
            validated = true;
        }
        let count = set.policies().count() + set.templates().count();
        Some(HookKind::Policy(PolicyHook {
            set: Arc::new(set),
            source,
            count,
            validated,
            text: Arc::from(text),
            at,
        }))
    }

    /// The text of a policy or schema file, relative to the agent file's directory.
    fn read_policy_file(
        &mut self,
        file: &Spanned<String>,
        path: &str,
        what: &str,
    ) -> Option<String> {
        let name = file.value.trim();
        let full = if Path::new(name).is_absolute() {
            Path::new(name).to_path_buf()
        } else {
            self.dir.join(name)
        };
        match std::fs::read_to_string(&full) {
            Ok(text) => Some(text),
            Err(e) => {
                self.error(
                    self.origin(&file.referenced, path),
                    format!("cannot read the {what} file `{}`: {e}", full.display()),
                );
                None
            }
        }
    }

    /// `policy` and `policy_text` belong to policy hooks only; false when one was given.
    pub(super) fn no_policy_fields(&mut self, path: &str, d: &RawHookDef) -> bool {
        let given = [
            ("policy", d.policy.as_ref().map(|v| &v.referenced)),
            ("policy_text", d.policy_text.as_ref().map(|v| &v.referenced)),
        ];
        let mut ok = true;
        for (key, at) in given {
            if let Some(at) = at {
                self.error(
                    self.origin(at, format!("{path}.{key}")),
                    format!("`{key}` only applies to `type: policy` hooks"),
                );
                ok = false;
            }
        }
        ok
    }
}
