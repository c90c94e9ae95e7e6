//! The secrets' and connectors' endpoints (#545, #311, #1263): `secrets`,
//! `secret-set`, `secret-update`, `secret-delete`. Each is a shared,
//! non-isolatable surface (#49): refused with `bot/blocked-shared` while
//! the team has more than one member.

mod secrets;

use super::{Answer, body::parse, typed, unknown};
use crate::actor::Caller;
use crate::secrets::Secrets;

/// Answers the secrets' and connectors' endpoints; `bot/unknown-endpoint`
/// for the others.
pub async fn call(keys: &Secrets, caller: &Caller, endpoint: &str, body: &[u8]) -> Answer {
    match endpoint {
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
