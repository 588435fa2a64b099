//! `type: mcp_catalog`: docker-agent's remote MCP servers enabled on demand
//! (`search_remote_mcp_servers`, `list_remote_mcp_servers`, `enable_remote_mcp_server`, and
//! once one is enabled `disable_remote_mcp_server` and `reset_remote_mcp_server_auth`).
//!
//! docker-agent embeds its catalog in its binary; Tether has no copy of it, so the catalog is
//! the Docker MCP Catalog document (`TETHER_MCP_CATALOG`, a file or URL, else Docker's URL,
//! cached as `ref: docker:` caches it), read on the first call. Only its `remote` entries over
//! Streamable HTTP are offered, filtered by the toolset's `allowed_servers` / `blocked_servers`.
//! An unreachable catalog is an error naming it. An enabled server is an ordinary
//! [`McpServer`] whose tools are `ID_tool`; one that needs OAuth is refused, since Tether has
//! no OAuth flow, and nothing is reported as enabled that did not connect.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, PoisonError, RwLock};

use futures::future::BoxFuture;
use serde::{Deserialize, Serialize};
use serde_json::{Map, Value, json};
use tether_config::{Lifecycle, McpServer as ServerConfig, McpTransport, RemoteTransport};
use tether_tools::{Tool, ToolContext, ToolDefinition, ToolResult};
use tokio::sync::OnceCell;

use crate::gateway::{CATALOG_ENV, CATALOG_URL, catalog_text};
use crate::server::{McpContext, McpServer};

const SEARCH: &str = "search_remote_mcp_servers";
const LIST: &str = "list_remote_mcp_servers";
const ENABLE: &str = "enable_remote_mcp_server";
const DISABLE: &str = "disable_remote_mcp_server";
const RESET_AUTH: &str = "reset_remote_mcp_server_auth";

/// The toolset's system-prompt text.
pub const CATALOG_INSTRUCTION: &str = "## Remote MCP Catalog\n\nYou have access to a catalog of remote MCP servers (streamable-http only). They are NOT active by default.\n\nWorkflow:\n  1. Call search_remote_mcp_servers with a keyword to discover matching servers.\n  2. Call enable_remote_mcp_server with the server's \"id\" to activate it. On success its tools (names prefixed with the server's id and an underscore) are live: continue with the user's original request using them. On error nothing was activated: act on the reason given and do not call any \"<id>_...\" tools.\n  3. Call disable_remote_mcp_server to remove a server when no longer needed.\n\nPrefer enabling only the servers you actually need: every server adds tools to the prompt.";

/// One offered server.
#[derive(Debug, Clone, Serialize)]
struct Entry {
    id: String,
    title: String,
    description: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    category: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    tags: Vec<String>,
    auth: &'static str,
    url: String,
}

#[derive(Debug, Deserialize)]
struct CatalogFile {
    #[serde(default)]
    registry: BTreeMap<String, CatalogServer>,
}

#[derive(Debug, Default, Deserialize)]
struct CatalogServer {
    #[serde(rename = "type", default)]
    kind: String,
    #[serde(default)]
    title: String,
    #[serde(default)]
    description: String,
    #[serde(default)]
    category: String,
    #[serde(default)]
    tags: Vec<String>,
    #[serde(default)]
    metadata: Option<CatalogMetadata>,
    #[serde(default)]
    remote: Option<CatalogRemote>,
    #[serde(default)]
    oauth: Option<serde_json::Value>,
}

#[derive(Debug, Default, Deserialize)]
struct CatalogMetadata {
    #[serde(default)]
    category: String,
    #[serde(default)]
    tags: Vec<String>,
}

#[derive(Debug, Deserialize)]
struct CatalogRemote {
    url: String,
    #[serde(default)]
    transport_type: String,
}

