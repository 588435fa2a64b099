//! The agent card, public at `/.well-known/agent-card.json` (and `/.well-known/agent.json`
//! for older clients). One document serves both generations: 0.3 reads `url`,
//! `preferredTransport` and `protocolVersion`; 1.0 reads `supportedInterfaces`, where the
//! 1.0 interface comes first so 1.0 clients pick it. Security schemes use the 0.3 shape,
//! which 1.0 clients convert.

use serde_json::{Value, json};

use super::Shared;

/// Where clients post JSON-RPC (docker-agent's path).
pub(crate) const RPC_PATH: &str = "/invoke";

/// docker-agent's card: named after the agent file, one skill for the served agent.
pub(crate) fn card(shared: &Shared, base: &str) -> Value {
    let name = &shared.entry.id;
    let agent = &shared.agent;
    let description = shared
        .entry
        .file
        .agent(agent)
        .map(|a| a.description.clone())
        .filter(|d| !d.trim().is_empty())
        .unwrap_or_else(|| format!("Agent {agent}"));
    let url = format!("{}{RPC_PATH}", base.trim_end_matches('/'));
    let mut card = json!({
        "name": name,
        "description": description,
        "url": url,
        "preferredTransport": "JSONRPC",
        "protocolVersion": "0.3.0",
        "supportedInterfaces": [
            {"url": url, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
            {"url": url, "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
        ],
        "version": env!("CARGO_PKG_VERSION"),
        "capabilities": {"streaming": true, "pushNotifications": false},
        "defaultInputModes": ["text/plain"],
        "defaultOutputModes": ["text/plain"],
        "skills": [{
            "id": format!("{name}_{agent}"),
            "name": agent,
            "description": description,
            "tags": ["llm", "tether"],
        }],
    });
    if shared.token.is_some() {
        card["securitySchemes"] = json!({
            "bearer": {
                "type": "http",
                "scheme": "bearer",
                "description": "the token given to `tether serve a2a --auth-token`",
            }
        });
        card["security"] = json!([{"bearer": []}]);
    }
    card
}

/// `http://HOST` for the card's URL: the Host the client used, else the bound address with
/// a wildcard host made reachable (as docker-agent does).
pub(crate) fn base_url(host: Option<&str>, bound: Option<&str>) -> String {
    if let Some(h) = host.filter(|h| !h.is_empty()) {
        return format!("http://{h}");
    }
    let addr = bound.unwrap_or("localhost");
    if addr.starts_with("unix://") {
        return "http://localhost".to_owned();
    }
    let routable = match addr.rsplit_once(':') {
        Some(("0.0.0.0" | "[::]" | "", port)) => format!("localhost:{port}"),
        _ => addr.to_owned(),
    };
    format!("http://{routable}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_card_url_is_one_a_client_can_reach() {
        assert_eq!(
            base_url(Some("example.org:9"), Some("0.0.0.0:1")),
            "http://example.org:9"
        );
        assert_eq!(
            base_url(None, Some("0.0.0.0:8082")),
            "http://localhost:8082"
        );
        assert_eq!(base_url(None, Some("[::]:8082")), "http://localhost:8082");
        assert_eq!(base_url(None, Some("127.0.0.1:5")), "http://127.0.0.1:5");
        assert_eq!(base_url(None, Some("unix:///tmp/s")), "http://localhost");
    }
}
