//! `webhook_config:` of a `type: webhook` toolset: the one destination `send_webhook` may
//! reach. The model only writes the message; the URL (often a secret token) and the
//! credentials stay in the agent file and the environment.

/// A validated `webhook_config:`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WebhookConfig {
    /// One of [`Self::PROVIDERS`] (aliases such as `msteams` resolved at load).
    pub provider: String,
    /// `http(s)://…`; `${env.NAME}` expands at call time.
    pub url: String,
    /// `${env.NAME}` expands at call time.
    pub headers: Vec<(String, String)>,
    /// `provider: telegram`: the destination chat.
    pub chat_id: Option<String>,
}

impl WebhookConfig {
    /// The payload shapes `send_webhook` knows (docker-agent's list).
    pub const PROVIDERS: [&'static str; 9] = [
        "slack",
        "discord",
        "ifttt",
        "telegram",
        "mattermost",
        "rocketchat",
        "googlechat",
        "teams",
        "generic",
    ];

    /// The provider `name` stands for (case and spaces ignored, docker-agent's aliases
    /// accepted); `None` when unknown.
    pub fn provider_named(name: &str) -> Option<&'static str> {
        let lower = name.trim().to_ascii_lowercase();
        let canonical = match lower.as_str() {
            "" => "generic",
            "google_chat" | "gchat" => "googlechat",
            "msteams" | "microsoftteams" | "microsoft_teams" => "teams",
            "rocket.chat" | "rocket_chat" => "rocketchat",
            other => other,
        };
        Self::PROVIDERS.into_iter().find(|p| *p == canonical)
    }
}
