//! A room's members and its change (`create-room`'s checks, `update-room`):
//! member Bots are known Bots the actor may seat (its own, or granted to it,
//! #90), at most `ROOM_MEMBERS_MAX`; the admin is one of them; a room keeps
//! at least one member Bot or person. A changed member list reseats the
//! room at its next line (#50, `room_seats`).

use super::room_seats::{reseat, set_member_bots};
use super::{RosterWrite, RosterWrites, managed_room};
use crate::access::{Actor, may_seat_bot};
use flybot_protocol::ApiError;
use flybot_protocol::state::{Room, TeamState};
use serde_json::{Value, json};

/// The most Bots one room seats.
pub const ROOM_MEMBERS_MAX: usize = 32;

/// Checks a member list: known Bots the actor may seat, no repeats.
pub fn clean_members(
    state: &TeamState,
    actor: &Actor,
    room_id: Option<&str>,
    members: &[String],
) -> Result<Vec<String>, ApiError> {
    let mut clean: Vec<String> = Vec::with_capacity(members.len());
    for id in members {
        let Some(bot) = state.bots.get(id).filter(|b| !b.run) else {
            return Err(
                ApiError::invalid("members", format!("No Bot has the id {id}."))
                    .with("botId", id.as_str()),
            );
        };
        if !may_seat_bot(state, actor, bot, room_id) {
            let why = crate::unseen::about_bot(state, actor, bot, |name| {
                format!(
                    "{name} belongs to another member and is not granted to you; ask its owner for a grant."
                )
            });
            return Err(ApiError::forbidden(why).with("botId", id.as_str()));
        }
        if !clean.contains(id) {
            clean.push(id.clone());
        }
    }
    if clean.len() > ROOM_MEMBERS_MAX {
        return Err(ApiError::invalid(
            "members",
            format!("A room seats at most {ROOM_MEMBERS_MAX} Bots."),
        ));
    }
    Ok(clean)
}

/// Checks participants: for now, people of this team as `{kind: "human", memberId}`.
pub fn clean_participants(
    state: &TeamState,
    participants: &[Value],
) -> Result<Vec<Value>, ApiError> {
    participants
        .iter()
        .map(|p| {
            let kind = p.get("kind").and_then(Value::as_str);
            let member = p.get("memberId").and_then(Value::as_str);
            let only_known_keys = p
                .as_object()
                .is_some_and(|o| o.keys().all(|k| k == "kind" || k == "memberId"));
            match (kind, member) {
                (Some("human"), Some(id)) if only_known_keys && state.members.contains_key(id) => {
                    Ok(json!({"kind": "human", "memberId": id}))
                }
                _ => Err(ApiError::invalid(
                    "participants",
                    "A participant is {\"kind\": \"human\", \"memberId\": \"<a member's id>\"}.",
                )),
            }
        })
        .collect()
}

/// The admin, when set, is one of the room's member Bots.
pub fn check_admin(admin: Option<&String>, members: &[String]) -> Result<(), ApiError> {
    match admin {
        Some(admin) if !members.contains(admin) => Err(ApiError::invalid(
            "admin",
            "The admin must be one of the room's member Bots.",
        )),
        _ => Ok(()),
    }
}

/// A room keeps at least one member Bot or person.
pub fn needs_someone(members: &[String], participants: &[Value]) -> Result<(), ApiError> {
    if members.is_empty() && participants.is_empty() {
        return Err(ApiError::invalid(
            "members",
            "A room needs at least one member Bot or participant.",
        ));
    }
    Ok(())
}

/// The longest standing notice, in characters.
pub const NOTICE_MAX: usize = 2000;

/// `update-room {id, name?, members?, admin?, notice?, taskLead?}`, the name
/// already cleaned; `""` clears the admin, the notice or the task lead.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct RoomUpdate {
    pub id: String,
    pub name: Option<String>,
    pub members: Option<Vec<String>>,
    pub admin: Option<String>,
    pub notice: Option<String>,
    pub task_lead: Option<String>,
}

/// A room as an update leaves it, and the writes (none when nothing changed).
#[derive(Debug, Clone, PartialEq)]
pub struct UpdatedRoom {
    pub room: Room,
    pub writes: RosterWrites,
}

