//! `type: openapi`: one tool per operation of an OpenAPI 3 document, as docker-agent builds
//! them. The document is read when the run first needs the agent's tools (not at load, so
//! `tether hooks check` works offline), from an `http(s)` URL or a file. A tool is named after
//! the operation's `operationId` (else `METHOD_path`), takes the path and query parameters by
//! name and the JSON body's properties as `body_NAME`, and is read-only for `GET`, `HEAD` and
//! `OPTIONS`. An argument the operation does not declare is dropped, and the path parameters
//! fill only the operation's path, never the server URL. Only references inside the document
//! (`#/…`) are followed.

use std::sync::{Arc, PoisonError, RwLock};
use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::{Map, Value, json};

use crate::net::{
    dot_segment, encode_component, expand, guarded_client, http_call, read_capped, refused,
    scalar_text,
};
use crate::{Tool, ToolContext, ToolDefinition, ToolResult};

const MAX_SPEC: usize = 10 << 20;
const MAX_BODY: usize = 1 << 20;
const METHODS: [&str; 7] = ["get", "post", "put", "patch", "delete", "head", "options"];

/// The tools of one `type: openapi` toolset, once its document was read.
#[derive(Debug)]
pub struct OpenApiToolset {
    url: String,
    headers: Vec<(String, String)>,
    timeout: Duration,
    allow_private: bool,
    max_output: Option<usize>,
    tools: RwLock<Option<Vec<Arc<dyn Tool>>>>,
}

/// What every operation's tool shares.
#[derive(Debug)]
struct Shared {
    headers: Vec<(String, String)>,
    timeout: Duration,
    allow_private: bool,
    max_output: Option<usize>,
}

impl OpenApiToolset {
    /// `None` unless `cfg` is a `type: openapi` toolset.
    pub fn new(cfg: &tether_config::Toolset) -> Option<Self> {
        Some(Self {
            url: cfg.url.clone()?,
            headers: cfg.headers.clone(),
            timeout: cfg.timeout.unwrap_or(Duration::from_secs(30)),
            allow_private: cfg.allow_private_ips,
            max_output: cfg.max_output_bytes,
            tools: RwLock::new(None),
        })
    }

    /// The toolset's system-prompt text.
    pub fn instruction(&self) -> String {
        format!(
            "## OpenAPI tools\n\nThese tools were generated from the OpenAPI specification at {}.\nEach tool corresponds to an API endpoint. Use the tool parameters as described.",
            self.url
        )
    }

    /// Whether the document was read.
    pub fn loaded(&self) -> bool {
        self.tools
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .is_some()
    }

    /// The operations' tools (none before [`Self::load`] succeeded).
    pub fn tools(&self) -> Vec<Arc<dyn Tool>> {
        self.tools
            .read()
            .unwrap_or_else(PoisonError::into_inner)
            .clone()
            .unwrap_or_default()
    }

    /// Reads the document and builds the tools; `base_dir` resolves a relative file path.
    /// Does nothing once it succeeded.
    pub async fn load(&self, base_dir: &std::path::Path) -> Result<(), String> {
        if self.loaded() {
            return Ok(());
        }
        let tools = self
            .read(base_dir)
            .await
            .map_err(|e| format!("failed to read the OpenAPI document `{}`: {e}", self.url))?;
        *self.tools.write().unwrap_or_else(PoisonError::into_inner) = Some(tools);
        Ok(())
    }

    async fn read(&self, base_dir: &std::path::Path) -> Result<Vec<Arc<dyn Tool>>, String> {
        let url = expand(&self.url, None, false)?;
        let remote = url.starts_with("http://") || url.starts_with("https://");
        let text = if remote {
            self.fetch(&url).await?
        } else {
            let path = base_dir.join(url.strip_prefix("file://").unwrap_or(&url));
            tokio::fs::read_to_string(&path)
                .await
                .map_err(|e| format!("cannot read `{}`: {e}", path.display()))?
        };
        let doc: Value = match serde_json::from_str(&text) {
            Ok(v) => v,
            Err(_) => {
                serde_saphyr::from_str(&text).map_err(|e| format!("neither JSON nor YAML: {e}"))?
            }
        };
        let version = doc.get("openapi").and_then(Value::as_str).unwrap_or("");
        if !version.starts_with('3') {
            return Err("not an OpenAPI 3 document (no `openapi: 3.x`)".to_owned());
        }
        let base = base_url(&doc, remote.then_some(url.as_str()))?;
        let shared = Arc::new(Shared {
            headers: self.headers.clone(),
            timeout: self.timeout,
            allow_private: self.allow_private,
            max_output: self.max_output,
        });
        Ok(operations(&doc, &base, &shared))
    }

