//! A Feishu self-built app on the open API (#1266): the app's pair proven
//! with one `POST /open-apis/auth/v3/tenant_access_token/internal`, and a
//! message sent into a chat with `POST /open-apis/im/v1/messages
//! ?receive_id_type=chat_id` (`content` is the text as JSON text). Each
//! send asks for a token and drops it after the call: no token is kept,
//! logged or shown. The bodies are read by the webhook's `verdict` (same
//! `code`/`msg` shape), so a refusal reads the same either way.

use super::feishu::verdict;
use super::notifier::{PostError, Transport};
use flybot_agent::tools::BoxFuture;
use serde_json::{Value, json};

/// One app: where its API is, and its pair.
#[derive(Clone)]
pub struct FeishuApp {
    pub http: reqwest::Client,
    /// The Feishu origin (`https://open.feishu.cn`, a loopback fake in tests).
    pub origin: String,
    pub app_id: String,
    pub app_secret: String,
}

impl FeishuApp {
    fn url(&self, path: &str) -> String {
        format!("{}{path}", self.origin.trim_end_matches('/'))
    }

    /// A tenant access token for one call; `Structural` when Feishu refuses
    /// the pair (with its code and message, never the secret).
    pub async fn token(&self) -> Result<String, PostError> {
        let answer = self
            .http
            .post(self.url("/open-apis/auth/v3/tenant_access_token/internal"))
            .json(&json!({"app_id": self.app_id, "app_secret": self.app_secret}))
            .send()
            .await;
        let body = super::json_answer(answer, "Feishu").await?;
        verdict(&body)?;
        body.get("tenant_access_token")
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
            .map(str::to_owned)
            .ok_or_else(|| PostError::Structural("Feishu answered no token".to_owned()))
    }

    /// The transport that posts into `chat_id` as this app.
    pub fn to_chat(&self, chat_id: &str) -> ChatSend {
        ChatSend {
            app: self.clone(),
            chat_id: chat_id.to_owned(),
        }
    }
}

/// Posts text into one chat as the app.
pub struct ChatSend {
    app: FeishuApp,
    chat_id: String,
}

impl Transport for ChatSend {
    fn post<'a>(&'a self, text: &'a str) -> BoxFuture<'a, Result<String, PostError>> {
        Box::pin(async move {
            let token = self.app.token().await?;
            let content = json!({"text": text}).to_string();
            let answer = self
                .app
                .http
                .post(
                    self.app
                        .url("/open-apis/im/v1/messages?receive_id_type=chat_id"),
                )
                .bearer_auth(token)
                .json(&json!({"receive_id": self.chat_id, "msg_type": "text", "content": content}))
                .send()
                .await;
            let body = super::json_answer(answer, "Feishu").await?;
            verdict(&body)?;
            Ok(body
                .pointer("/data/message_id")
                .and_then(Value::as_str)
                .unwrap_or("feishu")
                .to_owned())
        })
    }
}
