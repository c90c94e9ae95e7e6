//! `noticeSeen` (#894): the room keeps, per member, a 16-hex mark of the
//! notice that member last saw (`room.noticeSeen[botId]`, `""` once a
//! notice it saw was cleared). The notice itself lives in the standing section; a member's next
//! turn says only that it changed or was cleared since that member's last
//! turn, and a member that never took a turn here is told nothing.

use super::standing::notice_mark;
use flybot_protocol::state::Room;
use serde_json::{Map, Value};

/// The turn's line when the notice changed since the member last saw it.
pub const NOTICE_CHANGED: &str =
    "The group's notice changed since your last turn: read it in your group rules.";
/// The turn's line when the notice was cleared since the member last saw it.
pub const NOTICE_CLEARED: &str = "The group's notice was cleared since your last turn.";

/// The room's notice, if it has one.
pub fn notice_of(room: &Room) -> Option<&str> {
    room.extra
        .get("notice")
        .and_then(Value::as_str)
        .filter(|n| !n.trim().is_empty())
}

/// The mark of what a member sees now: the notice's, or `""` for none.
pub fn mark_now(room: &Room) -> String {
    notice_of(room).map(notice_mark).unwrap_or_default()
}

/// The mark `bot_id` last saw, if it took a turn here since marks were kept.
pub fn seen_by<'a>(room: &'a Room, bot_id: &str) -> Option<&'a str> {
    room.extra
        .get("noticeSeen")
        .and_then(|seen| seen.get(bot_id))
        .and_then(Value::as_str)
}

/// What `bot_id`'s turn says about the notice: that it changed, that it was
/// cleared, or nothing.
pub fn notice_news(room: &Room, bot_id: &str) -> Option<&'static str> {
    let seen = seen_by(room, bot_id)?;
    let now = mark_now(room);
    match (seen == now, now.is_empty()) {
        (true, _) => None,
        (false, true) => Some(NOTICE_CLEARED),
        (false, false) => Some(NOTICE_CHANGED),
    }
}

/// The room with `bot_id`'s mark set to `mark` (what its turn was shown);
/// `None` when that is already its mark, so nothing is written.
pub fn see_notice(room: &Room, bot_id: &str, mark: &str) -> Option<Room> {
    let seen = seen_by(room, bot_id);
    // No notice seen and none to note: nothing to write (a notice set later
    // is read in the standing rules).
    if seen == Some(mark) || (seen.is_none() && mark.is_empty()) {
        return None;
    }
    let mut room = room.clone();
    let seen = room
        .extra
        .entry("noticeSeen".to_owned())
        .or_insert_with(|| Value::Object(Map::new()));
    if !seen.is_object() {
        *seen = Value::Object(Map::new());
    }
    if let Some(seen) = seen.as_object_mut() {
        seen.insert(bot_id.to_owned(), Value::String(mark.to_owned()));
    }
    Some(room)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn room(notice: Option<&str>) -> Room {
        let mut room: Room = serde_json::from_value(serde_json::json!({
            "id": "r1", "name": "Build", "ownerId": "m1", "members": ["b1", "b2"],
            "createdAt": 1, "updatedAt": 1
        }))
        .unwrap();
        if let Some(n) = notice {
            room.extra.insert("notice".into(), n.into());
        }
        room
    }

    fn saw(room: &Room, bot: &str) -> Room {
        see_notice(room, bot, &mark_now(room)).unwrap()
    }

    #[test]
    /// Rule #894.
    fn notice_seen_tells_a_member_only_that_the_notice_changed_or_was_cleared() {
        let first = room(Some("Ship by Friday"));
        // A member that never took a turn here reads the notice in its rules.
        assert_eq!(notice_news(&first, "b1"), None);
        let seen = saw(&first, "b1");
        assert_eq!(seen_by(&seen, "b1").unwrap().len(), 16);
        assert_eq!(notice_news(&seen, "b1"), None);
        assert_eq!(see_notice(&seen, "b1", &mark_now(&seen)), None, "no write");
        let mut changed = seen.clone();
        changed
            .extra
            .insert("notice".into(), "Ship by Monday".into());
        assert_eq!(notice_news(&changed, "b1"), Some(NOTICE_CHANGED));
        assert_eq!(notice_news(&changed, "b2"), None);
        let mut cleared = seen.clone();
        cleared.extra.remove("notice");
        assert_eq!(notice_news(&cleared, "b1"), Some(NOTICE_CLEARED));
        // A member that only ever saw no notice has no mark to write; one
        // that saw a notice keeps "" once it is cleared, and is told when a
        // new one is set.
        assert_eq!(see_notice(&room(None), "b2", ""), None);
        let blank = see_notice(&cleared, "b1", "").unwrap();
        assert_eq!(seen_by(&blank, "b1"), Some(""));
        let mut set = blank.clone();
        set.extra.insert("notice".into(), "Freeze".into());
        assert_eq!(notice_news(&set, "b1"), Some(NOTICE_CHANGED));
    }
}
