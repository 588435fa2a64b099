//! Validation of `skills` (an agent's and the top-level groups) and their merging for
//! `use_skills`.

use serde_saphyr::Spanned;

use super::Validator;
use crate::agent::{InlineSkill, Skills};

impl Validator<'_> {
    /// `skills: true | false | [sources, names, inline skills]`, at `path`.
    pub(super) fn skills_at(
        &mut self,
        path: &str,
        raw: Spanned<serde_json::Value>,
    ) -> Option<Skills> {
        use serde_json::Value;
        let origin = self.origin(&raw.referenced, path);
        match raw.value {
            Value::Bool(false) | Value::Null => None,
            Value::Bool(true) => Some(Skills {
                local: true,
                ..Skills::default()
            }),
            Value::Array(items) => {
                let mut out = Skills::default();
                let mut sources = false;
                for (i, item) in items.into_iter().enumerate() {
                    match item {
                        Value::String(s) if s == "local" => {
                            out.local = true;
                            sources = true;
                        }
                        Value::String(s) if s.starts_with("http://") || s.starts_with("https://") => {
                            self.error_hint(
                                origin.clone(),
                                format!("{path}[{i}]: remote skill sources (`{s}`) are not supported yet"),
                                "install the skill under ~/.agents/skills or .agents/skills and list `local`",
                            );
                        }
                        Value::String(name) => out.only.push(name),
                        Value::Object(o) => match inline_skill(&o) {
                            Ok(skill) => out.inline.push(skill),
                            Err(e) => self.error(origin.clone(), format!("{path}[{i}]: {e}")),
                        },
                        other => self.error(
                            origin.clone(),
                            format!("{path}[{i}]: expected a source, a skill name or a skill, got {other}"),
                        ),
                    }
                }
                // Names alone filter the local skills.
                if !sources && !out.only.is_empty() {
                    out.local = true;
                }
                Some(out)
            }
            other => {
                self.error(
                    origin,
                    format!("skills must be true, false or a list, got {other}"),
                );
                None
            }
        }
    }
}

/// `use_skills` groups, in order, then the agent's own `skills`: local discovery if any asks
/// for it, the union of their name filters (none when one of them keeps every local skill),
/// and inline skills where a later one of the same name wins (the agent's own last).
pub(super) fn merge_skills(groups: Vec<Skills>, own: Option<Skills>) -> Option<Skills> {
    let all: Vec<Skills> = groups.into_iter().chain(own).collect();
    if all.is_empty() {
        return None;
    }
    let every_local = all.iter().any(|s| s.local && s.only.is_empty());
    let mut out = Skills::default();
    for s in all {
        out.local |= s.local;
        for name in s.only {
            if !out.only.contains(&name) {
                out.only.push(name);
            }
        }
        for skill in s.inline {
            out.inline.retain(|i| i.name != skill.name);
            out.inline.push(skill);
        }
    }
    if every_local {
        out.only.clear();
    }
    Some(out)
}

/// An inline skill: `name`, `description`, `instructions`; fork-mode fields are not supported.
fn inline_skill(o: &serde_json::Map<String, serde_json::Value>) -> Result<InlineSkill, String> {
    const FORK: [&str; 4] = ["context", "model", "allowed_tools", "toolsets"];
    for key in o.keys() {
        if FORK.contains(&key.as_str()) {
            return Err(format!("`{key}` (fork-mode skills) is not supported yet"));
        }
        if !["name", "description", "instructions"].contains(&key.as_str()) {
            return Err(format!(
                "unknown field `{key}`, expected one of name, description, instructions"
            ));
        }
    }
    let text = |key: &str| {
        o.get(key)
            .and_then(serde_json::Value::as_str)
            .filter(|s| !s.trim().is_empty())
            .map(str::to_owned)
            .ok_or_else(|| format!("an inline skill needs `{key}`"))
    };
    let name = text("name")?;
    if name.contains(char::is_whitespace) {
        return Err(format!("a skill name has no spaces, got `{name}`"));
    }
    Ok(InlineSkill {
        name,
        description: text("description")?,
        instructions: text("instructions")?,
    })
}
