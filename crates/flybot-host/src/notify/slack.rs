//! Slack's `chat.postMessage` as a notifier transport (#355): `POST
//! {api}/chat.postMessage` with the bot token as a Bearer credential and
//! `{channel, text}`; Slack answers `{ok: true, ts}` or `{ok: false,
//! error}` (HTTP 200), and 429 with `Retry-After` in seconds. The token is
//! read from the environment variable `config.toml` names, at each post.

use super::notifier::{PostError, Transport};
use flybot_agent::tools::BoxFuture;
use serde_json::{Value, json};
use std::time::Duration;

/// Slack's API root.
pub const SLACK_API: &str = "https://slack.com/api";

pub struct SlackTransport {
    pub http: reqwest::Client,
    pub api: String,
    pub token_env: String,
    pub channel: String,
}

impl Transport for SlackTransport {
    fn post<'a>(&'a self, text: &'a str) -> BoxFuture<'a, Result<String, PostError>> {
        Box::pin(async move {
            let token = std::env::var(&self.token_env).map_err(|_| {
                PostError::Structural(format!("no Slack token in ${}", self.token_env))
            })?;
            let answer = self
                .http
                .post(format!(
                    "{}/chat.postMessage",
                    self.api.trim_end_matches('/')
                ))
                .bearer_auth(token)
                .json(&json!({"channel": self.channel, "text": text}))
                .send()
                .await;
            verdict(&super::json_answer(answer, "Slack").await?)
        })
    }
}

/// Slack's body: `ok` with `ts`, or the typed `error`.
fn verdict(body: &Value) -> Result<String, PostError> {
    if body.get("ok").and_then(Value::as_bool) == Some(true) {
        return Ok(body
            .get("ts")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned());
    }
    match body.get("error").and_then(Value::as_str) {
        Some("ratelimited") | Some("rate_limited") => Err(PostError::RateLimited {
            retry_after: Some(Duration::ZERO),
        }),
        Some("internal_error") | Some("service_unavailable") | Some("fatal_error") => {
            Err(PostError::Network("Slack had an internal error".to_owned()))
        }
        Some(error) => Err(PostError::Structural(error.to_owned())),
        None => Err(PostError::Structural("untyped Slack error".to_owned())),
    }
}
