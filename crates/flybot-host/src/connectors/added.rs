//! Which connectors the owner added through the channel (issue 30): each
//! `connector-connect` records its spec's SHA-256 in the journaled state
//! (the `channelAddedConnectors` preference, written through the one
//! writer), and a start mounts a connector from `connectors.json` only when
//! its digest is there. A connector written into the file by anything else
//! is shown as an error and never started.

use crate::team::Team;
use flybot_protocol::connectors::ConnectorConnect;
use serde_json::Value;
use sha2::{Digest, Sha256};

/// The preference that holds the digests, by connector id.
pub const KEY: &str = "channelAddedConnectors";

/// The error a connector found only in the file reads as.
pub const NOT_ADDED: &str = "This connector is in connectors.json but was not added through the channel, so it was not started; add it again in Settings.";

/// The digest of a spec as saved.
pub fn digest(spec: &ConnectorConnect) -> String {
    let bytes = serde_json::to_vec(spec).unwrap_or_default();
    flybot_core::hex::lower_hex(&Sha256::digest(&bytes))
}

/// Whether the owner added `spec`, exactly, through the channel.
pub fn was_added(team: &Team, spec: &ConnectorConnect) -> bool {
    let want = digest(spec);
    team.read(|state| {
        state
            .prefs
            .get(KEY)
            .and_then(|digests| digests.get(&spec.id))
            .and_then(Value::as_str)
            .is_some_and(|have| have == want)
    })
}

/// Records `spec` (or, `None`, forgets connector `id`) as the owner's.
pub async fn record(team: &Team, id: &str, spec: Option<&ConnectorConnect>) {
    let result = team
        .mutate("owner", |change| {
            let mut digests = change
                .state()
                .prefs
                .get(KEY)
                .and_then(Value::as_object)
                .cloned()
                .unwrap_or_default();
            let before = digests.get(id).cloned();
            match spec {
                Some(spec) => digests.insert(id.to_owned(), Value::String(digest(spec))),
                None => digests.remove(id),
            };
            if digests.get(id) != before.as_ref() {
                change.set_pref(KEY, Some(&Value::Object(digests)));
            }
            Ok(())
        })
        .await;
    if let Err(e) = result {
        tracing::warn!(
            "the connector {id} could not be recorded as added: {}",
            e.message
        );
    }
}
