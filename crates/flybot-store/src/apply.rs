//! Applies one journal operation to the typed team. The same function runs
//! when a change is made, when the journal is replayed at start and when
//! `flybot replay` rebuilds a team, so the three cannot disagree.

use flybot_protocol::journal::Op;
use flybot_protocol::state::TeamState;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::collections::BTreeMap;

/// Why an operation could not be applied.
#[derive(Debug, thiserror::Error)]
#[error("operation on {key}: {reason}")]
pub struct ApplyError {
    pub key: String,
    pub reason: String,
}

fn fail(key: &[String], reason: impl Into<String>) -> ApplyError {
    ApplyError {
        key: key.join("."),
        reason: reason.into(),
    }
}

/// Applies `op` to `state`.
pub fn apply_op(state: &mut TeamState, op: &Op) -> Result<(), ApplyError> {
    let (key, next) = match op {
        Op::Set { key, next } => (key.as_slice(), Some(next)),
        Op::Delete { key } => (key.as_slice(), None),
    };
    let Some((head, rest)) = key.split_first() else {
        return Err(fail(key, "an empty key"));
    };
    match head.as_str() {
        "members" => apply_map(&mut state.members, key, rest, next),
        "bots" => apply_map(&mut state.bots, key, rest, next),
        "rooms" => apply_map(&mut state.rooms, key, rest, next),
        "tasks" => apply_map(&mut state.tasks, key, rest, next),
        "grants" => apply_map(&mut state.grants, key, rest, next),
        "projects" => apply_map(&mut state.projects, key, rest, next),
        "invitations" => apply_map(&mut state.invitations, key, rest, next),
        "authSessions" => apply_map(&mut state.auth_sessions, key, rest, next),
        "retiredSessions" => apply_map(&mut state.retired_sessions, key, rest, next),
        "projectRuns" => apply_map(&mut state.project_runs, key, rest, next),
        "prefs" => apply_map(&mut state.prefs, key, rest, next),
        "schedules" => apply_map(&mut state.schedules, key, rest, next),
        "scheduleRuns" => apply_map(&mut state.schedule_runs, key, rest, next),
        "flybot" => match rest.split_first() {
            Some((section, id)) if section == "approvals" => {
                apply_map(&mut state.flybot.approvals, key, id, next)
            }
            _ => apply_map(&mut state.flybot.extra, key, rest, next),
        },
        "designatedChiefId" => apply_whole(&mut state.designated_chief_id, key, rest, next),
        "mainBotIds" => apply_whole(&mut state.main_bot_ids, key, rest, next),
        "version" | "journalSeq" | "journalDigest" => {
            Err(fail(key, "the store's own bookkeeping is not an operation"))
        }
        _ => apply_map(&mut state.extra, key, std::slice::from_ref(head), next),
    }
}

/// `key` is `[collection, id]`: set or delete one record.
fn apply_map<T: DeserializeOwned>(
    map: &mut BTreeMap<String, T>,
    key: &[String],
    rest: &[String],
    next: Option<&Value>,
) -> Result<(), ApplyError> {
    let [id] = rest else {
        return Err(fail(key, "a record key names its collection and one id"));
    };
    match next {
        Some(value) => {
            let record = T::deserialize(value).map_err(|e| fail(key, e.to_string()))?;
            map.insert(id.clone(), record);
        }
        None => {
            map.remove(id);
        }
    }
    Ok(())
}

/// `key` is `[field]`: replace a whole top-level value (delete resets it).
fn apply_whole<T: DeserializeOwned + Default>(
    slot: &mut T,
    key: &[String],
    rest: &[String],
    next: Option<&Value>,
) -> Result<(), ApplyError> {
    if !rest.is_empty() {
        return Err(fail(key, "this field is replaced whole"));
    }
    *slot = match next {
        Some(value) => T::deserialize(value).map_err(|e| fail(key, e.to_string()))?,
        None => T::default(),
    };
    Ok(())
}

/// The current value at `key`, for undo and for diffing; `None` when absent.
pub fn value_at(state: &TeamState, key: &[String]) -> Option<Value> {
    fn get<T: serde::Serialize>(map: &BTreeMap<String, T>, rest: &[String]) -> Option<Value> {
        let [id] = rest else { return None };
        map.get(id).and_then(|v| serde_json::to_value(v).ok())
    }
    let (head, rest) = key.split_first()?;
    match head.as_str() {
        "members" => get(&state.members, rest),
        "bots" => get(&state.bots, rest),
        "rooms" => get(&state.rooms, rest),
        "tasks" => get(&state.tasks, rest),
        "grants" => get(&state.grants, rest),
        "projects" => get(&state.projects, rest),
        "invitations" => get(&state.invitations, rest),
        "authSessions" => get(&state.auth_sessions, rest),
        "retiredSessions" => get(&state.retired_sessions, rest),
        "projectRuns" => get(&state.project_runs, rest),
        "prefs" => get(&state.prefs, rest),
        "schedules" => get(&state.schedules, rest),
        "scheduleRuns" => get(&state.schedule_runs, rest),
        "flybot" => match rest.split_first() {
            Some((section, id)) if section == "approvals" => get(&state.flybot.approvals, id),
            _ => get(&state.flybot.extra, rest),
        },
        "designatedChiefId" => serde_json::to_value(&state.designated_chief_id).ok(),
        "mainBotIds" => serde_json::to_value(&state.main_bot_ids).ok(),
        _ => state.extra.get(head).cloned(),
    }
}
