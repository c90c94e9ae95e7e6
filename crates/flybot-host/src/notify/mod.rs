//! Out-of-app delivery (#355, #1263): the notifier's policy (`notifier`)
//! and its two real transports, Slack's `chat.postMessage` (`slack`) and a
//! Feishu custom-bot webhook (`feishu`). `OutOfApp` holds the configured
//! ones; the owner turns each on per team (`prefs.outOfApp {slack,
//! feishu}`), and a scheduled run's answer or failure goes through them.

pub mod feishu;
pub mod feishu_app;
pub mod notifier;
pub mod slack;

use crate::team::Team;
use notifier::{Notifier, Outcome, Transport};
use reqwest::header::HeaderMap;
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;

/// What `config.toml` says about out-of-app delivery.
#[derive(Debug, Clone, Default)]
pub struct NotifyConfig {
    /// `[notify.slack]`: the variable holding the bot token, and the channel.
    pub slack: Option<SlackConfig>,
    /// `[notify.feishu]`: the webhook's variable and the origin it must be on.
    pub feishu: Option<FeishuConfig>,
}

#[derive(Debug, Clone)]
pub struct SlackConfig {
    pub token_env: String,
    pub channel: String,
    pub api: String,
}

#[derive(Debug, Clone)]
pub struct FeishuConfig {
    pub webhook_env: String,
    pub origin: String,
}

/// The transports this host has, each behind its notifier.
#[derive(Default)]
pub struct OutOfApp {
    channels: Vec<(&'static str, Notifier)>,
}

/// Whether the team turned `name` on (`prefs.outOfApp.<name>`), read at
/// every attempt so switching it off stops a waiting retry.
fn switch(team: &Team, name: &'static str) -> Arc<dyn Fn() -> bool + Send + Sync> {
    let team = team.clone();
    Arc::new(move || {
        team.read(|state| {
            state
                .prefs
                .get("outOfApp")
                .and_then(|v| v.get(name))
                .and_then(Value::as_bool)
                == Some(true)
        })
    })
}

impl OutOfApp {
    /// The transports `config` names, each switched by the team's prefs.
    pub fn configured(team: &Team, config: &NotifyConfig) -> OutOfApp {
        if config.slack.is_none() && config.feishu.is_none() {
            // No transport: no HTTP client (its trust store costs a start).
            return OutOfApp::default();
        }
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = match reqwest::Client::builder()
            .timeout(Duration::from_secs(60))
            .build()
        {
            Ok(http) => http,
            Err(e) => {
                tracing::warn!("out-of-app delivery is off: no HTTP client ({e})");
                return OutOfApp::default();
            }
        };
        let mut out = OutOfApp::default();
        if let Some(slack) = &config.slack {
            let transport = slack::SlackTransport {
                http: http.clone(),
                api: slack.api.clone(),
                token_env: slack.token_env.clone(),
                channel: slack.channel.clone(),
            };
            out.add("slack", Arc::new(transport), switch(team, "slack"));
        }
        if let Some(feishu) = &config.feishu {
            let url = std::env::var(&feishu.webhook_env).unwrap_or_default();
            match feishu::FeishuWebhook::new(http, &url, &feishu.origin) {
                Ok(hook) => out.add("feishu", Arc::new(hook), switch(team, "feishu")),
                Err(sentence) => tracing::warn!("Feishu delivery is off: {sentence}"),
            }
        }
        out
    }

    pub fn add(
        &mut self,
        name: &'static str,
        transport: Arc<dyn Transport>,
        enabled: Arc<dyn Fn() -> bool + Send + Sync>,
    ) {
        self.channels
            .push((name, Notifier::new(transport, enabled)));
    }

    /// Sends `text` once for `key` through every channel; answers each one's
    /// outcome by name.
    pub async fn announce(
        &self,
        _team: &Team,
        key: &str,
        text: &str,
    ) -> Vec<(&'static str, Outcome)> {
        let mut outcomes = Vec::new();
        for (name, notifier) in &self.channels {
            outcomes.push((*name, notifier.send(key, text).await));
        }
        outcomes
    }
}

/// `Retry-After` in seconds, when the answer carries one.
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    headers
        .get(reqwest::header::RETRY_AFTER)?
        .to_str()
        .ok()?
        .trim()
        .parse::<u64>()
        .ok()
        .map(Duration::from_secs)
}

/// A transport's HTTP answer as the notifier reads it, for `service`: a
/// send that never got one is a network failure, 429 is rate limited
/// (`Retry-After` kept), a 5xx may pass, and anything else is the JSON body
/// the service's own verdict reads.
async fn json_answer(
    sent: Result<reqwest::Response, reqwest::Error>,
    service: &str,
) -> Result<Value, notifier::PostError> {
    use notifier::PostError;
    let answer = sent.map_err(|e| PostError::Network(link_error(&e)))?;
    let status = answer.status();
    if status.as_u16() == 429 {
        return Err(PostError::RateLimited {
            retry_after: retry_after(answer.headers()),
        });
    }
    if status.is_server_error() {
        return Err(PostError::Network(format!("{service} answered {status}")));
    }
    answer
        .json()
        .await
        .map_err(|_| PostError::Structural(format!("{service}'s answer was not JSON")))
}

/// A broken link, said without the URL (a webhook's URL is a credential).
fn link_error(e: &reqwest::Error) -> String {
    if e.is_timeout() {
        "the request timed out".to_owned()
    } else if e.is_connect() {
        "the connection failed".to_owned()
    } else {
        "the request failed".to_owned()
    }
}