/// The offered servers of catalog `text`, sorted by id.
fn offered(
    text: &str,
    source: &str,
    allowed: &[String],
    blocked: &[String],
) -> Result<Vec<Entry>, String> {
    let file: CatalogFile = serde_saphyr::from_str(text)
        .map_err(|e| format!("the MCP catalog `{source}` cannot be read: {e}"))?;
    let mut out = Vec::new();
    for (id, s) in file.registry {
        let Some(remote) = s.remote else { continue };
        let streamable = matches!(
            remote.transport_type.as_str(),
            "" | "streamable-http" | "streamable" | "http"
        );
        if s.kind != "remote" || !streamable || remote.url.trim().is_empty() {
            continue;
        }
        if (!allowed.is_empty() && !allowed.contains(&id)) || blocked.contains(&id) {
            continue;
        }
        let meta = s.metadata.unwrap_or_default();
        let oauth = s
            .oauth
            .as_ref()
            .is_some_and(|o| !o.is_null() && o != &json!({}) && o != &json!([]));
        out.push(Entry {
            title: if s.title.is_empty() {
                id.clone()
            } else {
                s.title
            },
            id,
            description: s.description,
            category: if s.category.is_empty() {
                meta.category
            } else {
                s.category
            },
            tags: if s.tags.is_empty() { meta.tags } else { s.tags },
            auth: if oauth { "oauth" } else { "none" },
            url: remote.url,
        });
    }
    Ok(out)
}

fn matches(e: &Entry, q: &str) -> bool {
    [&e.id, &e.title, &e.description, &e.category]
        .into_iter()
        .chain(&e.tags)
        .any(|f| f.to_lowercase().contains(q))
}

/// The toolset: its catalog (read once) and the servers enabled from it.
#[derive(Debug)]
pub struct CatalogToolset {
    allowed: Vec<String>,
    blocked: Vec<String>,
    ctx: McpContext,
    catalog: OnceCell<Result<Vec<Entry>, String>>,
    enabled: RwLock<BTreeMap<String, Arc<McpServer>>>,
    generation: AtomicU64,
    meta: Vec<Arc<dyn Tool>>,
}

impl CatalogToolset {
    pub fn new(cfg: &tether_config::Toolset, ctx: McpContext) -> Arc<Self> {
        Arc::new_cyclic(|me| {
            let meta = [
                (SEARCH, "Search the MCP catalog for remote streamable-http MCP servers matching a keyword. Returns id, title, description, auth requirements and category for each hit.", json!({"query": {"type": "string", "description": "Search keyword (matches id, title, description, category and tags; case-insensitive). Leave empty to list every catalog server."}}), &["query"][..], true),
                (LIST, "List currently enabled remote MCP servers and their connection state.", json!({}), &[][..], true),
                (ENABLE, "Activate a remote MCP server from the catalog by id. Blocks until the connection completes; on success the server's tools are immediately available and you should continue with the user's original request using them.", json!({"id": {"type": "string", "description": "Catalog id of the server to enable (use search_remote_mcp_servers to find it)."}}), &["id"][..], false),
                (DISABLE, "Disable a previously enabled remote MCP server, dropping its tools from the active set.", json!({"id": {"type": "string", "description": "Catalog id of the server to disable."}}), &["id"][..], false),
                (RESET_AUTH, "Clear any persisted credentials for a catalog server so the next enable starts a fresh connection. Use when a previously enabled server starts rejecting requests. No-op for servers with no persisted credentials.", json!({"id": {"type": "string", "description": "Catalog id of the server whose persisted credentials should be cleared."}}), &["id"][..], false),
            ]
            .into_iter()
            .map(|(name, description, properties, required, read_only)| {
                Arc::new(MetaTool {
                    definition: ToolDefinition {
                        name: name.to_owned(),
                        description: description.to_owned(),
                        parameters: json!({"additionalProperties": false, "properties": properties, "required": required, "type": "object"}),
                        read_only,
                        category: "mcp_catalog",
                    },
                    set: me.clone(),
                }) as Arc<dyn Tool>
            })
            .collect();
            Self {
                allowed: cfg.allowed_servers.clone(),
                blocked: cfg.blocked_servers.clone(),
                ctx,
                catalog: OnceCell::new(),
                enabled: RwLock::new(BTreeMap::new()),
                generation: AtomicU64::new(0),
                meta,
            }
        })
    }

    /// The meta-tools (disable and reset only once a server is enabled), then every enabled
    /// server's tools, by id.
    pub fn tools(&self) -> Vec<Arc<dyn Tool>> {
        let enabled = self.enabled.read().unwrap_or_else(PoisonError::into_inner);
        let meta = if enabled.is_empty() { 3 } else { 5 };
        let mut tools: Vec<Arc<dyn Tool>> = self.meta[..meta].to_vec();
        for server in enabled.values() {
            tools.extend(server.tools().iter().cloned());
        }
        tools
    }

