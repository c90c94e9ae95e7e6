//! Reading `state.json` (#47): version 2 as is, version 1 migrated to the
//! identity schema, anything else refused. Ownership is checked on the raw
//! JSON first so a refusal can name the Bot; every refusal is a sentence and
//! the caller opens the home read-only with it (fail closed).

use flybot_protocol::state::{STATE_VERSION, TeamState};
use serde_json::{Map, Value, json};
use std::io::ErrorKind;
use std::path::Path;

use crate::error::StoreError;

/// A file this build cannot trust, in one sentence naming it.
fn untrusted(why: String) -> StoreError {
    StoreError::Untrusted(why)
}

/// A decoded `state.json`.
pub(crate) struct Decoded {
    pub team: TeamState,
    /// The file was version 1 and `team` is its migration.
    pub from_v1: bool,
}

/// Decodes the bytes of `state.json`; `Err` is why the home is read-only.
pub(crate) fn decode_state(bytes: &[u8], now_ms: u64) -> Result<Decoded, StoreError> {
    let value: Value = serde_json::from_slice(bytes)
        .map_err(|e| untrusted(format!("state.json is not JSON: {e}")))?;
    let Value::Object(map) = value else {
        return Err(untrusted(
            "state.json does not hold a JSON object".to_owned(),
        ));
    };
    let Some(version) = map.get("version").and_then(Value::as_u64) else {
        return Err(untrusted("state.json has no version number".to_owned()));
    };
    match version {
        1 => Ok(Decoded {
            team: migrate_v1(map, now_ms)?,
            from_v1: true,
        }),
        STATE_VERSION => {
            check_v2_owners(&map)?;
            let team = serde_json::from_value(Value::Object(map))
                .map_err(|e| untrusted(format!("state.json does not hold a valid team: {e}")))?;
            Ok(Decoded {
                team,
                from_v1: false,
            })
        }
        newer if newer > STATE_VERSION => Err(untrusted(format!(
            "state.json was written by a newer FlyBot (version {newer}); this build reads version {STATE_VERSION}, so it only reads"
        ))),
        other => Err(untrusted(format!(
            "state.json has the unknown version {other}"
        ))),
    }
}

/// Every Bot must be owned by a member of the team (#47).
fn check_v2_owners(map: &Map<String, Value>) -> Result<(), StoreError> {
    let members = map.get("members").and_then(Value::as_object);
    for (id, bot) in bots_of(map)? {
        match bot.get("ownerId") {
            None => return Err(untrusted(format!("state.json: Bot {id} has no ownerId"))),
            Some(Value::String(owner)) => {
                if !members.is_some_and(|m| m.contains_key(owner)) {
                    return Err(untrusted(format!(
                        "state.json: Bot {id} is owned by {owner}, who is not a member"
                    )));
                }
            }
            Some(_) => {
                return Err(untrusted(format!(
                    "state.json: Bot {id} has an ownerId that is not a string"
                )));
            }
        }
    }
    Ok(())
}

/// Version 1 had no members: one owner member is made and owns every Bot.
fn migrate_v1(mut map: Map<String, Value>, now_ms: u64) -> Result<TeamState, StoreError> {
    for (id, bot) in bots_of(&map)? {
        if bot.get("ownerId").is_some_and(|o| !o.is_string()) {
            return Err(untrusted(format!(
                "state.json (version 1): Bot {id} has an ownerId that is not a string"
            )));
        }
    }
    let mut salt = [0u8; 8];
    getrandom::fill(&mut salt)
        .map_err(|e| untrusted(format!("no randomness for a member id: {e}")))?;
    let owner_id = format!("member-{}", crate::hex(&salt));
    let members = map
        .entry("members")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Value::Object(members) = members {
        members.insert(
            owner_id.clone(),
            json!({"id": owner_id, "name": "Owner", "createdAt": now_ms}),
        );
    }
    let mut bot_ids = Vec::new();
    if let Some(Value::Object(bots)) = map.get_mut("bots") {
        for (id, bot) in bots.iter_mut() {
            bot_ids.push(id.clone());
            if let Value::Object(bot) = bot {
                bot.insert("ownerId".to_owned(), Value::String(owner_id.clone()));
            }
        }
    }
    let chief = map
        .get("mainBotIds")
        .and_then(Value::as_array)
        .and_then(|ids| {
            ids.iter()
                .filter_map(Value::as_str)
                .find(|id| bot_ids.iter().any(|b| b == id))
        })
        .map_or(Value::Null, |id| Value::String(id.to_owned()));
    map.insert("designatedChiefId".to_owned(), chief);
    map.insert("version".to_owned(), Value::from(STATE_VERSION));
    serde_json::from_value(Value::Object(map))
        .map_err(|e| untrusted(format!("state.json (version 1) could not be migrated: {e}")))
}

fn bots_of(map: &Map<String, Value>) -> Result<Vec<(&String, &Value)>, StoreError> {
    match map.get("bots") {
        None => Ok(Vec::new()),
        Some(Value::Object(bots)) => Ok(bots.iter().collect()),
        Some(_) => Err(untrusted("state.json: bots is not an object".to_owned())),
    }
}

/// What is at `state.json.v1` before a migration writes it.
#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Backup {
    Missing,
    /// A readable regular file holding a version-1 team: kept as the backup.
    Valid,
}

/// The backup rule of #47: an existing backup counts only when it is a
/// readable file holding a parseable version-1 state; anything else refuses.
pub(crate) fn check_v1_backup(path: &Path) -> Result<Backup, StoreError> {
    let refuse = |what: String| {
        Err(untrusted(format!(
            "state.json.v1 {what}, so the version-1 backup cannot be trusted; move it away and start again"
        )))
    };
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Backup::Missing),
        Err(e) => return refuse(format!("could not be read ({e})")),
    };
    if !meta.file_type().is_file() {
        return refuse("is not a regular file".to_owned());
    }
    let bytes = match std::fs::read(path) {
        Ok(bytes) => bytes,
        Err(e) => return refuse(format!("could not be read ({e})")),
    };
    let Ok(value) = serde_json::from_slice::<Value>(&bytes) else {
        return refuse("is not JSON".to_owned());
    };
    if value.get("version").and_then(Value::as_u64) != Some(1) {
        return refuse("does not hold a version-1 team".to_owned());
    }
    Ok(Backup::Valid)
}
