//! Approvals (#540, #754), pure half: the tool-approval record a waiting turn
//! leaves in `state.flybot.approvals`, the standing grants that answer an ask
//! at once, and answering an approval (`answer`), held sends (#52) included.
//! The host keeps the waiting turns and the delivery of a released send.

pub mod answer;
pub mod bounds;
pub mod origin;
pub mod revoke;

use flybot_protocol::state::{Bot, Extra, Room, TeamState};
use serde_json::json;

pub use answer::{Answer, Answered, answer_approval};

/// The `extra` key of standing grants, on a Bot and on a room.
pub const STANDING: &str = "standingApprovals";

// The records are data `state.flybot.approvals` holds, so they live in
// flybot-protocol; the rules that make and answer them are here.
pub use flybot_protocol::approval::{Approval, ApprovalRecord, ApprovalStatus};

/// The tool approvals in `state`.
pub fn tool_approvals(state: &TeamState) -> impl Iterator<Item = ApprovalRecord> + '_ {
    state
        .flybot
        .approvals
        .values()
        .filter_map(Approval::as_tool)
        .cloned()
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
