//! The roster's room endpoints: create, update, delete. Creating a room posts
//! nothing and opens no round (#645).

use crate::actor::{acting_member, journal_actor};
use crate::ids::new_id;
use crate::rooms::RoomLogs;
use crate::team::Team;
use crate::view::room_view;
use flybot_core::access::Actor;
use flybot_core::names::{clean_name, clean_optional_name};
use flybot_core::roster::managed_room;
use flybot_core::roster::update_room::{
    RoomUpdate, check_admin, clean_members, clean_participants, needs_someone, set_notice,
    set_task_lead, update_room,
};
use flybot_protocol::ApiError;
use flybot_protocol::answers::{RoomAnswer, RoomDeleted};
use flybot_protocol::channel::{ById, CreateRoom, UpdateRoom};
use flybot_protocol::state::Room;

/// `create-room {name, members, admin?, participants?, notice?, taskLead?}`
/// → `{room}`; the notice (#894) and the task lead (#1182) as update-room
/// checks them.
pub async fn create(team: &Team, actor: &Actor, req: CreateRoom) -> Result<RoomAnswer, ApiError> {
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
            let mut room = Room {
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
            set_notice(&mut room, req.notice.clone())?;
            set_task_lead(&mut room, req.task_lead.clone())?;
            change.put_room(&room);
            Ok(room)
        })
        .await?;
    Ok(RoomAnswer {
        room: room_view(&room),
    })
}

/// `update-room {id, name?, members?, admin?, notice?, taskLead?}` →
/// `{room}`; `""` clears the admin, the notice or the task lead. The rule is core `roster::update_room`; a changed member list
/// reseats the room at its log's next line (#50).
pub async fn update(
    team: &Team,
    logs: &RoomLogs,
    actor: &Actor,
    req: UpdateRoom,
) -> Result<RoomAnswer, ApiError> {
    let update = RoomUpdate {
        name: clean_optional_name("name", req.name.as_deref())?,
        id: req.id,
        members: req.members,
        admin: req.admin,
        notice: req.notice,
        task_lead: req.task_lead,
    };
    let room = team
        .mutate(journal_actor(actor), |change| {
            refuse_face_seats(change.state(), actor, &update)?;
            let updated = update_room(
                change.state(),
                actor,
                update,
                |room_id| logs.last_seq(room_id) + 1,
                || new_id("session"),
                change.now_ms(),
            )?;
            change.apply_roster(&updated.writes);
            Ok(updated.room)
        })
        .await?;
    Ok(RoomAnswer {
        room: room_view(&room),
    })
}

/// #476: a face-to-face room's Bots and lead are the server's and its
/// maker's (`face-room-join`, `face-room-lead`), not a team role: a member
/// or admin change there is refused, after the usual access check.
fn refuse_face_seats(
    state: &flybot_protocol::TeamState,
    actor: &Actor,
    update: &RoomUpdate,
) -> Result<(), ApiError> {
    let room = managed_room(state, actor, &update.id)?;
    if !crate::social::face_to_face::records::is_face(room) {
        return Ok(());
    }
    let field = match (&update.members, &update.admin) {
        (Some(_), _) => "members",
        (None, Some(_)) => "admin",
        (None, None) => return Ok(()),
    };
    Err(ApiError::invalid(
        field,
        "A face-to-face room's Bots come with Join and its lead is set by the home that made it; change them there.",
    ))
}

/// `delete-room {id}` → `{room, deleted}`; grants scoped to it go too.
pub async fn delete(team: &Team, actor: &Actor, req: ById) -> Result<RoomDeleted, ApiError> {
    let room = team
        .mutate(journal_actor(actor), |change| {
            let state = change.state();
            let room = managed_room(state, actor, &req.id)?.clone();
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
            // Its dock's waiting question goes with it (#550).
            if change.state().questions.contains_key(&room.id) {
                change.remove_question(&room.id);
            }
            Ok(room)
        })
        .await?;
    Ok(RoomDeleted {
        room: room_view(&room),
        deleted: true,
    })
}