/// `update-room`: the room changed by `update` at `now`. A Bot that comes
/// gets a Session id from `new_session_id`; a changed member list reseats
/// the room at `next_seq(room id)`, read only then (#50).
pub fn update_room(
    state: &TeamState,
    actor: &Actor,
    update: RoomUpdate,
    next_seq: impl Fn(&str) -> u64,
    mut new_session_id: impl FnMut() -> String,
    now: u64,
) -> Result<UpdatedRoom, ApiError> {
    let before = managed_room(state, actor, &update.id)?;
    let mut room = before.clone();
    if let Some(name) = update.name {
        room.name = name;
    }
    if let Some(members) = &update.members {
        set_member_bots(
            &mut room,
            clean_members(state, actor, Some(&before.id), members)?,
        );
        for member in &room.members {
            if !room.sessions.contains_key(member) {
                room.sessions.insert(member.clone(), new_session_id());
            }
        }
    }
    if let Some(admin) = update.admin {
        room.admin = (!admin.is_empty()).then_some(admin);
    }
    check_admin(room.admin.as_ref(), &room.members)?;
    needs_someone(&room.members, &people(&room))?;
    set_notice(&mut room, update.notice)?;
    set_task_lead(&mut room, update.task_lead)?;
    if room.members != before.members {
        reseat(before, &mut room, next_seq(&before.id));
    }
    let mut writes = RosterWrites::default();
    if room != *before {
        room.updated_at = now;
        writes.push(RosterWrite::PutRoom(room.clone()));
    }
    Ok(UpdatedRoom { room, writes })
}

/// The standing notice every member's turn reads (#894): set, or cleared
/// by `""`.
pub fn set_notice(room: &mut Room, notice: Option<String>) -> Result<(), ApiError> {
    let Some(notice) = notice else { return Ok(()) };
    let notice = notice.trim();
    if notice.chars().count() > NOTICE_MAX {
        return Err(ApiError::invalid(
            "notice",
            format!("A notice is at most {NOTICE_MAX} characters; shorten it."),
        ));
    }
    if notice.is_empty() {
        room.extra.remove("notice");
    } else {
        room.extra.insert("notice".into(), notice.into());
    }
    Ok(())
}

/// The member Bot that divides the room's board (#1720): one of the room's
/// members, or cleared by `""` (then the admin leads).
pub fn set_task_lead(room: &mut Room, lead: Option<String>) -> Result<(), ApiError> {
    let Some(lead) = lead else { return Ok(()) };
    if lead.is_empty() {
        room.extra.remove("taskLead");
        return Ok(());
    }
    if !room.members.contains(&lead) {
        return Err(ApiError::invalid(
            "taskLead",
            "The task lead must be one of the room's member Bots.",
        ));
    }
    room.extra.insert("taskLead".into(), lead.into());
    Ok(())
}

/// The people seated in `room` the windows keep (#50): the owner's derived
/// seat and Bots that left do not count.
fn people(room: &Room) -> Vec<Value> {
    room.participants
        .iter()
        .filter(|p| {
            let id = p.get("memberId").or_else(|| p.get("id"));
            p.get("kind").and_then(Value::as_str) == Some("human")
                && id.and_then(Value::as_str) != Some(room.owner_id.as_str())
                && p.get("leftSeq").is_none()
        })
        .cloned()
        .collect()
}

#[cfg(test)]
mod tests {
    use super::super::fixture::{member, shape, team};
    use super::*;
    use flybot_protocol::ErrorCode;
    use flybot_protocol::state::Grant;
    use std::cell::Cell;

    fn members(ids: &[&str]) -> RoomUpdate {
        RoomUpdate {
            id: "room-1".into(),
            members: Some(ids.iter().map(|id| (*id).to_owned()).collect()),
            ..RoomUpdate::default()
        }
    }

