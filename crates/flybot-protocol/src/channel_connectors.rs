//! Channel connectors (#1263, #1266): Feishu as a connector of kind
//! `channel`, a custom-bot webhook (outbound) or a self-built app (App ID
//! and App Secret, messages in and answers out). The request bodies of
//! `connector-connect {kind: "channel"}`, `connector-allow`,
//! `connector-block`, `connector-send`, the record `channels.json` keeps
//! (never a credential), and the channel half of a connector's row.

use serde::{Deserialize, Serialize};

/// How a Feishu channel is reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ChannelMode {
    /// A group's custom-bot webhook: one POST into the group, outbound only.
    Webhook,
    /// A self-built app: events in (the allow-list's senders), answers out
    /// through the app's message API.
    App,
}

/// `connector-connect {id, kind: "channel", mode, botId, webhook? |
/// appId?, appSecret?, verificationToken?}`. The webhook, the App Secret and
/// the verification token are credentials: kept only in `secrets.json`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ChannelConnect {
    pub id: String,
    /// Always `channel`.
    pub kind: String,
    pub mode: ChannelMode,
    /// The Bot an allowed sender's message goes to.
    pub bot_id: String,
    /// The custom bot's webhook URL (webhook mode).
    #[serde(default)]
    pub webhook: Option<crate::secrets::SecretValue>,
    /// The app's App ID (app mode; not a secret).
    #[serde(default)]
    pub app_id: Option<String>,
    /// The app's App Secret (app mode).
    #[serde(default)]
    pub app_secret: Option<crate::secrets::SecretValue>,
    /// The event subscription's verification token (app mode): an event
    /// that does not carry it is refused.
    #[serde(default)]
    pub verification_token: Option<crate::secrets::SecretValue>,
}

/// One sender the owner let in: a Feishu user's `open_id`, and a name.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AllowedSender {
    pub open_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

/// `connector-allow {id, openId, name?}`: lets a sender start turns.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ConnectorAllow {
    pub id: String,
    pub open_id: String,
    #[serde(default)]
    pub name: Option<String>,
}

/// `connector-block {id, openId}`: takes a sender off the allow-list.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ConnectorBlock {
    pub id: String,
    pub open_id: String,
}

/// `connector-send {id, text}`: posts one message through the webhook.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ConnectorSend {
    pub id: String,
    pub text: String,
}

/// A channel connector as `channels.json` keeps it: no credential, only the
/// names of what is set (the secrets are named after the connector's id).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SavedChannel {
    pub id: String,
    pub mode: ChannelMode,
    pub bot_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub app_id: Option<String>,
    /// Nobody by default (#1266).
    #[serde(default)]
    pub allowed: Vec<AllowedSender>,
}

/// The channel half of a connector's row: never a credential.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ChannelRow {
    pub mode: ChannelMode,
    pub bot_id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub app_id: Option<String>,
    /// App mode: whether both halves of the pair are saved (`set`) or not
    /// (`missing`); absent in webhook mode.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub app_pair: Option<String>,
    /// Where Feishu posts the app's events: `POST <host>/connectors/<id>/events`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub events_path: Option<String>,
    pub allowed: Vec<AllowedSender>,
    /// How many distinct senders were refused since the host started.
    pub refused_senders: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_event_at: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_ok_at: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_error: Option<String>,
}

/// `connector-send` → whether the message went out, and Feishu's id.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConnectorSent {
    pub sent: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}