    async fn fetch(&self, url: &str) -> Result<String, String> {
        if let Some(why) = refused(url, self.allow_private) {
            return Err(why);
        }
        let client = guarded_client(self.timeout, self.allow_private)?;
        let mut req = client.get(url).header("Accept", "application/json");
        for (name, value) in &self.headers {
            req = req.header(name, expand(value, None, false)?);
        }
        let resp = req
            .send()
            .await
            .map_err(|e| format!("request failed: {}", tether_http::error_chain(&e)))?;
        if resp.status() != reqwest::StatusCode::OK {
            return Err(format!("unexpected status code {}", resp.status().as_u16()));
        }
        let tether_http::Capped { bytes: body, cut } = read_capped(resp, MAX_SPEC).await?;
        if cut {
            return Err("the document exceeds the 10 MiB size limit".to_owned());
        }
        String::from_utf8(body).map_err(|_| "the document is not UTF-8".to_owned())
    }
}

/// The first server's URL (its variables at their defaults), relative ones resolved against
/// the document's URL; else the document's origin.
fn base_url(doc: &Value, spec_url: Option<&str>) -> Result<String, String> {
    let server = doc.pointer("/servers/0");
    let mut url = server
        .and_then(|s| s.get("url"))
        .and_then(Value::as_str)
        .unwrap_or("")
        .to_owned();
    if let Some(vars) = server
        .and_then(|s| s.get("variables"))
        .and_then(Value::as_object)
    {
        for (name, var) in vars {
            let default = var.get("default").map(scalar_text).unwrap_or_default();
            url = url.replace(&format!("{{{name}}}"), &default);
        }
    }
    let absolute = url.starts_with("http://") || url.starts_with("https://");
    let url = match spec_url {
        _ if absolute => url,
        Some(spec) => {
            let spec = reqwest::Url::parse(spec).map_err(|e| format!("invalid URL: {e}"))?;
            if url.is_empty() {
                spec.origin().ascii_serialization()
            } else {
                spec.join(&url)
                    .map_err(|e| format!("cannot resolve the server URL `{url}`: {e}"))?
                    .to_string()
            }
        }
        None => {
            return Err(format!(
                "a document read from a file needs an absolute `servers[0].url`, not `{url}`"
            ));
        }
    };
    Ok(url.trim_end_matches('/').to_owned())
}

/// Follows a `$ref` inside the document (a few levels, so a cycle cannot loop).
fn resolve<'a>(doc: &'a Value, mut v: &'a Value) -> &'a Value {
    for _ in 0..8 {
        let Some(r) = v.get("$ref").and_then(Value::as_str) else {
            return v;
        };
        let Some(pointer) = r.strip_prefix('#') else {
            return v;
        };
        let pointer = pointer.replace("~1", "/").replace("~0", "~");
        match doc.pointer(&pointer) {
            Some(target) => v = target,
            None => return v,
        }
    }
    v
}

/// A parameter's or property's schema as the model sees it: type, description, enum,
/// default (and an array's item type, which some providers require).
fn property(doc: &Value, schema: Option<&Value>) -> Value {
    let Some(s) = schema.map(|s| resolve(doc, s)) else {
        return json!({"type": "string"});
    };
    let ty = match s.get("type") {
        Some(Value::String(t)) => t.clone(),
        Some(Value::Array(types)) => types
            .first()
            .and_then(Value::as_str)
            .unwrap_or("string")
            .to_owned(),
        _ => "string".to_owned(),
    };
    let mut prop = Map::new();
    for key in ["description", "enum", "default"] {
        if let Some(v) = s.get(key) {
            prop.insert(key.to_owned(), v.clone());
        }
    }
    if ty == "array" {
        let items = s.get("items").map_or_else(
            || json!({"type": "string"}),
            |i| {
                let i = resolve(doc, i);
                let t = i.get("type").and_then(Value::as_str).unwrap_or("string");
                json!({"type": t})
            },
        );
        prop.insert("items".to_owned(), items);
    }
    prop.insert("type".to_owned(), Value::String(ty));
    Value::Object(prop)
}