    #[test]
    /// Rules #894, #1720.
    fn a_notice_and_a_task_lead_are_set_and_cleared_and_a_stranger_lead_refused() {
        let state = team();
        let room = state.rooms.get("room-1").unwrap();
        let lead = room.members[0].clone();
        let set = RoomUpdate {
            id: "room-1".into(),
            notice: Some("  Ship by Friday ".into()),
            task_lead: Some(lead.clone()),
            ..RoomUpdate::default()
        };
        let updated = update_room(&state, &member("member-a"), set, |_| 1, String::new, 5).unwrap();
        assert_eq!(updated.room.extra["notice"], "Ship by Friday");
        assert_eq!(updated.room.extra["taskLead"], lead.as_str());
        let mut state = state.clone();
        state.rooms.insert("room-1".into(), updated.room);
        let clear = RoomUpdate {
            id: "room-1".into(),
            notice: Some(String::new()),
            task_lead: Some(String::new()),
            ..RoomUpdate::default()
        };
        let cleared =
            update_room(&state, &member("member-a"), clear, |_| 1, String::new, 6).unwrap();
        assert!(!cleared.room.extra.contains_key("notice"));
        assert!(!cleared.room.extra.contains_key("taskLead"));
        let stranger = RoomUpdate {
            id: "room-1".into(),
            task_lead: Some("bot-nobody".into()),
            ..RoomUpdate::default()
        };
        let refused = update_room(&state, &member("member-a"), stranger, |_| 1, String::new, 7);
        let refused = refused.err().map(|e| e.details["field"].clone());
        assert_eq!(refused, Some(serde_json::json!("taskLead")));
    }

    #[test]
    /// Rule #50.
    fn update_room_reseats_once_at_the_next_seq_and_gives_a_coming_bot_a_session() {
        let mut state = team();
        state.grants.insert(
            "bot-rev".into(),
            vec![Grant {
                grantee: "member-a".into(),
                room_id: Some("room-1".into()),
            }],
        );
        let reads = Cell::new(0);
        let next_seq = |_: &str| {
            reads.set(reads.get() + 1);
            12
        };
        let updated = update_room(
            &state,
            &member("member-a"),
            members(&["bot-b", "bot-rev"]),
            next_seq,
            || "session-new".to_owned(),
            60,
        )
        .unwrap();
        assert_eq!(reads.get(), 1);
        assert_eq!(
            shape(&updated.writes),
            ["room room-1 members [\"bot-b\", \"bot-rev\"] admin None at 60"]
        );
        assert_eq!(updated.room.sessions["bot-rev"], "session-new");
        assert_eq!(updated.room.sessions["bot-a"], "room-session-a");
        let left = updated
            .room
            .participants
            .iter()
            .find(|p| p["id"] == "bot-a");
        assert_eq!(left.unwrap()["leftSeq"], 12);
    }

    #[test]
    /// Rule #50.
    fn update_room_without_a_member_change_reads_no_seq() {
        let state = team();
        let rename = RoomUpdate {
            id: "room-1".into(),
            name: Some("Ship".into()),
            ..RoomUpdate::default()
        };
        let no_seq = |_: &str| -> u64 { panic!("the member Bots did not change") };
        let no_id = || -> String { panic!("no Bot came") };
        let updated = update_room(&state, &member("member-a"), rename, no_seq, no_id, 60).unwrap();
        assert_eq!(updated.room.name, "Ship");
        assert!(updated.room.participants.is_empty());
    }

    #[test]
    /// Rules #49, #90.
    fn update_room_refusals_write_nothing() {
        let state = team();
        let no_seq = |_: &str| -> u64 { panic!("a refusal reseats nothing") };
        let ungranted = update_room(
            &state,
            &member("member-a"),
            members(&["bot-rev"]),
            no_seq,
            || "s".to_owned(),
            60,
        )
        .unwrap_err();
        assert_eq!(ungranted.code, ErrorCode::Forbidden);
        assert_eq!(ungranted.details["botId"], "bot-rev");
        let admin = RoomUpdate {
            admin: Some("bot-rev".into()),
            ..members(&["bot-a"])
        };
        let not_member = update_room(
            &state,
            &member("member-a"),
            admin,
            no_seq,
            || "s".into(),
            60,
        )
        .unwrap_err();
        assert_eq!(not_member.details["field"], "admin");
        let empty = update_room(
            &state,
            &member("member-a"),
            members(&[]),
            no_seq,
            || "s".into(),
            60,
        )
        .unwrap_err();
        assert_eq!(
            empty.message,
            "A room needs at least one member Bot or participant."
        );
        let foreign = update_room(
            &state,
            &member("member-b"),
            members(&["bot-a"]),
            no_seq,
            || "s".into(),
            60,
        )
        .unwrap_err();
        assert_eq!(foreign.details["roomId"], "room-1");
    }
}
