//! The roster's room endpoints: create, update, delete. Creating a room posts
//! nothing and opens no round (#645).

use crate::actor::{acting_member, journal_actor};
use crate::ids::new_id;
use crate::rooms::RoomLogs;
use crate::team::Team;
use crate::view::room_view;
use flybot_core::access::{Actor, may_manage_room, may_seat_bot};
use flybot_core::names::clean_name;
use flybot_protocol::ApiError;
use flybot_protocol::channel::{ById, CreateRoom, UpdateRoom};
use flybot_protocol::state::{Room, TeamState};
use serde_json::{Value, json};

/// The most Bots one room seats.
const ROOM_MEMBERS_MAX: usize = 32;

/// Checks a member list: known Bots the actor may seat, no repeats.
fn clean_members(
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
            return Err(ApiError::forbidden(format!(
                "{} belongs to another member and is not granted to you; ask its owner for a grant.",
                bot.name
            ))
            .with("botId", id.as_str()));
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
fn clean_participants(state: &TeamState, participants: &[Value]) -> Result<Vec<Value>, ApiError> {
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

fn check_admin(admin: Option<&String>, members: &[String]) -> Result<(), ApiError> {
    match admin {
        Some(admin) if !members.contains(admin) => Err(ApiError::invalid(
            "admin",
            "The admin must be one of the room's member Bots.",
        )),
        _ => Ok(()),
    }
}

fn needs_someone(members: &[String], participants: &[Value]) -> Result<(), ApiError> {
    if members.is_empty() && participants.is_empty() {
        return Err(ApiError::invalid(
            "members",
            "A room needs at least one member Bot or participant.",
        ));
    }
    Ok(())
}

/// `create-room {name, members, admin?, participants?}` → `{room}`.
pub async fn create(team: &Team, actor: &Actor, req: CreateRoom) -> Result<Value, ApiError> {
    let name = clean_name("name", &req.name)?;
    let room = team
        .mutate(journal_actor(actor), |change| {
            let state = change.state();
            let members = clean_members(state, actor, None, &req.members)?;
            let participants = clean_participants(state, &req.participants)?;
            needs_someone(&members, &participants)?;
            let admin = req.admin.filter(|a| !a.is_empty());
            check_admin(admin.as_ref(), &members)?;
            let owner = acting_member(change, actor);
            let now = change.now_ms();
            let room = Room {
                id: new_id("room"),
                name,
                owner_id: owner,
                sessions: members
                    .iter()
                    .map(|m| (m.clone(), new_id("session")))
                    .collect(),
                members,
                admin,
                participants,
                created_at: now,
                updated_at: now,
                extra: Default::default(),
            };
            change.put_room(&room);
            Ok(room)
        })
        .await?;
    Ok(json!({"room": room_view(&room)}))
}

/// `update-room {id, name?, members?, admin?}` → `{room}`; `admin: ""` clears it.
pub async fn update(
    team: &Team,
    logs: &RoomLogs,
    actor: &Actor,
    req: UpdateRoom,
) -> Result<Value, ApiError> {
    let name = req
        .name
        .as_deref()
        .map(|n| clean_name("name", n))
        .transpose()?;
    let room = team
        .mutate(journal_actor(actor), |change| {
            let state = change.state();
            let mut room = managed_room(state, actor, &req.id)?;
            let before = room.clone();
            if let Some(name) = name {
                room.name = name;
            }
            if let Some(members) = &req.members {
                room.members = clean_members(state, actor, Some(&room.id), members)?;
                for member in &room.members {
                    if !room.sessions.contains_key(member) {
                        room.sessions.insert(member.clone(), new_id("session"));
                    }
                }
                if room
                    .admin
                    .as_ref()
                    .is_some_and(|a| !room.members.contains(a))
                {
                    room.admin = None;
                }
            }
            if let Some(admin) = &req.admin {
                room.admin = (!admin.is_empty()).then(|| admin.clone());
            }
            check_admin(room.admin.as_ref(), &room.members)?;
            // The seats the windows keep (#50) are not people: the owner's
            // derived seat and Bots that left do not count.
            let people: Vec<Value> = room
                .participants
                .iter()
                .filter(|p| {
                    let id = p.get("memberId").or_else(|| p.get("id"));
                    p.get("kind").and_then(Value::as_str) == Some("human")
                        && id.and_then(Value::as_str) != Some(room.owner_id.as_str())
                        && p.get("leftSeq").is_none()
                })
                .cloned()
                .collect();
            needs_someone(&room.members, &people)?;
            if room.members != before.members {
                // Membership windows (#50): a Bot that left sees nothing
                // more; one that comes back starts at the next line.
                let seq = logs.last_seq(&room.id) + 1;
                let seats = flybot_core::rooms::participants::reseat_bots(
                    &before,
                    &room.members,
                    room.admin.as_deref(),
                    seq,
                );
                room.participants = flybot_core::rooms::participants::to_values(&seats);
            }
            if room != before {
                room.updated_at = change.now_ms();
                change.put_room(&room);
            }
            Ok(room)
        })
        .await?;
    Ok(json!({"room": room_view(&room)}))
}

/// `delete-room {id}` → `{room, deleted}`; grants scoped to it go too.
pub async fn delete(team: &Team, actor: &Actor, req: ById) -> Result<Value, ApiError> {
    let room = team
        .mutate(journal_actor(actor), |change| {
            let state = change.state();
            let room = managed_room(state, actor, &req.id)?;
            let scoped: Vec<(String, Vec<_>)> = state
                .grants
                .iter()
                .filter(|(_, list)| list.iter().any(|g| g.room_id.as_ref() == Some(&room.id)))
                .map(|(bot, list)| {
                    let kept = list
                        .iter()
                        .filter(|g| g.room_id.as_ref() != Some(&room.id))
                        .cloned()
                        .collect();
                    (bot.clone(), kept)
                })
                .collect();
            for (bot, kept) in scoped {
                change.set_grants(&bot, &kept);
            }
            change.remove_room(&room.id);
            Ok(room)
        })
        .await?;
    Ok(json!({"room": room_view(&room), "deleted": true}))
}

fn managed_room(state: &TeamState, actor: &Actor, id: &str) -> Result<Room, ApiError> {
    let room = state
        .rooms
        .get(id)
        .ok_or_else(|| ApiError::not_found("room", id))?;
    if !may_manage_room(actor, room) {
        return Err(ApiError::forbidden(format!(
            "The room {} belongs to another member; only its owner can change it.",
            room.name
        ))
        .with("roomId", id));
    }
    Ok(room.clone())
}
