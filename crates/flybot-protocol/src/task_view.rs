//! A card as a reader sees it: the stored record without the keys the host
//! keeps for its own bookkeeping. The last claim line (`claimCue`, #1253)
//! only stops a re-claim from posting the same line again; the state view,
//! the board's rows and every `{task}` answer leave it out.

use crate::state::{Task, TaskStatus};
use serde::{Serialize, Serializer};
use serde_json::Value;
use std::borrow::Borrow;
use std::collections::BTreeMap;

/// The card field the last claim line is kept in (#1253).
pub const CLAIM_CUE: &str = "claimCue";

/// Card fields no reader is shown.
pub const HOST_ONLY_FIELDS: &[&str] = &[CLAIM_CUE];

/// Whether `key` is one of the card fields no reader is shown.
pub fn is_host_only(key: &str) -> bool {
    HOST_ONLY_FIELDS.contains(&key)
}

/// A borrowed card without its host-only fields, serialized exactly as the
/// record is otherwise.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PublicTask<'a> {
    id: &'a str,
    bot_id: &'a str,
    title: &'a str,
    status: TaskStatus,
    #[serde(skip_serializing_if = "Option::is_none")]
    requester_id: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    room_id: Option<&'a str>,
    created_at: u64,
    updated_at: u64,
    #[serde(flatten)]
    extra: BTreeMap<&'a str, &'a Value>,
}

impl<'a> From<&'a Task> for PublicTask<'a> {
    fn from(task: &'a Task) -> PublicTask<'a> {
        PublicTask {
            id: &task.id,
            bot_id: &task.bot_id,
            title: &task.title,
            status: task.status,
            requester_id: task.requester_id.as_deref(),
            room_id: task.room_id.as_deref(),
            created_at: task.created_at,
            updated_at: task.updated_at,
            extra: task
                .extra
                .iter()
                .filter(|(key, _)| !is_host_only(key))
                .map(|(key, value)| (key.as_str(), value))
                .collect(),
        }
    }
}

/// `serialize_with` for an answer's one card.
pub fn public_one<S: Serializer>(task: &Option<Task>, s: S) -> Result<S::Ok, S::Error> {
    task.as_ref().map(PublicTask::from).serialize(s)
}

/// `serialize_with` for a list of cards, owned or borrowed.
pub fn public_list<S: Serializer, T: Borrow<Task>>(tasks: &[T], s: S) -> Result<S::Ok, S::Error> {
    s.collect_seq(tasks.iter().map(|t| PublicTask::from(t.borrow())))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    #[test]
    /// Rule #1253.
    fn the_claim_cue_stays_out_and_every_other_field_reads_as_stored() {
        let task: Task = serde_json::from_value(json!({
            "id": "task-1", "botId": "bot-1", "title": "Fix #1253", "status": "working",
            "requesterId": "member-a", "roomId": "room-1", "createdAt": 1, "updatedAt": 2,
            "note": "read the log", "claimCue": {"seq": 3, "at": 2, "text": "接了 #1253"}
        }))
        .unwrap();
        let mut stored = serde_json::to_value(&task).unwrap();
        stored.as_object_mut().unwrap().remove(CLAIM_CUE);
        assert_eq!(
            serde_json::to_value(PublicTask::from(&task)).unwrap(),
            stored
        );
        let bare: Task = serde_json::from_value(json!({
            "id": "task-2", "botId": "bot-1", "status": "open", "createdAt": 1, "updatedAt": 1
        }))
        .unwrap();
        assert_eq!(
            serde_json::to_value(PublicTask::from(&bare)).unwrap(),
            serde_json::to_value(&bare).unwrap()
        );
    }
}
