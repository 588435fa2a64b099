//! `type: open_url`: docker-agent's one tool (named `open_url`, or the toolset's `name`) that
//! opens the page fixed by the toolset's `url` in the user's browser; the model only calls it.
//! The URL's `${env.NAME}` expands at call time; it must then be an `http`, `https` or `mailto`
//! URL, never one that could read as an option to the opener. The opener (`xdg-open` on
//! Linux and the BSDs, `open` on macOS) runs through `tether-exec` with the URL as its only
//! argument. Where no browser can be shown (no graphical display, no opener), the answer says
//! so as an error instead of claiming the page was opened.

use std::ffi::OsString;
use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::{Map, Value, json};
use tether_exec::{ExecSpec, find_in_path};

use crate::net::expand;
use crate::schema::object;
use crate::{Tool, ToolContext, ToolDefinition, ToolResult};

const OPENER_TIMEOUT: Duration = Duration::from_secs(10);

/// The toolset's system-prompt text.
pub fn open_url_instruction(name: &str, url: &str) -> String {
    format!(
        "## Open URL Tool\n\nUse the \"{name}\" tool to open {url} in the user's default browser."
    )
}

/// The `open_url` tool.
#[derive(Debug)]
pub struct OpenUrlTool {
    definition: ToolDefinition,
    url: String,
}

impl OpenUrlTool {
    pub fn new(name: Option<&str>, url: &str) -> Self {
        Self {
            definition: ToolDefinition {
                name: name.unwrap_or("open_url").to_owned(),
                description: format!(
                    "Open the URL \"{url}\" in the user's default browser. Takes no arguments — the URL is fixed by the tool's configuration."
                ),
                parameters: object(json!({}), &[]),
                read_only: false,
                category: "open_url",
            },
            url: url.to_owned(),
        }
    }

    async fn open(&self, ctx: ToolContext<'_>) -> Result<String, String> {
        let url = expand(&self.url, None, false)?;
        check(&url)?;
        let fail = |why: String| format!("failed to open {url}: {why}");
        let (program, needs_display) = match std::env::consts::OS {
            "macos" => ("open", false),
            "windows" => return Err(fail("opening a browser on Windows is not supported".into())),
            _ => ("xdg-open", true),
        };
        let has = |name: &str| {
            std::env::var_os(name).is_some_and(|v| !v.is_empty())
                || ctx.env.iter().any(|(k, v)| k == name && !v.is_empty())
        };
        if needs_display && !has("DISPLAY") && !has("WAYLAND_DISPLAY") {
            return Err(fail(
                "no browser can be shown here (no graphical display: `DISPLAY` and `WAYLAND_DISPLAY` are unset); the page was not opened".into(),
            ));
        }
        let path = std::env::var("PATH").unwrap_or_default();
        let Some(opener) = find_in_path(program, &path) else {
            return Err(fail(format!(
                "`{program}` is not installed, so no browser can be opened; the page was not opened"
            )));
        };
        let mut spec = ExecSpec::new(opener.into_os_string(), ctx.working_dir);
        spec.args = vec![OsString::from(&url)];
        spec.env = ctx.env.to_vec();
        spec.timeout = Some(OPENER_TIMEOUT);
        spec.cancel = Some(ctx.cancel.clone());
        spec.output_cap = 64 * 1024;
        let record = tether_exec::run(spec).await;
        if let Some(why) = record.spawn_error {
            return Err(fail(why));
        }
        if record.exit_code != Some(0) {
            let stderr = record.stderr.lossy();
            let stderr = stderr.trim();
            let how = match (record.exit_code, record.timed_out) {
                (_, true) => format!("`{program}` did not finish within 10s"),
                (Some(code), _) => format!("`{program}` exited with status {code}"),
                (None, _) => format!("`{program}` was killed"),
            };
            return Err(fail(if stderr.is_empty() {
                how
            } else {
                format!("{how}: {stderr}")
            }));
        }
        Ok(format!("Opened {url}"))
    }
}

/// The expanded URL may be handed to the opener: a scheme it should open, nothing that reads
/// as an option.
fn check(url: &str) -> Result<(), String> {
    if url.starts_with('-') || url.chars().any(char::is_control) {
        return Err(format!("refusing to open {url:?}: not a URL"));
    }
    match reqwest::Url::parse(url) {
        Ok(u) if matches!(u.scheme(), "http" | "https" | "mailto") => Ok(()),
        Ok(u) => Err(format!(
            "refusing to open {url}: only http, https and mailto URLs are opened, not `{}:`",
            u.scheme()
        )),
        Err(e) => Err(format!("refusing to open {url:?}: {e}")),
    }
}

impl Tool for OpenUrlTool {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn call<'a>(
        &'a self,
        _args: &'a Map<String, Value>,
        ctx: ToolContext<'a>,
    ) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            match self.open(ctx).await {
                Ok(text) => ToolResult::ok(text),
                Err(why) => ToolResult::error(why),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_web_and_mail_urls_reach_the_opener() {
        assert_eq!(check("https://docs.docker.com/x?y=1"), Ok(()));
        assert_eq!(check("mailto:a@example.com"), Ok(()));
        for bad in [
            "--help",
            "-x https://a",
            "file:///etc/passwd",
            "javascript:alert(1)",
            "docs",
        ] {
            assert!(check(bad).is_err(), "{bad}");
        }
    }
}
