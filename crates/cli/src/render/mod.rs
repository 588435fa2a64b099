//! Renderers: event sinks that turn runtime events into terminal output.

mod exec;
mod json;

pub(crate) use exec::ExecSink;
pub(crate) use json::JsonSink;

use serde_json::Value;

/// `key: json-value, …` with keys sorted (docker-agent's `Calling NAME(…)` line).
pub(crate) fn call_arguments(args: &Value) -> String {
    match args {
        Value::Object(map) => map
            .iter()
            .map(|(k, v)| format!("{k}: {v}"))
            .collect::<Vec<_>>()
            .join(", "),
        Value::Null => String::new(),
        other => other.to_string(),
    }
}

/// A hook's name, or the first line of its shell text that says something (not blank, a
/// comment or `INPUT=$(cat)`), cut to 60 characters; ` …` marks anything left out.
pub(crate) fn short_command(text: &str) -> String {
    let first = text
        .lines()
        .map(str::trim)
        .find(|l| !l.is_empty() && !l.starts_with('#') && !l.ends_with("=$(cat)"))
        .unwrap_or("");
    let short: String = first.chars().take(60).collect();
    if text.trim().lines().count() > 1 || short.len() < first.len() {
        format!("{short} …")
    } else {
        short
    }
}

/// `` `NAME` `` with a leading space for a blocked-by line, or nothing for an unnamed hook.
pub(crate) fn blocking_hook(hook: &str) -> String {
    if hook.is_empty() {
        String::new()
    } else {
        format!(" `{}`", short_command(hook))
    }
}

/// A string as a JSON literal (quotes and escapes), for `NAME response → "…"`.
pub(crate) fn json_string(s: &str) -> String {
    serde_json::to_string(s).unwrap_or_else(|_| format!("{s:?}"))
}

/// `… name: 3/10 (30%) message` for a tool's progress report.
pub(crate) fn progress_text(
    name: &str,
    progress: f64,
    total: Option<f64>,
    message: Option<&str>,
) -> String {
    let mut text = format!("… {name}: {progress}");
    if let Some(t) = total.filter(|t| *t > 0.0) {
        let pct = (progress / t * 100.0).clamp(0.0, 100.0);
        text.push_str(&format!("/{t} ({pct:.0}%)"));
    }
    if let Some(m) = message.filter(|m| !m.is_empty()) {
        text.push(' ');
        text.push_str(m);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_reads_as_a_fraction_with_its_message() {
        assert_eq!(
            progress_text("t", 3.0, Some(10.0), Some("step")),
            "… t: 3/10 (30%) step"
        );
        assert_eq!(progress_text("t", 2.5, None, None), "… t: 2.5");
    }
    use serde_json::json;

    #[test]
    fn call_lines_match_docker_agent() {
        assert_eq!(
            call_arguments(&json!({"path": "testdata/working_dir"})),
            r#"path: "testdata/working_dir""#
        );
        assert_eq!(
            call_arguments(&json!({"b": 1, "a": [1, 2]})),
            "a: [1,2], b: 1"
        );
        assert_eq!(json_string("FILE README.me\n"), r#""FILE README.me\n""#);
        assert_eq!(short_command("guard"), "guard");
        assert_eq!(
            short_command("INPUT=$(cat)\n# why\nCMD=$(x)\n"),
            "CMD=$(x) …"
        );
    }
}
