//! `type: api`: one HTTP tool described by `api_config` (docker-agent's `api` toolset). The
//! endpoint's `${NAME}` placeholders take the call's declared arguments (URL-encoded, so an
//! argument cannot add query parameters), only in its path and query: the scheme, host and
//! port are the agent file's and the environment's ([`endpoint_url`]). `POST`, `PUT` and
//! `PATCH` send the declared arguments as a JSON body. `${env.NAME}` in the endpoint and
//! headers comes from the environment at call time. The tool is read-only (run without asking)
//! for `GET` and `HEAD` only; docker-agent marks every method read-only, but a `DELETE` or a
//! `POST` changes something. The body is read up to 1 MiB and cut at 30 000 bytes; an HTTP
//! error status is a failed call, so hooks and the model can tell it from an answer.

use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::{Map, Value, json};
use tether_config::ApiConfig;

use crate::net::{endpoint_url, expand, guarded_client, http_call, refused};
use crate::{Tool, ToolContext, ToolDefinition, ToolResult};

const MAX_BODY: usize = 1 << 20;
const MAX_OUTPUT: usize = 30_000;

/// The tool of a `type: api` toolset.
#[derive(Debug)]
pub struct ApiTool {
    definition: ToolDefinition,
    config: ApiConfig,
    arg_names: Vec<String>,
    timeout: Duration,
    allow_private: bool,
}

/// The tool's description: its `instruction`, and the shape of its answer when `output_schema`
/// gives one (the model reads the body as text).
fn describe(config: &ApiConfig) -> String {
    match &config.output_schema {
        Some(schema) => format!(
            "{}\n\nThe response is JSON matching this schema: {schema}",
            config.instruction
        ),
        None => config.instruction.clone(),
    }
}

impl ApiTool {
    pub fn new(config: &ApiConfig, timeout: Option<Duration>, allow_private: bool) -> Self {
        let properties: Map<String, Value> = config.args.iter().cloned().collect();
        Self {
            definition: ToolDefinition {
                name: config.name.clone(),
                description: describe(config),
                parameters: json!({
                    "type": "object",
                    "properties": properties,
                    "required": config.required,
                }),
                read_only: ["GET", "HEAD"]
                    .iter()
                    .any(|m| config.method.eq_ignore_ascii_case(m)),
                category: "api",
            },
            arg_names: config.args.iter().map(|(n, _)| n.clone()).collect(),
            config: config.clone(),
            timeout: timeout.unwrap_or(Duration::from_secs(30)),
            allow_private,
        }
    }

    async fn request(&self, args: &Map<String, Value>) -> Result<ToolResult, String> {
        let missing: Vec<&str> = self
            .config
            .required
            .iter()
            .filter(|r| args.get(r.as_str()).is_none_or(Value::is_null))
            .map(String::as_str)
            .collect();
        if !missing.is_empty() {
            return Err(format!(
                "missing required argument(s): {}",
                missing.join(", ")
            ));
        }
        let method = self.config.method.as_str();
        let with_body = matches!(method, "POST" | "PUT" | "PATCH");
        let url = endpoint_url(&self.config.endpoint, args, &self.arg_names)?;
        if let Some(why) = refused(&url, self.allow_private) {
            return Err(why);
        }
        let client = guarded_client(self.timeout, self.allow_private)?;
        let method = reqwest::Method::from_bytes(method.as_bytes())
            .map_err(|e| format!("invalid method `{method}`: {e}"))?;
        let mut req = client.request(method, &url);
        for (name, value) in &self.config.headers {
            req = req.header(name, expand(value, None, false)?);
        }
        if with_body {
            let declared: Map<String, Value> = args
                .iter()
                .filter(|(k, _)| self.arg_names.contains(k))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect();
            req = req.json(&declared);
        }
        http_call(req, MAX_BODY, Some(MAX_OUTPUT), false).await
    }
}