    /// Bumped whenever [`Self::tools`] may have changed.
    pub fn generation(&self) -> u64 {
        let servers: u64 = self
            .enabled
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .values()
            .map(|s| s.generation())
            .sum();
        self.generation
            .load(Ordering::Acquire)
            .wrapping_add(servers)
    }

    /// Stops every enabled server.
    pub async fn stop(&self) {
        let servers: Vec<Arc<McpServer>> =
            std::mem::take(&mut *self.enabled.write().unwrap_or_else(PoisonError::into_inner))
                .into_values()
                .collect();
        futures::future::join_all(servers.iter().map(|s| s.stop())).await;
    }

    async fn entries(&self) -> Result<&[Entry], String> {
        let loaded = self
            .catalog
            .get_or_init(|| async {
                let source = self
                    .ctx
                    .lookup
                    .var(CATALOG_ENV)
                    .filter(|s| !s.trim().is_empty())
                    .unwrap_or_else(|| CATALOG_URL.to_owned());
                let text = catalog_text(&source, self.ctx.cache_dir.as_deref()).await?;
                offered(&text, &source, &self.allowed, &self.blocked)
            })
            .await;
        loaded
            .as_deref()
            .map_err(|e| format!("the MCP catalog is unavailable: {e}"))
    }

    fn changed(&self) {
        self.generation.fetch_add(1, Ordering::AcqRel);
    }

    fn server(&self, id: &str) -> Option<Arc<McpServer>> {
        self.enabled
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .get(id)
            .cloned()
    }

    async fn search(&self, query: &str) -> Result<String, String> {
        let q = query.trim().to_lowercase();
        let entries = self.entries().await?;
        let hits: Vec<Value> = entries
            .iter()
            .filter(|e| q.is_empty() || matches(e, &q))
            .map(|e| {
                let mut v = serde_json::to_value(e).unwrap_or_default();
                v["enabled"] = json!(self.server(&e.id).is_some());
                v
            })
            .collect();
        if hits.is_empty() {
            return Err(format!(
                "no remote MCP servers match {query:?} (catalog has {} entries)",
                entries.len()
            ));
        }
        Ok(format!(
            "found {} server(s):\n{}",
            hits.len(),
            Value::Array(hits)
        ))
    }

    async fn list(&self) -> String {
        let enabled: Vec<(String, Arc<McpServer>)> = self
            .enabled
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .iter()
            .map(|(k, v)| (k.clone(), Arc::clone(v)))
            .collect();
        let entries = self.entries().await.unwrap_or_default();
        let mut rows = Vec::new();
        for (id, server) in enabled {
            let entry = entries.iter().find(|e| e.id == id);
            let started = matches!(server.status().await, crate::Status::Ready);
            rows.push(json!({
                "id": id,
                "title": entry.map(|e| e.title.as_str()).unwrap_or_default(),
                "url": entry.map(|e| e.url.as_str()).unwrap_or_default(),
                "auth": entry.map_or("none", |e| e.auth),
                "started": started,
            }));
        }
        format!("{} enabled server(s):\n{}", rows.len(), Value::Array(rows))
    }

    async fn enable(&self, id: &str) -> Result<String, String> {
        let entries = self.entries().await?;
        let Some(entry) = entries.iter().find(|e| e.id == id) else {
            return Err(format!(
                "unknown server id {id:?} (use {SEARCH} first to discover available ids)"
            ));
        };
        if self.server(id).is_some() {
            return Ok(format!(
                "server {id:?} is already enabled and connected. Its tools (names starting with {:?}) are live; proceed with the user's original request using them.",
                format!("{id}_")
            ));
        }
        if entry.auth == "oauth" {
            return Err(format!(
                "cannot enable {id:?} ({}): it needs an OAuth authorization, which Tether does not support yet. No tools were activated — do NOT claim the server is connected; tell the user",
                entry.title
            ));
        }
        let cfg = ServerConfig {
            label: Some(id.to_owned()),
            transport: McpTransport::Remote {
                url: entry.url.clone(),
                transport: RemoteTransport::Streamable,
                headers: Vec::new(),
            },
            lifecycle: Lifecycle::default(),
        };
        let server = Arc::new(McpServer::new(cfg, Some(id.to_owned()), self.ctx.clone()));
        if let Err(e) = server.start().await {
            server.stop().await;
            return Err(format!(
                "failed to connect to {id:?} ({}): {e}. No tools were activated — do NOT claim the server is connected. Report the failure to the user",
                entry.title
            ));
        }
        self.enabled
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(id.to_owned(), server);
        self.changed();
        Ok(format!(
            "enabled {id:?} ({}). Its tools (names starting with {:?}) are now active. Proceed with the user's original request using them right away; do not stop to ask for confirmation.",
            entry.title,
            format!("{id}_")
        ))
    }

