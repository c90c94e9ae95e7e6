//! The channel connectors' endpoints (#1263, #1266): `connector-connect`
//! with `kind: "channel"`, `connector-allow`, `connector-block`,
//! `connector-send`, and a channel's `connector-disconnect`. A channel and
//! an MCP server never share an id, so one name means one row.

use crate::channels::Channels;
use crate::connectors::Connectors;
use flybot_core::access::Actor;
use flybot_protocol::ApiError;
use flybot_protocol::channel_connectors::{
    ChannelConnect, ConnectorAllow, ConnectorBlock, ConnectorSend, ConnectorSent,
};
use flybot_protocol::connectors::{ConnectorAnswer, ConnectorConnect};
use serde_json::Value;

/// Whether a `connector-connect` body asks for a channel.
pub fn is_channel(body: &Value) -> bool {
    body.get("kind").and_then(Value::as_str) == Some("channel")
}

fn taken(id: &str, what: &str) -> ApiError {
    ApiError::invalid(
        "id",
        format!("The name {id} is taken by {what}; pick another name or disconnect it first."),
    )
}

/// `connector-connect {kind: "channel", ...}` → the channel's row.
pub async fn connect(
    hub: &Connectors,
    channels: &Channels,
    actor: &Actor,
    req: ChannelConnect,
) -> Result<ConnectorAnswer, ApiError> {
    if hub.rows().iter().any(|row| row.id == req.id) {
        return Err(taken(&req.id, "an MCP connector"));
    }
    Ok(ConnectorAnswer {
        connector: channels.connect(actor, req).await?,
    })
}

/// `connector-connect` of an MCP server whose id a channel holds is refused.
pub fn check_mcp_id(channels: &Channels, req: &ConnectorConnect) -> Result<(), ApiError> {
    if channels.has(&req.id) {
        return Err(taken(&req.id, "a channel connector"));
    }
    Ok(())
}

pub fn allow(channels: &Channels, req: ConnectorAllow) -> Result<ConnectorAnswer, ApiError> {
    Ok(ConnectorAnswer {
        connector: channels.allow(&req)?,
    })
}

pub fn block(channels: &Channels, req: ConnectorBlock) -> Result<ConnectorAnswer, ApiError> {
    Ok(ConnectorAnswer {
        connector: channels.block(&req)?,
    })
}

pub async fn send(channels: &Channels, req: ConnectorSend) -> Result<ConnectorSent, ApiError> {
    channels.send(&req).await
}