impl Tool for ApiTool {
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
    use crate::net::recording_server;

    fn config(endpoint: &str, method: &str, args: &[&str]) -> ApiConfig {
        ApiConfig {
            name: "call".into(),
            instruction: String::new(),
            endpoint: endpoint.into(),
            method: method.into(),
            headers: vec![("Authorization".into(), "Bearer ${env.HOME}".into())],
            args: args
                .iter()
                .map(|a| ((*a).to_owned(), json!({"type": "string"})))
                .collect(),
            required: Vec::new(),
            output_schema: None,
        }
    }

    #[test]
    fn only_get_and_head_are_read_only() {
        for (method, read_only) in [
            ("GET", true),
            ("HEAD", true),
            ("get", true),
            ("POST", false),
            ("PUT", false),
            ("PATCH", false),
            ("DELETE", false),
            ("delete", false),
        ] {
            let tool = ApiTool::new(&config("https://x/", method, &[]), None, false);
            assert_eq!(tool.definition().read_only, read_only, "{method}");
        }
    }

    #[tokio::test]
    async fn the_model_cannot_choose_where_the_request_goes() {
        let (addr, seen) =
            recording_server("HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok".to_owned()).await;
        // Private addresses allowed, so only the placeholder rules stand in the way.
        for (endpoint, declared, want) in [
            (
                "http://${TETHER_TEST_API_HOST_NEVER_SET}:${TETHER_TEST_API_PORT_NEVER_SET}/v1/${path}",
                &["path"][..],
                "environment variable `TETHER_TEST_API_HOST_NEVER_SET` is not set",
            ),
            (
                "http://${host}/v1/${path}",
                &["host", "path"][..],
                "the argument `host` would be part of the endpoint's scheme or host; arguments may only fill its path and query",
            ),
            (
                "http://example.invalid${path}",
                &["path"][..],
                "the argument `path` would be part of the endpoint's scheme or host; arguments may only fill its path and query",
            ),
        ] {
            let tool = ApiTool::new(&config(endpoint, "GET", declared), None, true);
            let args = json!({
                "TETHER_TEST_API_HOST_NEVER_SET": "127.0.0.1",
                "TETHER_TEST_API_PORT_NEVER_SET": addr.port(),
                "host": addr.to_string(),
                "path": format!("@{addr}"),
            });
            let err = tool.request(args.as_object().unwrap()).await.err().unwrap();
            assert_eq!(err, want, "{endpoint}");
        }
        assert!(seen.lock().unwrap().is_empty());
    }

    #[tokio::test]
    async fn a_body_holds_the_declared_arguments_only() {
        let (addr, seen) =
            recording_server("HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok".to_owned()).await;
        let tool = ApiTool::new(
            &config(&format!("http://{addr}/w"), "POST", &["city"]),
            None,
            true,
        );
        let args = json!({"city": "Oslo", "admin": true});
        let out = tool.request(args.as_object().unwrap()).await.unwrap();
        assert_eq!(out, ToolResult::ok("ok"));
        let seen = seen.lock().unwrap();
        assert_eq!(seen.len(), 1);
        assert!(
            seen[0].ends_with("\r\n\r\n{\"city\":\"Oslo\"}"),
            "{}",
            seen[0]
        );
    }

    #[test]
    fn the_output_schema_is_in_the_description() {
        let mut config = ApiConfig {
            name: "weather".into(),
            instruction: "Today's weather".into(),
            endpoint: "https://example.com".into(),
            method: "GET".into(),
            headers: Vec::new(),
            args: Vec::new(),
            required: Vec::new(),
            output_schema: None,
        };
        assert_eq!(describe(&config), "Today's weather");
        config.output_schema = Some(json!({"type": "object"}));
        assert_eq!(
            describe(&config),
            "Today's weather\n\nThe response is JSON matching this schema: {\"type\":\"object\"}"
        );
    }
}