    async fn disable(&self, id: &str) -> Result<String, String> {
        let removed = self
            .enabled
            .write()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(id);
        let Some(server) = removed else {
            return Err(format!("server {id:?} is not enabled"));
        };
        server.stop().await;
        self.changed();
        Ok(format!("disabled {id:?}"))
    }

    async fn reset_auth(&self, id: &str) -> Result<String, String> {
        let entries = self.entries().await?;
        if !entries.iter().any(|e| e.id == id) {
            return Err(format!(
                "unknown server id {id:?} (use {SEARCH} first to discover available ids)"
            ));
        }
        // Tether keeps no credentials for catalog servers (it has no OAuth flow).
        Ok(format!(
            "server {id:?} has no persisted credentials — nothing to reset."
        ))
    }
}

/// One meta-tool; it reaches its toolset through a weak link (the toolset owns it).
#[derive(Debug)]
struct MetaTool {
    definition: ToolDefinition,
    set: std::sync::Weak<CatalogToolset>,
}

impl Tool for MetaTool {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn call<'a>(
        &'a self,
        args: &'a Map<String, Value>,
        _ctx: ToolContext<'a>,
    ) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            let Some(set) = self.set.upgrade() else {
                return ToolResult::error("the MCP catalog was stopped");
            };
            let text = |key: &str| {
                args.get(key)
                    .and_then(Value::as_str)
                    .unwrap_or_default()
                    .trim()
                    .to_owned()
            };
            let result = match self.definition.name.as_str() {
                SEARCH => set.search(&text("query")).await,
                LIST => Ok(set.list().await),
                ENABLE => set.enable(&text("id")).await,
                DISABLE => set.disable(&text("id")).await,
                _ => set.reset_auth(&text("id")).await,
            };
            match result {
                Ok(text) => ToolResult::ok(text),
                Err(why) => ToolResult::error(why),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const CATALOG: &str = "registry:\n  docs:\n    type: remote\n    title: Docker Docs\n    description: Search the docs\n    metadata: {category: documentation, tags: [docs, search]}\n    remote: {url: https://docs.example.com/mcp, transport_type: streamable-http}\n  notion:\n    type: remote\n    title: Notion\n    description: Notes\n    remote: {url: https://notion.example.com/mcp}\n    oauth: {providers: [{provider: notion}]}\n  old:\n    type: remote\n    remote: {url: https://old.example.com/sse, transport_type: sse}\n  local:\n    type: server\n    image: mcp/local\n";

    #[test]
    fn only_streamable_remote_servers_are_offered_with_their_auth() {
        let all = offered(CATALOG, "c.yaml", &[], &[]).unwrap();
        let ids: Vec<&str> = all.iter().map(|e| e.id.as_str()).collect();
        assert_eq!(ids, ["docs", "notion"]);
        assert_eq!(all[0].category, "documentation");
        assert_eq!(all[0].tags, ["docs", "search"]);
        assert_eq!((all[0].auth, all[1].auth), ("none", "oauth"));
        assert!(matches(&all[0], "search"));
        assert!(!matches(&all[1], "search"));
    }

    #[test]
    fn blocked_servers_win_over_allowed_ones() {
        let allowed = ["docs".to_owned(), "notion".to_owned()];
        let some = offered(CATALOG, "c.yaml", &allowed, &["notion".to_owned()]).unwrap();
        assert_eq!(some.len(), 1);
        assert_eq!(some[0].id, "docs");
        let err = offered("registry: [", "c.yaml", &[], &[]).unwrap_err();
        assert!(
            err.starts_with("the MCP catalog `c.yaml` cannot be read"),
            "{err}"
        );
    }
}
