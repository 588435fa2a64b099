//! `ref: docker:NAME`: servers from the Docker MCP Catalog, run by the Docker MCP Gateway
//! (`docker mcp gateway run`), as docker-agent runs them.
//!
//! The catalog says what a server needs: the secrets it reads (each from an environment
//! variable) and whether it is a remote endpoint (then we connect to it directly). The gateway
//! is always given our own catalog, secrets and config files, never the user's Docker Desktop
//! settings, so an agent file behaves the same on every machine.

use std::os::unix::fs::OpenOptionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde::Deserialize;
use std::collections::BTreeMap;
use tether_config::RemoteTransport;

use crate::{Lookup, expand};

/// The catalog docker-agent reads.
pub const CATALOG_URL: &str = "https://desktop.docker.com/mcp/catalog/v3/catalog.yaml";

/// A different catalog (URL or file), for machines without access to Docker's and for tests.
pub const CATALOG_ENV: &str = "TETHER_MCP_CATALOG";

/// How long a downloaded catalog is used before it is fetched again.
const CATALOG_TTL: Duration = Duration::from_secs(24 * 60 * 60);

const INSTALL_HINT: &str = "install Docker Desktop (it includes the MCP Toolkit), or Docker Engine with the `docker mcp` CLI plugin from https://github.com/docker/mcp-gateway";

/// How to reach a catalog server.
#[derive(Debug)]
pub(crate) enum Launch {
    /// The catalog lists it as a remote endpoint.
    Remote {
        url: String,
        transport: RemoteTransport,
    },
    /// `docker ARGS` with these variables; the files are removed when it stops.
    Process {
        args: Vec<String>,
        env: Vec<(String, String)>,
        temp_files: Vec<PathBuf>,
    },
}

#[derive(Debug, Deserialize)]
struct CatalogFile {
    registry: BTreeMap<String, CatalogServer>,
}

#[derive(Debug, Deserialize)]
struct CatalogServer {
    #[serde(rename = "type", default)]
    kind: String,
    #[serde(default)]
    secrets: Vec<CatalogSecret>,
    #[serde(default)]
    remote: Option<CatalogRemote>,
}

#[derive(Debug, Deserialize)]
struct CatalogSecret {
    name: String,
    env: String,
}

#[derive(Debug, Deserialize)]
struct CatalogRemote {
    url: String,
    #[serde(default)]
    transport_type: String,
}

/// Checks Docker, reads the catalog entry, and writes the gateway's secrets and config.
pub(crate) async fn prepare(
    server: &str,
    config: Option<&serde_json::Value>,
    env: &[(String, String)],
    lookup: &dyn Lookup,
    cache_dir: Option<&Path>,
) -> Result<Launch, String> {
    check_docker(lookup).await?;
    let source = lookup
        .var(CATALOG_ENV)
        .unwrap_or_else(|| CATALOG_URL.to_owned());
    let entry = catalog_entry(server, &source, cache_dir).await?;
    if entry.kind == "remote"
        && let Some(remote) = entry.remote
    {
        let transport = if remote.transport_type == "sse" {
            RemoteTransport::Sse
        } else {
            RemoteTransport::Streamable
        };
        return Ok(Launch::Remote {
            url: remote.url,
            transport,
        });
    }
    let mut own = Vec::new();
    for (k, v) in env {
        own.push((
            k.clone(),
            expand(v, lookup, true).map_err(|e| format!("env `{k}`: {e}"))?,
        ));
    }
    let mut secrets = String::new();
    for secret in &entry.secrets {
        let value = own
            .iter()
            .rev()
            .find(|(k, _)| *k == secret.env || *k == secret.name)
            .map(|(_, v)| v.clone())
            .or_else(|| lookup.var(&secret.env))
            .filter(|v| !v.is_empty())
            .ok_or_else(|| {
                format!(
                    "missing environment variable `{}` required by MCP server `{server}` (set it, or give it in the toolset's `env`)",
                    secret.env
                )
            })?;
        secrets.push_str(&format!("{}={value}\n", secret.name));
    }
    let config = serde_json::json!({ server: config.cloned().unwrap_or(serde_json::Value::Object(serde_json::Map::new())) });
    let secrets_file = temp_file("mcp-secrets", secrets.as_bytes())?;
    // JSON is YAML: the gateway reads it as its config file.
    let config_file = match temp_file("mcp-config", config.to_string().as_bytes()) {
        Ok(f) => f,
        Err(e) => {
            let _ = std::fs::remove_file(&secrets_file);
            return Err(e);
        }
    };
    let args = vec![
        "mcp".to_owned(),
        "gateway".to_owned(),
        "run".to_owned(),
        "--servers".to_owned(),
        server.to_owned(),
        "--catalog".to_owned(),
        source,
        "--secrets".to_owned(),
        secrets_file.display().to_string(),
        "--config".to_owned(),
        config_file.display().to_string(),
    ];
    Ok(Launch::Process {
        args,
        env: own,
        temp_files: vec![secrets_file, config_file],
    })
}

