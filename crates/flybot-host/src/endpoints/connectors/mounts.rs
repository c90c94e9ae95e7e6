//! `connectors`, `connector-connect`, `connector-disconnect` (#311),
//! `connector-retry` (issue 39) and
//! `bot-connectors` (#601): the rows never carry a key; a switch is written
//! on the Bot's record only where it differs from the default (on).

use crate::actor::journal_actor;
use crate::connectors::Connectors;
use flybot_core::access::{Actor, may_manage_bot};
use flybot_core::connectors::SWITCHES;
use flybot_protocol::ApiError;
use flybot_protocol::connectors::{
    BotConnectors, ConnectorAnswer, ConnectorConnect, ConnectorDisconnect, ConnectorRetry,
    ConnectorsAnswer,
};
use serde_json::{Map, Value};

/// `connectors {}` → every connector's row, MCP servers and channels.
pub fn list(
    hub: &Connectors,
    channels: &crate::channels::Channels,
    actor: &Actor,
) -> Result<ConnectorsAnswer, ApiError> {
    hub.secrets().check_read(actor, "Connectors")?;
    let mut connectors = hub.rows();
    connectors.extend(channels.rows());
    connectors.sort_by(|a, b| a.id.cmp(&b.id));
    Ok(ConnectorsAnswer { connectors })
}

/// `connector-connect {...}` → the row once mounted (ready or error).
pub async fn connect(
    hub: &Connectors,
    _actor: &Actor,
    req: ConnectorConnect,
) -> Result<ConnectorAnswer, ApiError> {
    Ok(ConnectorAnswer {
        connector: hub.connect(req).await?,
    })
}

/// `connector-disconnect {id}` → the row, now `off`.
pub fn disconnect(
    hub: &Connectors,
    _actor: &Actor,
    req: ConnectorDisconnect,
) -> Result<ConnectorAnswer, ApiError> {
    Ok(ConnectorAnswer {
        connector: hub.disconnect(&req.id)?,
    })
}

/// `connector-retry {id}` → the row once mounted again (issue 39): the
/// host's owner may retry on a shared host, where she may add nothing.
pub async fn retry(
    hub: &Connectors,
    actor: &Actor,
    req: ConnectorRetry,
) -> Result<ConnectorAnswer, ApiError> {
    if !hub.secrets().access(actor).may_retry() {
        return Err(crate::secrets::blocked_shared("Connectors"));
    }
    Ok(ConnectorAnswer {
        connector: hub.retry(&req.id).await?,
    })
}

/// `bot-connectors {botId, connector, enabled}` → the Bot's switches.
pub async fn switch(
    hub: &Connectors,
    actor: &Actor,
    req: BotConnectors,
) -> Result<Value, ApiError> {
    hub.secrets().check_writable()?;
    flybot_core::connectors::check_name(&req.connector)
        .map_err(|_| ApiError::invalid("connector", "Name a connector such as github."))?;
    let team = hub.secrets().team();
    team.mutate(journal_actor(actor), |change| {
        let Some(mut bot) = change.state().bots.get(&req.bot_id).cloned() else {
            return Err(ApiError::not_found("Bot", &req.bot_id));
        };
        if !may_manage_bot(actor, &bot) {
            return Err(ApiError::forbidden(
                "Only the Bot's owner may switch its connectors.",
            ));
        }
        let mut switches = bot
            .extra
            .get(SWITCHES)
            .and_then(Value::as_object)
            .cloned()
            .unwrap_or_default();
        if req.enabled {
            switches.remove(&req.connector);
        } else {
            switches.insert(req.connector.clone(), Value::Bool(false));
        }
        if switches.is_empty() {
            bot.extra.remove(SWITCHES);
        } else {
            bot.extra
                .insert(SWITCHES.into(), Value::Object(switches.clone()));
        }
        if change.state().bots.get(&req.bot_id) != Some(&bot) {
            change.put_bot(&bot);
        }
        let mut answer = Map::new();
        answer.insert("botId".into(), req.bot_id.clone().into());
        answer.insert("connectors".into(), Value::Object(switches));
        Ok(Value::Object(answer))
    })
    .await
}