fn sanitize(name: &str) -> String {
    let replaced: String = name
        .chars()
        .filter(|c| !matches!(c, '{' | '}'))
        .map(|c| if matches!(c, '/' | '-' | '.') { '_' } else { c })
        .collect();
    let mut out = String::new();
    for c in replaced.trim_matches('_').chars() {
        if c == '_' && out.ends_with('_') {
            continue;
        }
        out.push(c);
    }
    out
}

fn operations(doc: &Value, base: &str, shared: &Arc<Shared>) -> Vec<Arc<dyn Tool>> {
    let mut out: Vec<Arc<dyn Tool>> = Vec::new();
    let Some(paths) = doc.get("paths").and_then(Value::as_object) else {
        return out;
    };
    for (path, item) in paths {
        let item = resolve(doc, item);
        for method in METHODS {
            let Some(op) = item.get(method) else {
                continue;
            };
            out.push(Arc::new(operation(
                doc, base, path, method, item, op, shared,
            )));
        }
    }
    out
}

fn operation(
    doc: &Value,
    base: &str,
    path: &str,
    method: &str,
    item: &Value,
    op: &Value,
    shared: &Arc<Shared>,
) -> OperationTool {
    let upper = method.to_ascii_uppercase();
    let name = match op.get("operationId").and_then(Value::as_str) {
        Some(id) if !id.is_empty() => sanitize(id),
        _ => sanitize(&format!("{method}_{path}")),
    };
    let description = match (
        op.get("summary").and_then(Value::as_str),
        op.get("description").and_then(Value::as_str),
    ) {
        (Some(s), _) if !s.is_empty() => s.to_owned(),
        (_, Some(d)) if !d.is_empty() => {
            if d.len() > 200 {
                format!("{}...", &d[..d.floor_char_boundary(200)])
            } else {
                d.to_owned()
            }
        }
        _ => format!("{upper} {path}"),
    };
    let mut properties = Map::new();
    let mut required: Vec<String> = Vec::new();
    // Path-level parameters first; an operation's own of the same name win.
    let params = item
        .get("parameters")
        .and_then(Value::as_array)
        .into_iter()
        .chain(op.get("parameters").and_then(Value::as_array))
        .flatten()
        .map(|p| resolve(doc, p));
    for p in params {
        let Some(pname) = p.get("name").and_then(Value::as_str) else {
            continue;
        };
        if p.get("in").and_then(Value::as_str) == Some("header")
            || p.get("in").and_then(Value::as_str) == Some("cookie")
        {
            continue;
        }
        let mut prop = property(doc, p.get("schema"));
        if let Some(d) = p.get("description").filter(|d| d.as_str() != Some("")) {
            prop["description"] = d.clone();
        }
        properties.insert(pname.to_owned(), prop);
        let is_required = p.get("required").and_then(Value::as_bool) == Some(true);
        required.retain(|r| r != pname);
        if is_required {
            required.push(pname.to_owned());
        }
    }
    if let Some(body) = op
        .get("requestBody")
        .map(|b| resolve(doc, b))
        .and_then(|b| b.pointer("/content/application~1json/schema"))
        .map(|s| resolve(doc, s))
    {
        if let Some(props) = body.get("properties").and_then(Value::as_object) {
            for (pname, schema) in props {
                properties.insert(format!("body_{pname}"), property(doc, Some(schema)));
            }
        }
        for r in body
            .get("required")
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter_map(Value::as_str)
        {
            required.push(format!("body_{r}"));
        }
    }
    let mut parameters = json!({"type": "object", "properties": properties});
    if !required.is_empty() {
        parameters["required"] = json!(required);
    }
    OperationTool {
        definition: ToolDefinition {
            name,
            description,
            parameters,
            read_only: matches!(method, "get" | "head" | "options"),
            category: "openapi",
        },
        base: base.to_owned(),
        path: path.to_owned(),
        method: upper,
        shared: Arc::clone(shared),
    }
}

