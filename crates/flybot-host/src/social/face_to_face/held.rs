//! Held Bot lines of a face-to-face room (#456, #52): a line one of this
//! home's Bots writes in a face room goes to the other homes under the
//! same Ask-first / Auto-send rule as its other sends to friends. A Bot on
//! `ask-first` has its line held in `state.social.held` (the owner's Send
//! or Don't send, beside the other holds) and recorded on the room's
//! `heldLines` (`seq`, `botId`, `text`, `pending`; the newest 50), which
//! the room's view carries, so the page shows it waiting. Send puts it in
//! the outbox and drops the record; Don't send marks it `rejected`; a room
//! this home left or its maker closed while it was held sends nothing
//! (`failed`). The spec's `sending` step is the moment between the record
//! and the transport's answer: here both are one journaled change, so no
//! record is ever left `sending` and an auto-sent line keeps none.

use super::envelope::FACE_KEY;
use super::records::{FaceStatus, face, face_room_id};
use flybot_protocol::social::{HeldItem, OutboxItem, ReplyStatus, SendPolicy};
use flybot_protocol::state::Room;
use flybot_store::Change;
use serde::{Deserialize, Serialize};

/// How many held lines a room keeps (#456).
const HELD_KEPT: usize = 50;

/// The sentence of a held line whose room ended while it was held.
pub const ROOM_GONE: &str =
    "Not sent: you left this face-to-face room or it was closed while the line was held.";

/// Where a held line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum HeldStatus {
    /// Waiting for the owner's Send or Don't send.
    Pending,
    /// The owner said Don't send: it never left this home.
    Rejected,
    /// Send came after the room ended: it never left this home.
    Failed,
}

/// One of `room.heldLines`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HeldLine {
    /// The line's seq in this home's room log.
    pub seq: u64,
    pub bot_id: String,
    pub text: String,
    pub status: HeldStatus,
    /// The outbox id the line goes under once let go.
    pub id: String,
}

pub fn held_lines(room: &Room) -> Vec<HeldLine> {
    room.extra
        .get("heldLines")
        .and_then(|v| serde_json::from_value(v.clone()).ok())
        .unwrap_or_default()
}

fn set_held_lines(room: &mut Room, lines: &[HeldLine]) {
    match serde_json::to_value(lines) {
        Ok(v) if !lines.is_empty() => {
            room.extra.insert("heldLines".into(), v);
        }
        _ => {
            room.extra.remove("heldLines");
        }
    }
}

/// Whether a held send is a face room's line (its content carries one).
pub fn is_face_hold(held: &HeldItem) -> bool {
    held.item.content.get(FACE_KEY).is_some()
}

/// The local face room a held line belongs to.
pub fn room_of_hold(held: &HeldItem) -> String {
    face_room_id(&held.item.room_id)
}

/// Puts `item`, a line of `bot_id` at `seq`, on its way: in the outbox on
/// the owner's Auto-send, or held for the owner and recorded on the room
/// when the Bot's policy is Ask first. Answers whether it was held.
pub fn send_or_hold(
    change: &mut Change<'_>,
    room: &mut Room,
    item: OutboxItem,
    bot_id: Option<&str>,
    seq: u64,
) -> bool {
    let social = &change.state().social;
    if social.outbox.contains_key(&item.id) || social.held.contains_key(&item.id) {
        return false;
    }
    let policy = bot_id.and_then(|b| social.policies.get(b).copied());
    let Some(bot_id) = bot_id.filter(|_| policy == Some(SendPolicy::AskFirst)) else {
        change.put_outbox(&item);
        return false;
    };
    let text = (item.content.get("body").and_then(|b| b.as_str()))
        .unwrap_or_default()
        .to_owned();
    let mut lines = held_lines(room);
    lines.retain(|l| l.id != item.id);
    lines.push(HeldLine {
        seq,
        bot_id: bot_id.to_owned(),
        text,
        status: HeldStatus::Pending,
        id: item.id.clone(),
    });
    let over = lines.len().saturating_sub(HELD_KEPT);
    lines.drain(..over);
    set_held_lines(room, &lines);
    let at = change.now_ms();
    change.put_held(&HeldItem {
        item,
        bot_id: bot_id.to_owned(),
        // Every home in the room reads it: no one friend.
        friend: String::new(),
        reply: false,
        at,
    });
    true
}

/// Whether a held face line may still go: its room is open here and its
/// Bot still sits in it.
fn still_reaches(room: Option<&Room>, held: &HeldItem) -> bool {
    room.is_some_and(|room| {
        face(room).is_some_and(|f| f.status == FaceStatus::Open)
            && room.members.contains(&held.bot_id)
    })
}

/// The owner's decision on a held face line, in the change that records
/// it (the held send is already taken out of `state.social.held`).
pub fn decide(
    change: &mut Change<'_>,
    held: &HeldItem,
    send: bool,
) -> (ReplyStatus, Option<&'static str>) {
    let room_id = room_of_hold(held);
    let mut room = change.state().rooms.get(&room_id).cloned();
    let (status, error, mark) = match (send, still_reaches(room.as_ref(), held)) {
        (false, _) => (
            ReplyStatus::Rejected,
            Some(crate::social::holds::NOT_SENT_BY_OWNER),
            Some(HeldStatus::Rejected),
        ),
        (true, true) => (ReplyStatus::Approved, None, None),
        (true, false) => (
            ReplyStatus::Failed,
            Some(ROOM_GONE),
            Some(HeldStatus::Failed),
        ),
    };
    if status == ReplyStatus::Approved {
        let mut item = held.item.clone();
        // In the order the owner lets sends go.
        item.created_at = change.now_ms();
        change.put_outbox(&item);
    }
    if let Some(room) = room.as_mut() {
        let mut lines = held_lines(room);
        match mark {
            None => lines.retain(|l| l.id != held.item.id),
            Some(mark) => {
                for line in lines.iter_mut().filter(|l| l.id == held.item.id) {
                    line.status = mark;
                }
            }
        }
        set_held_lines(room, &lines);
        room.updated_at = change.now_ms();
        change.put_room(room);
    }
    (status, error)
}
