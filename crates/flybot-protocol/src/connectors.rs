//! Connectors (#311, #335, #601): the request bodies of `connector-connect`,
//! `connector-disconnect`, `bot-connectors`, and the rows `connectors`
//! answers (status, tools, the error said plainly; never a key).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// `connector-connect {id, command? | url?, env?, secretEnv?, approval?}`:
/// an MCP server run over stdio (`command`, argv) or reached over
/// streamable HTTP (`url`).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ConnectorConnect {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub command: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// Plain variables the server's process gets (no secret here).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub env: BTreeMap<String, String>,
    /// Variable → the name of a saved secret whose value it gets (#545).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub secret_env: BTreeMap<String, String>,
    /// The server's tool names that ask the owner before each call.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub approval: Vec<String>,
}

/// `connector-disconnect {id}`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ConnectorDisconnect {
    pub id: String,
}

/// `connector-retry {id}`: mount a saved connector again (issue 39).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ConnectorRetry {
    pub id: String,
}

/// `bot-connectors {botId, connector, enabled}` (#601: absent means on).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BotConnectors {
    pub bot_id: String,
    pub connector: String,
    pub enabled: bool,
}

/// Where a connector is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ConnectorStatus {
    Off,
    Connecting,
    Ready,
    Error,
}

/// One connector as the channel shows it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConnectorRow {
    pub id: String,
    /// `mcp` (stdio or HTTP) or `channel` (Feishu).
    pub kind: String,
    pub status: ConnectorStatus,
    /// The mounted names, `mcp__<id>__<tool>`.
    pub tools: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub command: Option<Vec<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    /// A channel connector's own fields (#1266); absent for an MCP server.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub channel: Option<crate::channel_connectors::ChannelRow>,
}

impl ConnectorRow {
    /// The row of a connector that is not running: never connected,
    /// disconnected, or a channel that is gone. `kind` is `mcp` or
    /// `channel`. The one place an "off" row is spelled.
    pub fn off(id: &str, kind: &str) -> ConnectorRow {
        ConnectorRow {
            id: id.to_owned(),
            kind: kind.to_owned(),
            status: ConnectorStatus::Off,
            tools: Vec::new(),
            error: None,
            command: None,
            url: None,
            channel: None,
        }
    }
}

/// `connectors` → every connector.
#[derive(Debug, Clone, Serialize)]
pub struct ConnectorsAnswer {
    pub connectors: Vec<ConnectorRow>,
}

/// `connector-connect`, `connector-disconnect` → the connector's row.
#[derive(Debug, Clone, Serialize)]
pub struct ConnectorAnswer {
    pub connector: ConnectorRow,
}