/// `docker` must be on PATH and have the `mcp` plugin.
async fn check_docker(lookup: &dyn Lookup) -> Result<(), String> {
    let path = lookup.var("PATH").unwrap_or_default();
    let Some(docker) = tether_exec::find_in_path("docker", &path) else {
        return Err(format!(
            "this server runs through the Docker MCP Gateway, but `docker` is not on PATH: {INSTALL_HINT}"
        ));
    };
    let mut spec = tether_exec::ExecSpec::new(docker, std::env::temp_dir());
    spec.args = vec!["mcp".into(), "version".into()];
    spec.timeout = Some(Duration::from_secs(20));
    let record = tether_exec::run(spec).await;
    if record.exited_normally() && record.exit_code == Some(0) {
        return Ok(());
    }
    let stderr = record.stderr.lossy();
    // Docker's first line says it; the rest is usage advice.
    let said = stderr.trim().lines().next().unwrap_or_default().trim();
    if said.contains("unknown command") || said.contains("is not a docker command") {
        return Err(format!(
            "this server runs through the Docker MCP Gateway, but the `docker mcp` CLI plugin is missing (`docker mcp version`: {said}): {INSTALL_HINT}"
        ));
    }
    let why = record.spawn_error.unwrap_or_else(|| {
        if said.is_empty() {
            "it failed".to_owned()
        } else {
            said.to_owned()
        }
    });
    Err(format!("`docker mcp version` failed: {why}"))
}

async fn catalog_entry(
    server: &str,
    source: &str,
    cache_dir: Option<&Path>,
) -> Result<CatalogServer, String> {
    let text = catalog_text(source, cache_dir).await?;
    let mut catalog: CatalogFile = serde_saphyr::from_str(&text)
        .map_err(|e| format!("the MCP catalog `{source}` cannot be read: {e}"))?;
    catalog
        .registry
        .remove(server)
        .ok_or_else(|| format!("MCP server `{server}` is not in the MCP catalog `{source}`"))
}

/// The catalog's text: a file, a fresh cached download, a download, or a stale cache.
pub(crate) async fn catalog_text(source: &str, cache_dir: Option<&Path>) -> Result<String, String> {
    if !(source.starts_with("http://") || source.starts_with("https://")) {
        let path = source.strip_prefix("file://").unwrap_or(source);
        return std::fs::read_to_string(path)
            .map_err(|e| format!("cannot read the MCP catalog `{path}`: {e}"));
    }
    let cache = (source == CATALOG_URL)
        .then(|| cache_dir.map(|d| d.join("mcp-catalog.yaml")))
        .flatten();
    let fresh = cache.as_ref().and_then(|c| {
        let age = std::fs::metadata(c).ok()?.modified().ok()?;
        let age = SystemTime::now().duration_since(age).ok()?;
        (age < CATALOG_TTL)
            .then(|| std::fs::read_to_string(c).ok())
            .flatten()
    });
    if let Some(text) = fresh {
        return Ok(text);
    }
    match download(source).await {
        Ok(text) => {
            if let Some(c) = &cache {
                // Best effort, like the rest of the cache; private like all of `$TETHER_HOME`.
                let home = tether_config::data_dir();
                let _ = c
                    .parent()
                    .map_or(Ok(()), |dir| tether_exec::private::create_dir(&home, dir))
                    .and_then(|()| tether_exec::private::write_whole(c, text.as_bytes()));
            }
            Ok(text)
        }
        Err(e) => cache.and_then(|c| std::fs::read_to_string(c).ok()).ok_or(e),
    }
}

async fn download(url: &str) -> Result<String, String> {
    let client = tether_http::client_builder()
        .timeout(Duration::from_secs(30))
        .build()
        .map_err(|e| format!("cannot build an HTTP client: {e}"))?;
    let fail = |e: String| format!("cannot download the MCP catalog `{url}`: {e}");
    let response = client
        .get(url)
        .send()
        .await
        .map_err(|e| fail(tether_http::error_chain(&e)))?;
    let status = response.status();
    if !status.is_success() {
        return Err(fail(format!("HTTP {status}")));
    }
    response.text().await.map_err(|e| fail(e.to_string()))
}

/// A private temp file holding `content`.
fn temp_file(prefix: &str, content: &[u8]) -> Result<PathBuf, String> {
    use std::io::Write;
    let nanos = SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map_or(0, |d| d.subsec_nanos());
    let path = std::env::temp_dir().join(format!("{prefix}-{}-{nanos}", std::process::id()));
    let mut f = std::fs::OpenOptions::new()
        .create_new(true)
        .write(true)
        .mode(0o600)
        .open(&path)
        .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
    f.write_all(content)
        .map_err(|e| format!("cannot write `{}`: {e}", path.display()))?;
    Ok(path)
}
