//! The options of the small built-in toolsets: `webhook_config` of `type: webhook`, `url`
//! of `type: open_url`, `recall` of `type: background_jobs` and the server lists of
//! `type: mcp_catalog`. Both URLs are fixed by the agent file (`${env.NAME}` expands when a
//! tool runs), so the model never chooses where a message goes or which page opens.

use serde_saphyr::Spanned;

use super::Validator;
use super::toolset_options::placeholder_free;
use crate::WebhookConfig;
use crate::diagnostic::Origin;
use crate::mcp::check_references;
use crate::raw::{RawToolset, RawWebhookConfig};
use crate::toolset::ToolsetKind;

impl Validator<'_> {
    /// `recall` (background jobs) and `allowed_servers` / `blocked_servers` (MCP catalog),
    /// each refused on any other type; returns the two server lists.
    pub(super) fn catalog_options(
        &mut self,
        path: &str,
        kind: ToolsetKind,
        t: &mut RawToolset,
    ) -> (Vec<String>, Vec<String>) {
        if let Some(r) = t.recall.take() {
            if kind != ToolsetKind::BackgroundJobs {
                self.wrong_type(
                    path,
                    &r.referenced,
                    "recall",
                    "`type: background_jobs`",
                    kind,
                );
            } else if r.value {
                self.error_hint(
                    self.origin(&r.referenced, format!("{path}.recall")),
                    "`recall` is not supported yet: Tether cannot deliver a finished job's output to the agent by itself",
                    "remove it; the agent reads a job's output with `view_background_job`",
                );
            }
        }
        let list = |this: &mut Self, key: &str, raw: Option<Spanned<Vec<Spanned<String>>>>| {
            let raw = raw?;
            if kind != ToolsetKind::McpCatalog {
                this.wrong_type(path, &raw.referenced, key, "`type: mcp_catalog`", kind);
                return None;
            }
            Some(
                raw.value
                    .into_iter()
                    .map(|id| id.value.trim().to_owned())
                    .filter(|id| !id.is_empty())
                    .collect(),
            )
        };
        let allowed = list(self, "allowed_servers", t.allowed_servers.take()).unwrap_or_default();
        let blocked = list(self, "blocked_servers", t.blocked_servers.take()).unwrap_or_default();
        (allowed, blocked)
    }

    /// `webhook_config:`, required on `type: webhook` and refused on any other type.
    pub(super) fn webhook_option(
        &mut self,
        path: &str,
        kind: ToolsetKind,
        origin: &Origin,
        raw: Option<Spanned<RawWebhookConfig>>,
    ) -> Option<WebhookConfig> {
        match raw {
            Some(raw) if kind != ToolsetKind::Webhook => {
                self.wrong_type(
                    path,
                    &raw.referenced,
                    "webhook_config",
                    "`type: webhook`",
                    kind,
                );
                None
            }
            Some(raw) => self.webhook_config(&format!("{path}.webhook_config"), raw),
            None if kind == ToolsetKind::Webhook => {
                self.error_hint(
                    origin.clone(),
                    "webhook tool requires a url in webhook_config",
                    "e.g. `webhook_config: {provider: slack, url: \"${env.SLACK_WEBHOOK_URL}\"}`",
                );
                None
            }
            None => None,
        }
    }

    fn webhook_config(
        &mut self,
        path: &str,
        raw: Spanned<RawWebhookConfig>,
    ) -> Option<WebhookConfig> {
        let at = self.origin(&raw.referenced, path);
        let w = raw.value;
        let before = self.diags.len();
        let provider = match &w.provider {
            Some(p) => match WebhookConfig::provider_named(&p.value) {
                Some(known) => known,
                None => {
                    self.error_hint(
                        self.origin(&p.referenced, format!("{path}.provider")),
                        format!("webhook tool: unknown provider `{}`", p.value),
                        format!("supported: {}", WebhookConfig::PROVIDERS.join(", ")),
                    );
                    "generic"
                }
            },
            None => "generic",
        };
        let url = match w.url.filter(|u| !u.value.trim().is_empty()) {
            Some(u) => self.fixed_url(&format!("{path}.url"), &u),
            None => {
                self.error(at.clone(), "webhook tool requires a url in webhook_config");
                None
            }
        };
        let headers = w
            .headers
            .map(|h| self.headers(&format!("{path}.headers"), h))
            .unwrap_or_default();
        let chat_id = w
            .chat_id
            .map(|c| c.value.0)
            .filter(|c| !c.trim().is_empty());
        if provider == "telegram" && chat_id.is_none() {
            self.error(
                at,
                "webhook tool: provider telegram requires chat_id in webhook_config",
            );
        }
        if self.diags.len() > before {
            return None;
        }
        Some(WebhookConfig {
            provider: provider.to_owned(),
            url: url?,
            headers,
            chat_id,
        })
    }

    /// A URL fixed in the agent file: `http(s)://` (checked with placeholders stood in for) or
    /// one that is all `${env.NAME}` (checked when the tool runs).
    pub(super) fn fixed_url(&mut self, path: &str, u: &Spanned<String>) -> Option<String> {
        let at = self.origin(&u.referenced, path);
        if let Err(why) = check_references(&u.value) {
            self.error(at, why);
            return None;
        }
        if u.value.trim_start().starts_with("${") {
            return Some(u.value.clone());
        }
        if let Err(why) = super::check_url(placeholder_free(&u.value).trim()) {
            self.error(at, format!("invalid url `{}`: {why}", u.value));
            return None;
        }
        Some(u.value.clone())
    }
}
