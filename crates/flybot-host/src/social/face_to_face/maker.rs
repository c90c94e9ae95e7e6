//! The doors of the home that made a face-to-face room (#476): the lead
//! changed (`face-room-lead`: any Bot seated in the room, of any home, or
//! none) and the room closed (`face-room-close`: nobody writes there any
//! more; every home keeps its transcript in Past rooms). Both set the
//! room's `org.flybot.face` state, which the homeserver lets only the
//! maker set and every home reads only from the maker (`receive`), so the
//! change reaches each home's next round. The home owner's alone, and only
//! on the home that made the room: anyone else gets `bot/forbidden`.

use super::FaceRooms;
use super::doors::unreachable;
use super::envelope::{FACE_STATE, FaceMeta, LeadRef};
use super::receive::{local_lead, put};
use super::records::{FaceRecord, FaceStatus, face};
use flybot_core::access::Actor;
use flybot_core::rooms::participants::{ParticipantKind, participants_of};
use flybot_protocol::ApiError;
use flybot_protocol::state::Room;
use serde::Deserialize;

/// `face-room-lead {roomId, lead}`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FaceLead {
    pub room_id: String,
    /// One of this home's Bots in the room by its id, another home's Bot by
    /// its seat (`<home>/<handle>`), or none: the room has no lead.
    #[serde(default)]
    pub lead: Option<String>,
}

/// `face-room-close {roomId}`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct FaceClose {
    pub room_id: String,
}

/// The lead `wanted` names in `room`: a Bot seated there now.
fn lead_of(room: &Room, me: &str, wanted: &str) -> Result<LeadRef, ApiError> {
    let not_here = || {
        ApiError::invalid(
            "lead",
            "The lead must be a Bot in this room now; pick one from the room's list.",
        )
    };
    if room.members.iter().any(|m| m == wanted) {
        return Ok(LeadRef {
            home: me.to_owned(),
            handle: wanted.to_owned(),
        });
    }
    let seat = participants_of(room)
        .into_iter()
        .find(|p| p.id == wanted && p.kind == ParticipantKind::RemoteBot && p.is_live())
        .ok_or_else(not_here)?;
    let (home, handle) = seat.id.rsplit_once('/').ok_or_else(not_here)?;
    Ok(LeadRef {
        home: home.to_owned(),
        handle: handle.to_owned(),
    })
}

impl FaceRooms {
    /// The room `room_id` of this home, open, made by this home.
    fn made_here(
        &self,
        actor: &Actor,
        room_id: &str,
    ) -> Result<(Room, FaceRecord, String), ApiError> {
        crate::social::check_owner(&self.social, actor)?;
        let (account, _) = self.social.require_matrix()?;
        let room = self.social.team().read(|s| s.rooms.get(room_id).cloned());
        let room = room.ok_or_else(|| ApiError::not_found("face-to-face room", room_id))?;
        let record =
            face(&room).ok_or_else(|| ApiError::not_found("face-to-face room", room_id))?;
        if record.maker != account.user_id {
            return Err(ApiError::forbidden(
                "Only the home that made this face-to-face room changes its lead or closes it.",
            ));
        }
        super::refuse_ended(&room)?;
        Ok((room, record, account.user_id))
    }

    /// Sets the room's state on the server, then here.
    async fn set_meta(
        &self,
        mut room: Room,
        mut record: FaceRecord,
        me: String,
        meta: FaceMeta,
    ) -> Result<Room, ApiError> {
        let (_, matrix) = self.social.require_matrix()?;
        let content = serde_json::to_value(&meta).unwrap_or_default();
        let (id, content) = (&record.matrix_room_id.clone(), &content);
        let set = self.social.renewing(&matrix, |m| async move {
            m.set_state_keyed(id, FACE_STATE, "", content).await
        });
        set.await.map_err(|e| unreachable(&e))?;
        self.social
            .team()
            .mutate("social", move |change| {
                if let Some(now) = change.state().rooms.get(&room.id).cloned() {
                    room = now;
                    record = face(&room).unwrap_or(record);
                }
                record.lead = meta.lead;
                if meta.closed {
                    record.status = FaceStatus::Closed;
                }
                room.admin = local_lead(&room, &record, &me);
                Ok(put(change, room, record))
            })
            .await
    }

    fn meta_of(record: &FaceRecord) -> FaceMeta {
        FaceMeta {
            code: record.code.clone(),
            name: record.given_name.clone(),
            created_at: record.created_at,
            lead: record.lead.clone(),
            closed: record.status == FaceStatus::Closed,
        }
    }

    /// `face-room-lead`: the room's lead from now on, on every home.
    pub async fn set_lead(&self, actor: &Actor, req: FaceLead) -> Result<Room, ApiError> {
        let (room, record, me) = self.made_here(actor, &req.room_id)?;
        let lead = match req.lead.as_deref() {
            Some(wanted) => Some(lead_of(&room, &me, wanted)?),
            None => None,
        };
        let meta = FaceMeta {
            lead,
            ..Self::meta_of(&record)
        };
        self.set_meta(room, record, me, meta).await
    }

    /// `face-room-close`: nobody writes in the room any more, on any home.
    pub async fn close(&self, actor: &Actor, req: FaceClose) -> Result<Room, ApiError> {
        let (room, record, me) = self.made_here(actor, &req.room_id)?;
        let meta = FaceMeta {
            closed: true,
            ..Self::meta_of(&record)
        };
        self.set_meta(room, record, me, meta).await
    }
}
