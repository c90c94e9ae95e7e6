//! The guest's own end of a shared room (#1167): the owner hides a room
//! shared from another home (`room-share-hide`), and a mirror whose Bots
//! are no longer shared with its inviter (the grant revoked) is hidden on
//! the next look. A hidden mirror sends nothing further and refuses a
//! later line; only a newer join from its inviter opens it again.

use super::SharedRooms;
use super::records::{MirrorStatus, set_shared_from, shared_from};
use flybot_core::access::Actor;
use flybot_protocol::ApiError;
use flybot_protocol::state::{Room, TeamState};
use serde::Deserialize;

/// `room-share-hide {roomId}`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ShareHide {
    pub room_id: String,
}

/// Whether none of the mirror's Bots is shared with its inviter any more.
fn revoked(state: &TeamState, room: &Room, inviter: &str) -> bool {
    !room.members.iter().any(|bot| {
        crate::social::invite_links::peers::opened_by_link(state, bot, inviter)
            || flybot_core::social::reach(state, bot, inviter).is_ok()
    })
}

impl SharedRooms {
    /// `room-share-hide`: the owner's mirror of another home's room, hidden.
    pub async fn hide(&self, actor: &Actor, req: ShareHide) -> Result<Room, ApiError> {
        crate::social::check_owner(&self.social, actor)?;
        self.social
            .team()
            .mutate("social", move |change| {
                let state = change.state();
                let mine = actor.member_id(state);
                let room = state
                    .rooms
                    .get(&req.room_id)
                    .filter(|r| mine.as_deref() == Some(r.owner_id.as_str()))
                    .cloned();
                let Some((mut room, mut from)) = room.and_then(|r| shared_from(&r).map(|f| (r, f)))
                else {
                    return Err(ApiError::not_found("shared room", &req.room_id));
                };
                from.status = MirrorStatus::Hidden;
                set_shared_from(&mut room, &from);
                change.put_room(&room);
                Ok(room)
            })
            .await
    }

    /// Hides every open mirror whose Bots lost their grant to the inviter.
    pub(super) async fn hide_revoked(&self) {
        let revoked_rooms: Vec<String> = self.social.team().read(|state| {
            state
                .rooms
                .values()
                .filter(|r| {
                    shared_from(r).is_some_and(|f| {
                        f.status == MirrorStatus::Open && revoked(state, r, &f.home)
                    })
                })
                .map(|r| r.id.clone())
                .collect()
        });
        if revoked_rooms.is_empty() {
            return;
        }
        let hidden = self
            .social
            .team()
            .mutate("social", move |change| {
                for id in &revoked_rooms {
                    let Some(mut room) = change.state().rooms.get(id).cloned() else {
                        continue;
                    };
                    if let Some(mut from) = shared_from(&room) {
                        from.status = MirrorStatus::Hidden;
                        set_shared_from(&mut room, &from);
                        change.put_room(&room);
                    }
                }
                Ok(())
            })
            .await;
        if let Err(e) = hidden {
            tracing::warn!("a revoked shared room stays open: {}", e.message);
        }
    }
}