/// One operation.
#[derive(Debug)]
struct OperationTool {
    definition: ToolDefinition,
    /// The server's URL, which no argument changes.
    base: String,
    /// The path template: its `{name}` placeholders take the path parameters.
    path: String,
    method: String,
    shared: Arc<Shared>,
}

impl OperationTool {
    /// The URL and the JSON body of a call. Only the operation's parameters count (an
    /// argument it does not declare is dropped), and they fill the path, never the server's
    /// URL.
    fn url_and_body(
        &self,
        args: &Map<String, Value>,
    ) -> Result<(String, Map<String, Value>), String> {
        let declared = self.definition.parameters.get("properties");
        let mut path = self.path.clone();
        let mut query: Vec<(String, String)> = Vec::new();
        let mut body = Map::new();
        for (key, value) in args {
            if declared.and_then(|p| p.get(key)).is_none() {
                continue;
            }
            let placeholder = format!("{{{key}}}");
            if path.contains(&placeholder) {
                path = path.replace(&placeholder, &encode_component(&scalar_text(value)));
            } else if let Some(field) = key.strip_prefix("body_") {
                body.insert(field.to_owned(), value.clone());
            } else {
                query.push((key.clone(), scalar_text(value)));
            }
        }
        let mut url = format!("{}{path}", self.base);
        if dot_segment(&url) {
            return Err(format!(
                "the path would hold a `.` or `..` segment: `{url}`"
            ));
        }
        if !query.is_empty() {
            let pairs: Vec<String> = query
                .iter()
                .map(|(k, v)| format!("{}={}", encode_component(k), encode_component(v)))
                .collect();
            url = format!("{url}?{}", pairs.join("&"));
        }
        Ok((url, body))
    }

    async fn request(&self, args: &Map<String, Value>) -> Result<ToolResult, String> {
        let (url, body) = self.url_and_body(args)?;
        let s = &self.shared;
        if let Some(why) = refused(&url, s.allow_private) {
            return Err(why);
        }
        let client = guarded_client(s.timeout, s.allow_private)?;
        let method = reqwest::Method::from_bytes(self.method.as_bytes())
            .map_err(|e| format!("invalid method `{}`: {e}", self.method))?;
        let mut req = client
            .request(method, &url)
            .header("Accept", "application/json");
        if !body.is_empty() {
            req = req.json(&body);
        }
        for (name, value) in &s.headers {
            req = req.header(name, expand(value, None, false)?);
        }
        http_call(req, MAX_BODY, s.max_output, true).await
    }
}

impl Tool for OperationTool {
    fn definition(&self) -> &ToolDefinition {
        &self.definition
    }

