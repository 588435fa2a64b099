//! `type: api`: one HTTP tool described by `api_config` (docker-agent's `api` toolset). `GET`
//! and `DELETE` put the call's arguments into the endpoint's `${NAME}` placeholders
//! (URL-encoded, so an argument cannot add query parameters); `POST`, `PUT` and `PATCH` send
//! them as a JSON body. `${env.NAME}` in the endpoint and headers comes from the environment
//! at call time. Like docker-agent's, the tool declares itself read-only: it is meant for
//! lookups. The body is read up to 1 MiB and cut at 30 000 bytes; an HTTP error status is
//! a failed call, so hooks and the model can tell it from an answer.

use std::time::Duration;

use futures::future::BoxFuture;
use serde_json::{Map, Value, json};
use tether_config::ApiConfig;

use crate::net::{expand, guarded_client, http_call, refused};
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
                read_only: true,
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
        let url = expand(&self.config.endpoint, Some((args, &self.arg_names)), true)?;
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
            req = req.json(args);
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
