//! A Feishu event callback's body read into what the host acts on (#1266):
//! the subscription's `url_verification` challenge, a message received
//! (`im.message.receive_v1`, schema 2.0: the event id, the verification
//! token, the app, the sender's `open_id`, the chat and the text), or
//! another event the channel does not use. An encrypted body is refused:
//! the app's Encrypt Key must be off for this path.

use flybot_protocol::ApiError;
use serde_json::Value;

/// The event type of a message a user sent the app.
pub const MESSAGE_RECEIVED: &str = "im.message.receive_v1";
/// The longest text one message hands a Bot, in characters.
pub const TEXT_MAX: usize = 8_000;

/// What one callback carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FeishuEvent {
    /// The subscription's check: answer `{challenge}` when the token matches.
    Challenge { challenge: String, token: String },
    /// A message to the app.
    Message(FeishuMessage),
    /// Another event (or a message an app sent): acknowledged, nothing runs.
    Other { token: String, event_type: String },
}

/// A message a user sent the app.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeishuMessage {
    pub event_id: String,
    pub token: String,
    pub app_id: String,
    pub sender_open_id: String,
    pub chat_id: String,
    /// The text (mention placeholders taken out), or a note for a message
    /// that is not text.
    pub text: String,
}

fn text_at<'a>(value: &'a Value, path: &[&str]) -> &'a str {
    path.iter()
        .try_fold(value, |v, key| v.get(key))
        .and_then(Value::as_str)
        .unwrap_or("")
}

fn malformed(what: &str) -> ApiError {
    ApiError::invalid(
        "body",
        format!("This is not a Feishu event callback ({what} is missing)."),
    )
}

/// Reads a callback body.
pub fn parse(body: &Value) -> Result<FeishuEvent, ApiError> {
    if body.get("encrypt").is_some() {
        return Err(ApiError::invalid(
            "encrypt",
            "The event is encrypted; clear the app's Encrypt Key in the Feishu console so FlyBot can read it.",
        ));
    }
    if body.get("type").and_then(Value::as_str) == Some("url_verification") {
        let challenge = text_at(body, &["challenge"]);
        if challenge.is_empty() {
            return Err(malformed("challenge"));
        }
        return Ok(FeishuEvent::Challenge {
            challenge: challenge.to_owned(),
            token: text_at(body, &["token"]).to_owned(),
        });
    }
    if body.get("schema").and_then(Value::as_str) != Some("2.0") {
        return Err(ApiError::invalid(
            "schema",
            "Only Feishu's event schema 2.0 is read; subscribe the app with the 2.0 events.",
        ));
    }
    let token = text_at(body, &["header", "token"]).to_owned();
    let event_type = text_at(body, &["header", "event_type"]).to_owned();
    let sender_type = text_at(body, &["event", "sender", "sender_type"]);
    if event_type != MESSAGE_RECEIVED || sender_type != "user" {
        return Ok(FeishuEvent::Other { token, event_type });
    }
    let event_id = text_at(body, &["header", "event_id"]);
    let chat_id = text_at(body, &["event", "message", "chat_id"]);
    if event_id.is_empty() {
        return Err(malformed("header.event_id"));
    }
    if chat_id.is_empty() {
        return Err(malformed("event.message.chat_id"));
    }
    Ok(FeishuEvent::Message(FeishuMessage {
        event_id: event_id.to_owned(),
        token,
        app_id: text_at(body, &["header", "app_id"]).to_owned(),
        sender_open_id: text_at(body, &["event", "sender", "sender_id", "open_id"]).to_owned(),
        chat_id: chat_id.to_owned(),
        text: message_text(&body["event"]["message"]),
    }))
}

/// A message's text: a `text` message's content (itself JSON text) with
/// its `@_user_N` placeholders taken out; any other kind is named.
fn message_text(message: &Value) -> String {
    let kind = text_at(message, &["message_type"]);
    if kind != "text" {
        return format!("(a Feishu {kind} message, which FlyBot does not read)");
    }
    let content: Value =
        serde_json::from_str(text_at(message, &["content"])).unwrap_or(Value::Null);
    let text = text_at(&content, &["text"]);
    let words: Vec<&str> = text
        .split(' ')
        .filter(|w| !(w.starts_with("@_user_") || *w == "@_all"))
        .collect();
    words.join(" ").trim().chars().take(TEXT_MAX).collect()
}

/// Whether two tokens are equal, compared in time that does not depend on
/// where they differ; an empty expected token never matches.
pub fn token_matches(expected: &str, given: &str) -> bool {
    if expected.is_empty() || expected.len() != given.len() {
        return false;
    }
    expected
        .bytes()
        .zip(given.bytes())
        .fold(0u8, |acc, (a, b)| acc | (a ^ b))
        == 0
}
