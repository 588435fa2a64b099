//! Variable expansion in the settings of servers Tether starts (MCP, LSP), as docker-agent
//! does it: `${env.NAME}` everywhere (its canonical form), `${NAME}` too, and in `env` values
//! and `working_dir` also shell-style `$NAME` and a leading `~`. A variable that is not set is an error naming it, so a missing
//! token is never sent as an empty `Bearer `.

/// Where variables come from.
pub trait Lookup: Send + Sync {
    fn var(&self, name: &str) -> Option<String>;
}

/// This process's environment.
#[derive(Debug, Clone, Copy, Default)]
pub struct ProcessEnv;

impl Lookup for ProcessEnv {
    fn var(&self, name: &str) -> Option<String> {
        std::env::var(name).ok()
    }
}

impl<F: Fn(&str) -> Option<String> + Send + Sync> Lookup for F {
    fn var(&self, name: &str) -> Option<String> {
        self(name)
    }
}

fn is_name_char(c: char, first: bool) -> bool {
    c == '_' || c.is_ascii_alphabetic() || (!first && c.is_ascii_digit())
}

/// Expands `${env.NAME}` and `${NAME}`; with `shell`, also `$NAME` and a leading `~/`.
pub fn expand(value: &str, lookup: &dyn Lookup, shell: bool) -> Result<String, String> {
    let mut out = String::with_capacity(value.len());
    let mut rest = value;
    if shell && (rest == "~" || rest.starts_with("~/")) {
        let home = lookup
            .var("HOME")
            .ok_or_else(|| "`~` needs HOME, which is not set".to_owned())?;
        out.push_str(&home);
        rest = &rest[1..];
    }
    while let Some(at) = rest.find('$') {
        out.push_str(&rest[..at]);
        let after = &rest[at + 1..];
        if let Some(inner) = after.strip_prefix('{') {
            let end = inner
                .find('}')
                .ok_or_else(|| format!("unterminated `${{` in `{value}`"))?;
            let name = &inner[..end];
            let name = name.strip_prefix("env.").unwrap_or(name);
            out.push_str(&get(lookup, name)?);
            rest = &inner[end + 1..];
        } else if shell && after.starts_with(|c| is_name_char(c, true)) {
            let len = after
                .find(|c| !is_name_char(c, false))
                .unwrap_or(after.len());
            out.push_str(&get(lookup, &after[..len])?);
            rest = &after[len..];
        } else {
            out.push('$');
            rest = after;
        }
    }
    out.push_str(rest);
    Ok(out)
}

fn get(lookup: &dyn Lookup, name: &str) -> Result<String, String> {
    lookup
        .var(name)
        .ok_or_else(|| format!("environment variable `{name}` is not set"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env(name: &str) -> Option<String> {
        match name {
            "TOKEN" => Some("s3cret".into()),
            "HOME" => Some("/home/me".into()),
            "EMPTY" => Some(String::new()),
            _ => None,
        }
    }

    #[test]
    fn every_documented_form_expands() {
        let cases = [
            ("Bearer ${env.TOKEN}", false, "Bearer s3cret"),
            ("Bearer ${TOKEN}", false, "Bearer s3cret"),
            ("$TOKEN stays", false, "$TOKEN stays"),
            ("$TOKEN-x", true, "s3cret-x"),
            ("~/srv", true, "/home/me/srv"),
            ("~/srv", false, "~/srv"),
            ("a~b", true, "a~b"),
            ("cost $5 and ${EMPTY}.", true, "cost $5 and ."),
            ("no refs", true, "no refs"),
        ];
        for (value, shell, want) in cases {
            assert_eq!(expand(value, &env, shell).as_deref(), Ok(want), "{value}");
        }
    }

    #[test]
    fn an_unset_variable_is_named() {
        assert_eq!(
            expand("Bearer ${env.HA_TOKEN}", &env, false),
            Err("environment variable `HA_TOKEN` is not set".to_owned())
        );
        assert_eq!(
            expand("$MISSING", &env, true),
            Err("environment variable `MISSING` is not set".to_owned())
        );
        assert!(
            expand("${env.X", &env, false)
                .unwrap_err()
                .contains("unterminated")
        );
    }
}