    fn call<'a>(
        &'a self,
        args: &'a Map<String, Value>,
        ctx: ToolContext<'a>,
    ) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            tokio::select! {
                r = self.request(args) => r.unwrap_or_else(ToolResult::error),
                () = ctx.cancel.cancelled() => ToolResult::error("cancelled"),
            }
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;

    fn doc() -> Value {
        json!({
            "openapi": "3.0.0",
            "servers": [{"url": "/api/{v}", "variables": {"v": {"default": "v3"}}}],
            "paths": {
                "/pet/{petId}": {
                    "parameters": [{"$ref": "#/components/parameters/PetId"}],
                    "get": {"operationId": "getPetById", "summary": "Find pet by ID"},
                    "delete": {"description": "Deletes a pet"}
                },
                "/pet": {
                    "post": {
                        "operationId": "add-pet",
                        "requestBody": {"$ref": "#/components/requestBodies/Pet"}
                    }
                }
            },
            "components": {
                "parameters": {"PetId": {"name": "petId", "in": "path", "required": true, "schema": {"type": "integer"}}},
                "requestBodies": {"Pet": {"content": {"application/json": {"schema": {"$ref": "#/components/schemas/Pet"}}}}},
                "schemas": {"Pet": {"required": ["name"], "properties": {
                    "name": {"type": "string"},
                    "tags": {"type": "array", "items": {"$ref": "#/components/schemas/Tag"}}
                }}, "Tag": {"type": "object"}}
            }
        })
    }

    #[test]
    fn operations_become_tools_with_docker_agent_names_and_hints() {
        let shared = Arc::new(Shared {
            headers: Vec::new(),
            timeout: Duration::from_secs(1),
            allow_private: true,
            max_output: None,
        });
        let d = doc();
        let base = base_url(&d, Some("http://h:1/spec/openapi.json")).unwrap();
        assert_eq!(base, "http://h:1/api/v3");
        let tools = operations(&d, &base, &shared);
        let defs: Vec<(String, bool, Value)> = tools
            .iter()
            .map(|t| {
                let d = t.definition();
                (d.name.clone(), d.read_only, d.parameters.clone())
            })
            .collect();
        assert_eq!(
            defs,
            vec![
                (
                    "add_pet".to_owned(),
                    false,
                    json!({"type": "object", "properties": {
                        "body_name": {"type": "string"},
                        "body_tags": {"type": "array", "items": {"type": "object"}}
                    }, "required": ["body_name"]})
                ),
                (
                    "getPetById".to_owned(),
                    true,
                    json!({"type": "object", "properties": {"petId": {"type": "integer"}}, "required": ["petId"]})
                ),
                (
                    "delete_pet_petId".to_owned(),
                    false,
                    json!({"type": "object", "properties": {"petId": {"type": "integer"}}, "required": ["petId"]})
                ),
            ]
        );
        assert_eq!(tools[2].definition().description, "Deletes a pet");
    }

    #[test]
    fn arguments_fill_the_declared_parameters_of_the_path_only() {
        let shared = Arc::new(Shared {
            headers: Vec::new(),
            timeout: Duration::from_secs(1),
            allow_private: true,
            max_output: None,
        });
        // A server URL with a variable the document gives no default for keeps its `{host}`.
        let d = json!({
            "openapi": "3.0.0",
            "paths": {"/pet/{petId}": {"put": {
                "parameters": [
                    {"name": "petId", "in": "path", "required": true},
                    {"name": "tag", "in": "query"}
                ],
                "requestBody": {"content": {"application/json": {"schema": {"properties": {"name": {}}}}}}
            }}}
        });
        let op = operation(
            &d,
            "http://{host}.example.com/v1",
            "/pet/{petId}",
            "put",
            &d["paths"]["/pet/{petId}"],
            &d["paths"]["/pet/{petId}"]["put"],
            &shared,
        );
        let args = json!({
            "host": "evil",
            "petId": "7 {host}",
            "tag": "a&b",
            "admin": "1",
            "body_name": "rex",
            "body_admin": true
        });
        assert_eq!(
            op.url_and_body(args.as_object().unwrap()).unwrap(),
            (
                "http://{host}.example.com/v1/pet/7%20%7Bhost%7D?tag=a%26b".to_owned(),
                json!({"name": "rex"}).as_object().unwrap().clone()
            )
        );
        for dots in [".", ".."] {
            let args = json!({"petId": dots});
            assert!(
                op.url_and_body(args.as_object().unwrap()).is_err(),
                "{dots}"
            );
        }
        // `%` is encoded, so `%2e` arrives as the text `%2e`, not as a dot.
        let args = json!({"petId": "%2e%2e"});
        assert_eq!(
            op.url_and_body(args.as_object().unwrap()).unwrap().0,
            "http://{host}.example.com/v1/pet/%252e%252e"
        );
    }

    #[test]
    fn a_file_document_needs_an_absolute_server() {
        assert!(base_url(&doc(), None).is_err());
        let d = json!({"servers": [{"url": "http://x/y/"}]});
        assert_eq!(base_url(&d, None).unwrap(), "http://x/y");
    }
}
