//! The secrets' and connectors' endpoints (#545, #311, #601): `secrets`,
//! `secret-set`, `secret-update`, `secret-delete`, `connectors`,
//! `connector-connect`, `connector-disconnect`, `bot-connectors`, and the
//! channel connectors' `connector-allow`, `connector-block`,
//! `connector-send` (#1266). Each is a shared,
//! non-isolatable surface (#49): refused with `bot/blocked-shared` while
//! the team has more than one member.

mod channels;
mod mounts;
mod secrets;

use super::{Answer, body::parse, typed, unknown};
use crate::actor::Caller;
use crate::channels::Channels;
use crate::connectors::Connectors;

/// Answers the secrets' and connectors' endpoints; `bot/unknown-endpoint`
/// for the others.
pub async fn call(
    hub: &Connectors,
    lines: &Channels,
    caller: &Caller,
    endpoint: &str,
    body: &[u8],
) -> Answer {
    let keys = hub.secrets();
    match endpoint {
        "connectors" => {
            let _: flybot_protocol::channel::Empty = parse(body)?;
            typed(mounts::list(hub, lines, caller.require()?))
        }
        "connector-connect" => {
            let actor = caller.require()?;
            if channels::is_channel(&parse(body)?) {
                return typed(channels::connect(hub, lines, actor, parse(body)?).await);
            }
            let req = parse(body)?;
            channels::check_mcp_id(lines, &req)?;
            typed(mounts::connect(hub, actor, req).await)
        }
        "connector-disconnect" => {
            let actor = caller.require()?;
            let req: flybot_protocol::connectors::ConnectorDisconnect = parse(body)?;
            if lines.has(&req.id) {
                let connector = lines.disconnect(&req.id)?;
                return typed(Ok(flybot_protocol::connectors::ConnectorAnswer {
                    connector,
                }));
            }
            typed(mounts::disconnect(hub, actor, req))
        }
        "connector-allow" => {
            caller.require()?;
            typed(channels::allow(lines, parse(body)?))
        }
        "connector-block" => {
            caller.require()?;
            typed(channels::block(lines, parse(body)?))
        }
        "connector-send" => {
            caller.require()?;
            typed(channels::send(lines, parse(body)?).await)
        }
        "bot-connectors" => typed(mounts::switch(hub, caller.require()?, parse(body)?).await),
        "secrets" => {
            let _: flybot_protocol::channel::Empty = parse(body)?;
            typed(secrets::list(keys, caller.require()?))
        }
        "secret-set" => typed(secrets::set(keys, caller.require()?, parse(body)?)),
        "secret-update" => typed(secrets::update(keys, caller.require()?, parse(body)?)),
        "secret-delete" => typed(secrets::delete(keys, caller.require()?, parse(body)?)),
        _ => Err(unknown(endpoint)),
    }
}
