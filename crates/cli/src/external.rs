//! External agents: `sub_agents`/`handoffs` entries naming an OCI artifact
//! (`agentcatalog/pirate`, as `docker agent share push` stores agents), an http(s) URL or a
//! `.yaml` file. Each is fetched, cached under `$TETHER_HOME/cache/agents`, loaded and attached
//! to the file before anything runs. When the network fails, the cached copy is used, with a
//! warning.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_json::Value;
use tether_config::{AgentFile, ExternalSource, OciReference};

use crate::common::user_error;

/// Agent files are small; anything bigger is not one.
const MAX_BYTES: usize = 1024 * 1024;
const TIMEOUT: Duration = Duration::from_secs(60);
const MANIFEST_TYPES: &str = "application/vnd.oci.image.manifest.v1+json, application/vnd.oci.image.index.v1+json, application/vnd.docker.distribution.manifest.v2+json, application/vnd.docker.distribution.manifest.list.v2+json";
const INDEX_TYPES: [&str; 2] = [
    "application/vnd.oci.image.index.v1+json",
    "application/vnd.docker.distribution.manifest.list.v2+json",
];
/// Annotations `docker agent share push` (and its older name, cagent) sets on agents.
const AGENT_ANNOTATIONS: [&str; 2] = ["io.docker.agent.version", "io.docker.cagent.version"];

/// Fetches, loads and attaches every external agent `file` names.
pub(crate) fn resolve(file: &mut AgentFile, cache: &Path) -> anyhow::Result<()> {
    resolve_with(file, cache, false).map(|_| ())
}

/// As [`resolve`], but a reference that cannot be fetched (no network, registry down, nothing
/// cached) is left unattached and reported in the returned warnings instead of failing: for
/// commands that check the file without running it.
pub(crate) fn resolve_offline(file: &mut AgentFile, cache: &Path) -> anyhow::Result<Vec<String>> {
    resolve_with(file, cache, true)
}

fn resolve_with(
    file: &mut AgentFile,
    cache: &Path,
    skip_unfetchable: bool,
) -> anyhow::Result<Vec<String>> {
    let mut skipped = Vec::new();
    let pending: Vec<_> = file
        .externals
        .iter()
        .filter(|e| e.file.is_none())
        .map(|e| (e.reference.clone(), e.source.clone(), e.origin.location()))
        .collect();
    for (reference, source, at) in pending {
        let fail = |why: String| {
            user_error(format!(
                "invalid agent file\n{at}: cannot load external agent `{reference}`: {why}"
            ))
        };
        let fetched = match &source {
            ExternalSource::File(p) => Ok(file.dir.join(p)),
            ExternalSource::Url(url) => {
                let cached = cache
                    .join("agents")
                    .join("url")
                    .join(format!("{}.yaml", short_hash(url.as_bytes())));
                block_on(fetch_url(url, &cached)).or_else(|e| fallback(&reference, cached, e))
            }
            ExternalSource::Oci(r) => {
                let cached = cache
                    .join("agents")
                    .join("oci")
                    .join(r.registry.replace(':', "_"))
                    .join(&r.repository)
                    .join(format!("{}.yaml", r.identifier().replace(':', "_")));
                block_on(pull(r, &cached)).or_else(|e| fallback(&reference, cached, e))
            }
        };
        let path = match fetched {
            Ok(path) => path,
            Err(why) if skip_unfetchable => {
                skipped.push(format!(
                    "{at}: cannot fetch external agent `{reference}` ({why}); it is not checked, \
                     and a run that needs it fails"
                ));
                continue;
            }
            Err(why) => return Err(fail(why)),
        };
        let loaded = tether_config::load_file(&path).map_err(|e| fail(e.to_string()))?;
        file.attach(&reference, loaded)
            .map_err(|d| user_error(format!("invalid agent file\n{d}")))?;
    }
    Ok(skipped)
}

