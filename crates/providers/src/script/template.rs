//! One-pass template expansion for script replies: `$1`, `${name}`, `$$`, `{{prompt}}`,
//! `{{tool_result}}`, `{{tool_name}}`. Inserted text is never expanded again, so a prompt
//! containing `{{tool_result}}` or `$1` comes out literally.

use regex::Captures;
use serde_json::Value;

pub(super) struct Vars<'a> {
    pub prompt: &'a str,
    pub tool_result: String,
    pub tool_name: String,
    pub captures: Option<Captures<'a>>,
}

impl Vars<'_> {
    pub(super) fn expand(&self, template: &str) -> String {
        let mut out = String::with_capacity(template.len());
        let mut rest = template;
        while let Some(pos) = rest.find(['$', '{']) {
            out.push_str(&rest[..pos]);
            rest = &rest[pos..];
            let (value, used) = self.token(rest);
            match value {
                Some(v) => out.push_str(&v),
                None => out.push_str(&rest[..used]),
            }
            rest = &rest[used..];
        }
        out.push_str(rest);
        out
    }

    /// The expansion of the token at the start of `s` and its length; `None` keeps it as is.
    fn token(&self, s: &str) -> (Option<String>, usize) {
        if let Some(after) = s.strip_prefix("{{")
            && let Some(end) = after.find("}}")
        {
            let value = match after[..end].trim() {
                "prompt" => Some(self.prompt.to_owned()),
                "tool_result" => Some(self.tool_result.clone()),
                "tool_name" => Some(self.tool_name.clone()),
                _ => None,
            };
            return (value, end + 4);
        }
        if s.starts_with("$$") {
            return (Some("$".to_owned()), 2);
        }
        if let Some(after) = s.strip_prefix("${")
            && let Some(end) = after.find('}')
        {
            return (Some(self.group(&after[..end])), end + 3);
        }
        if let Some(after) = s.strip_prefix('$') {
            let digits = after.chars().take_while(char::is_ascii_digit).count();
            if digits > 0 {
                return (Some(self.group(&after[..digits])), digits + 1);
            }
        }
        (None, 1)
    }

    /// A capture group by number or name; empty when absent (as `regex` does).
    fn group(&self, key: &str) -> String {
        let Some(caps) = &self.captures else {
            return String::new();
        };
        let m = match key.parse::<usize>() {
            Ok(i) => caps.get(i),
            Err(_) => caps.name(key),
        };
        m.map_or_else(String::new, |m| m.as_str().to_owned())
    }

    /// Expands every string (keys included) inside a JSON value.
    pub(super) fn expand_value(&self, v: &Value) -> Value {
        match v {
            Value::String(s) => Value::String(self.expand(s)),
            Value::Array(items) => {
                Value::Array(items.iter().map(|i| self.expand_value(i)).collect())
            }
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| (self.expand(k), self.expand_value(v)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use regex::Regex;

    #[test]
    fn captures_and_placeholders_expand_once() {
        let re = Regex::new(r"^Run: (?P<cmd>.+)$").unwrap();
        let prompt = "Run: echo {{tool_result}} $1";
        let vars = Vars {
            prompt,
            tool_result: "R".into(),
            tool_name: "shell".into(),
            captures: re.captures(prompt),
        };
        assert_eq!(
            vec![
                vars.expand(
                    "[$1] [${cmd}] [${missing}] $$5 {{tool_name}}={{tool_result}} {{nope}} { $"
                ),
                vars.expand("{{prompt}}"),
            ],
            vec![
                "[echo {{tool_result}} $1] [echo {{tool_result}} $1] [] $5 shell=R {{nope}} { $",
                "Run: echo {{tool_result}} $1",
            ]
        );
    }
}
