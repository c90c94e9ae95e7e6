//! Approvals (#540, #754), pure half: the tool-approval record a waiting turn
//! leaves in `state.flybot.approvals`, the standing grants that answer an ask
//! at once, and answering an approval (`answer`), held sends (#52) included.
//! The host keeps the waiting turns and the delivery of a released send.

pub mod answer;

use flybot_protocol::state::{Bot, Extra, Room, TeamState};
use serde::{Deserialize, Serialize};
use serde_json::{Value, json};

pub use answer::{Answer, Answered, answer_approval};

/// The `extra` key of standing grants, on a Bot and on a room.
pub const STANDING: &str = "standingApprovals";

/// Where an approval stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ApprovalStatus {
    Waiting,
    AllowedOnce,
    Rejected,
    /// The turn that asked ended before an answer (stopped, cut).
    Cancelled,
}

/// One tool approval of `state.flybot.approvals`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ApprovalRecord {
    pub id: String,
    pub bot_id: String,
    pub session_id: String,
    /// The tool's name: the approval's kind.
    pub tool: String,
    pub label: String,
    pub status: ApprovalStatus,
    pub request_id: String,
    /// The Bot's owner when asked, from the roster (#754).
    pub owner_id: String,
    pub created_at: u64,
    pub tool_call_id: String,
    /// The room whose group Session asked; none for the Bot's own chat.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub room_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub decided_at: Option<u64>,
    /// The answer given (`allowed-once`, `rejected`, `always-bot`, ...), or
    /// the approval whose standing grant released this one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<String>,
}

impl ApprovalRecord {
    pub fn from_value(value: &Value) -> Option<ApprovalRecord> {
        serde_json::from_value(value.clone()).ok()
    }
}

/// The tool approvals in `state`.
pub fn tool_approvals(state: &TeamState) -> impl Iterator<Item = ApprovalRecord> + '_ {
    state
        .flybot
        .approvals
        .values()
        .filter_map(ApprovalRecord::from_value)
}

/// Whether a standing grant in `extra` covers `kind` for `owner_id`.
fn grant_in(extra: &Extra, kind: &str, owner_id: &str) -> bool {
    extra
        .get(STANDING)
        .and_then(|v| v.as_array())
        .is_some_and(|grants| {
            grants.iter().any(|g| {
                g.get("kind").and_then(|k| k.as_str()) == Some(kind)
                    && g.get("ownerId")
                        .and_then(|o| o.as_str())
                        .is_none_or(|o| o == owner_id)
            })
        })
}

/// Whether a standing grant on `bot`, or on `room` for the Bot's owner,
/// covers an ask of `kind` (#540).
fn grants_cover(bot: &Bot, room: Option<&Room>, kind: &str) -> bool {
    grant_in(&bot.extra, kind, &bot.owner_id)
        || room.is_some_and(|room| grant_in(&room.extra, kind, &bot.owner_id))
}

/// Whether a standing grant covers an ask of `kind` by `bot` from `room_id`
/// (#540): the Bot's own grant covers every Session of the Bot; a room's
/// grant covers only asks from that room, for the Bot's owner.
pub fn standing_covers(state: &TeamState, bot: &Bot, room_id: Option<&str>, kind: &str) -> bool {
    grants_cover(bot, room_id.and_then(|id| state.rooms.get(id)), kind)
}

/// Adds a standing grant of `kind` to `extra`, once per kind and owner.
fn add_grant(extra: &mut Extra, kind: &str, label: &str, at: u64, owner_id: &str) {
    let grants = extra
        .entry(STANDING.to_owned())
        .or_insert_with(|| json!([]));
    if !grants.is_array() {
        *grants = json!([]);
    }
    if let Some(list) = grants.as_array_mut() {
        let held = list.iter().any(|g| {
            g.get("kind").and_then(|k| k.as_str()) == Some(kind)
                && g.get("ownerId").and_then(|o| o.as_str()) == Some(owner_id)
        });
        if !held {
            list.push(json!({"kind": kind, "label": label, "at": at, "ownerId": owner_id}));
        }
    }
}