/// A failed fetch falls back on the copy a previous run cached.
fn fallback(reference: &str, cached: PathBuf, error: String) -> Result<PathBuf, String> {
    if cached.is_file() {
        // Written 0600 by this version; an older one left it readable by others.
        let _ = tether_exec::private::tighten(&cached);
        crate::out::warning(&format!(
            "cannot fetch `{reference}` ({error}); using the copy cached at {}",
            cached.display()
        ));
        Ok(cached)
    } else {
        Err(error)
    }
}

/// Loading is synchronous; the fetch runs on a thread of its own so that it works inside and
/// outside the command's runtime alike.
fn block_on<F>(future: F) -> Result<PathBuf, String>
where
    F: Future<Output = Result<PathBuf, String>> + Send,
{
    std::thread::scope(|s| {
        s.spawn(|| {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .map_err(|e| format!("cannot start the fetch: {e}"))?
                .block_on(future)
        })
        .join()
        .unwrap_or_else(|_| Err("the fetch failed".to_owned()))
    })
}

fn short_hash(bytes: &[u8]) -> String {
    hex(&ring::digest::digest(&ring::digest::SHA256, bytes).as_ref()[..8])
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn client() -> Result<reqwest::Client, String> {
    tether_http::client_builder()
        .timeout(TIMEOUT)
        .build()
        .map_err(|e| format!("cannot build an HTTP client: {e}"))
}

fn net_error(url: &str, e: reqwest::Error) -> String {
    // The URL is said once, in front.
    format!("{url}: {}", tether_http::error_chain(&e.without_url()))
}

/// The body, refused past [`MAX_BYTES`].
async fn body(url: &str, response: reqwest::Response) -> Result<Vec<u8>, String> {
    let body = tether_http::read_capped(response, MAX_BYTES)
        .await
        .map_err(|e| net_error(url, e))?;
    if body.cut {
        return Err(format!("{url}: more than {MAX_BYTES} bytes"));
    }
    Ok(body.bytes)
}

fn save(path: &Path, bytes: &[u8]) -> Result<PathBuf, String> {
    // The cache is under `$TETHER_HOME`: every directory down to the file is private.
    path.parent()
        .map_or(Ok(()), |dir| {
            tether_exec::private::create_dir(&crate::common::tether_home(), dir)
        })
        .and_then(|()| tether_exec::private::write_whole(path, bytes))
        .map_err(|e| format!("cannot cache {}: {e}", path.display()))?;
    Ok(path.to_path_buf())
}

async fn fetch_url(url: &str, cached: &Path) -> Result<PathBuf, String> {
    let response = client()?
        .get(url)
        .send()
        .await
        .map_err(|e| net_error(url, e))?;
    if !response.status().is_success() {
        return Err(format!("{url}: HTTP {}", response.status()));
    }
    let bytes = body(url, response).await?;
    save(cached, &bytes)
}

/// An OCI registry session: the repository's base URL and the bearer token once one was asked
/// for.
struct Registry {
    client: reqwest::Client,
    base: String,
    repository: String,
    token: Option<String>,
}

impl Registry {
    async fn get(&mut self, path: &str, accept: Option<&str>) -> Result<reqwest::Response, String> {
        let url = format!("{}/{path}", self.base);
        for attempt in 0..2 {
            let mut request = self.client.get(&url);
            if let Some(a) = accept {
                request = request.header(reqwest::header::ACCEPT, a);
            }
            if let Some(t) = &self.token {
                request = request.bearer_auth(t);
            }
            let response = request.send().await.map_err(|e| net_error(&url, e))?;
            if response.status() == reqwest::StatusCode::UNAUTHORIZED && attempt == 0 {
                let challenge = response
                    .headers()
                    .get(reqwest::header::WWW_AUTHENTICATE)
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or_default()
                    .to_owned();
                self.token = Some(self.authenticate(&challenge).await?);
                continue;
            }
            return match response.status() {
                s if s.is_success() => Ok(response),
                reqwest::StatusCode::NOT_FOUND => Err(format!("{url}: not found in the registry")),
                s => Err(format!("{url}: HTTP {s}")),
            };
        }
        Err(format!("{url}: the registry refused the token it issued"))
    }

    /// Answers a `Bearer realm=…,service=…` challenge with an anonymous pull token.
    async fn authenticate(&self, challenge: &str) -> Result<String, String> {
        let Some(params) = challenge.strip_prefix("Bearer ") else {
            return Err(format!(
                "the registry asks for credentials (`{challenge}`); only anonymous pulls are supported yet"
            ));
        };
        let param = |key: &str| {
            params.split(',').find_map(|p| {
                let (k, v) = p.trim().split_once('=')?;
                (k == key).then(|| v.trim_matches('"').to_owned())
            })
        };
        let realm = param("realm").ok_or("the registry's challenge names no realm")?;
        let mut query = vec![(
            "scope",
            param("scope").unwrap_or_else(|| format!("repository:{}:pull", self.repository)),
        )];
        if let Some(service) = param("service") {
            query.push(("service", service));
        }
        let url = reqwest::Url::parse_with_params(&realm, &query)
            .map_err(|e| format!("the registry's realm `{realm}` is not a URL: {e}"))?;
        let response = self
            .client
            .get(url)
            .send()
            .await
            .map_err(|e| net_error(&realm, e))?;
        if !response.status().is_success() {
            return Err(format!(
                "{realm}: HTTP {} for a pull token",
                response.status()
            ));
        }
        let answer: Value = serde_json::from_slice(&body(&realm, response).await?)
            .map_err(|e| format!("{realm}: not a token answer: {e}"))?;
        answer["token"]
            .as_str()
            .or_else(|| answer["access_token"].as_str())
            .map(str::to_owned)
            .ok_or_else(|| format!("{realm}: the answer holds no token"))
    }

    async fn json(&mut self, path: &str) -> Result<Value, String> {
        let response = self.get(path, Some(MANIFEST_TYPES)).await?;
        let bytes = body(path, response).await?;
        serde_json::from_slice(&bytes).map_err(|e| format!("{path}: not JSON: {e}"))
    }
}

async fn pull(r: &OciReference, cached: &Path) -> Result<PathBuf, String> {
    let mut registry = Registry {
        client: client()?,
        base: format!("{}://{}/v2/{}", r.scheme(), r.api_host(), r.repository),
        repository: r.repository.clone(),
        token: None,
    };
    let mut manifest = registry
        .json(&format!("manifests/{}", r.identifier()))
        .await?;
    if INDEX_TYPES.contains(&manifest["mediaType"].as_str().unwrap_or_default()) {
        let digest = manifest["manifests"][0]["digest"]
            .as_str()
            .ok_or("the image index lists no manifest")?
            .to_owned();
        manifest = registry.json(&format!("manifests/{digest}")).await?;
    }
    let annotations = &manifest["annotations"];
    if !AGENT_ANNOTATIONS
        .iter()
        .any(|a| annotations.get(a).is_some())
    {
        return Err(format!(
            "{}/{}:{} is not an agent (it was not pushed with `docker agent share push`)",
            r.registry, r.repository, r.tag
        ));
    }
    let layers = manifest["layers"].as_array().cloned().unwrap_or_default();
    let layer = layers
        .iter()
        .find(|l| l["mediaType"] == "application/yaml")
        .or_else(|| layers.first())
        .ok_or("the agent's manifest has no layer")?;
    let digest = layer["digest"]
        .as_str()
        .ok_or("the agent's layer has no digest")?;
    let response = registry.get(&format!("blobs/{digest}"), None).await?;
    let bytes = body(digest, response).await?;
    let actual = format!(
        "sha256:{}",
        hex(ring::digest::digest(&ring::digest::SHA256, &bytes).as_ref())
    );
    if actual != digest {
        return Err(format!(
            "the agent's layer does not match its digest ({digest}, got {actual})"
        ));
    }
    save(cached, &bytes)
}
