//! The secrets' and connectors' endpoints (#545, #311, #601): `secrets`,
//! `secret-set`, `secret-update`, `secret-delete`, `connectors`,
//! `connector-connect`, `connector-disconnect`, `bot-connectors`. Each is a shared,
//! non-isolatable surface (#49): refused with `bot/blocked-shared` while
//! the team has more than one member.

mod mounts;
mod secrets;

use super::{Answer, body::parse, typed, unknown};
use crate::actor::Caller;
use crate::connectors::Connectors;

/// Answers the secrets' and connectors' endpoints; `bot/unknown-endpoint`
/// for the others.
pub async fn call(hub: &Connectors, caller: &Caller, endpoint: &str, body: &[u8]) -> Answer {
    let keys = hub.secrets();
    match endpoint {
        "connectors" => {
            let _: flybot_protocol::channel::Empty = parse(body)?;
            typed(mounts::list(hub, caller.require()?))
        }
        "connector-connect" => typed(mounts::connect(hub, caller.require()?, parse(body)?).await),
        "connector-disconnect" => typed(mounts::disconnect(hub, caller.require()?, parse(body)?)),
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
