//! A Feishu (Lark) custom-bot webhook as a notifier transport (#355, #1263):
//! one `POST` of `{msg_type: "text", content: {text}}` into the group.
//! Feishu answers HTTP 200 with the verdict in the body (`code: 0` success,
//! 9499 a rate limit, 19021 a refused signature, any other code refused).
//! The URL is the credential: it must be on the configured Feishu origin,
//! and it never appears in a log line or a view. The channel connector's
//! webhook mode (#1266) posts through this same transport.

use super::notifier::{PostError, Transport};
use flybot_agent::tools::BoxFuture;
use serde_json::{Value, json};

/// Feishu's open platform origin.
pub const FEISHU_ORIGIN: &str = "https://open.feishu.cn";
/// Feishu's rate-limit codes: the webhook's, and the open API's two
/// (a request frequency limit, a message frequency limit).
const RATE_LIMITED: [i64; 3] = [9499, 99991400, 230020];

pub struct FeishuWebhook {
    http: reqwest::Client,
    url: String,
}

impl FeishuWebhook {
    /// The webhook at `url`, which must be https on `origin` (a loopback
    /// origin may be plain http: nothing leaves the machine).
    pub fn new(http: reqwest::Client, url: &str, origin: &str) -> Result<FeishuWebhook, String> {
        if !flybot_core::connectors::channel::on_origin(url, origin) {
            let origin = origin.trim_end_matches('/');
            return Err(format!("A Feishu webhook must be https on {origin}."));
        }
        Ok(FeishuWebhook {
            http,
            url: url.to_owned(),
        })
    }
}

impl Transport for FeishuWebhook {
    fn post<'a>(&'a self, text: &'a str) -> BoxFuture<'a, Result<String, PostError>> {
        Box::pin(async move {
            let answer = self
                .http
                .post(&self.url)
                .json(&json!({"msg_type": "text", "content": {"text": text}}))
                .send()
                .await;
            verdict(&super::json_answer(answer, "Feishu").await?)
        })
    }
}

/// Feishu's body: `code` (or the older `StatusCode`) 0, or the refusal.
/// The open API's answers have the same shape, so the app's token and
/// message calls read their bodies here too.
pub(super) fn verdict(body: &Value) -> Result<String, PostError> {
    let code = body
        .get("code")
        .or_else(|| body.get("StatusCode"))
        .and_then(Value::as_i64);
    match code {
        Some(0) => Ok("feishu".to_owned()),
        Some(code) if RATE_LIMITED.contains(&code) => {
            Err(PostError::RateLimited { retry_after: None })
        }
        Some(code) => {
            let msg = body.get("msg").and_then(Value::as_str).unwrap_or("refused");
            Err(PostError::Structural(format!("Feishu code {code}: {msg}")))
        }
        None => Err(PostError::Structural("untyped Feishu answer".to_owned())),
    }
}
