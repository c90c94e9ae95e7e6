//! The end of a shared room (#1167): `delete-room` of a room this home
//! shares first sends each guest home the leave a removed Bot sends, so no
//! guest keeps an open mirror of a room that is gone. A home not connected
//! to Matrix deletes the room all the same and logs that its guests were
//! not told.

use super::SharedRooms;
use super::records::host_share;
use super::send::join_of;
use flybot_core::access::Actor;
use flybot_core::rooms::participants::{ParticipantKind, participants_of, to_values};
use flybot_protocol::{ApiError, ErrorCode};

impl SharedRooms {
    /// Before `delete-room`: every remote seat of a room this home shares
    /// ends, and its guests read a leave. A room the actor may not delete,
    /// or one this home does not share, is left to the delete's own answer;
    /// a homeserver that does not take the leave refuses the delete, and
    /// nothing is deleted.
    pub async fn end_for_guests(&self, actor: &Actor, room_id: &str) -> Result<(), ApiError> {
        let social = &self.social;
        let found = social.team().read(|s| {
            let room = flybot_core::roster::managed_room(s, actor, room_id).ok()?;
            Some((room.clone(), host_share(room)?))
        });
        let Some((room, share)) = found else {
            return Ok(());
        };
        let Some((account, matrix)) = social.matrix() else {
            tracing::warn!(
                "{room_id} is deleted while this home is not connected to Matrix; its guests were not told"
            );
            return Ok(());
        };
        let left = self.logs.last_seq(&room.id) + 1;
        let mut seats = participants_of(&room);
        for seat in
            (seats.iter_mut()).filter(|s| s.kind == ParticipantKind::RemoteBot && s.is_live())
        {
            seat.left_seq = Some(left);
        }
        let mut ended = room.clone();
        ended.participants = to_values(&seats);
        let seq = share.join_seq + 1;
        let mut join =
            (social.team()).read(|s| join_of(s, &account.user_id, &ended, Vec::new(), seq));
        join.history = None;
        let me = &account.user_id;
        let sent = super::guests::publish(
            social,
            &matrix,
            me,
            Some(share),
            &room.name,
            &join,
            None,
            &[],
        );
        sent.await.map(drop).map_err(|e| {
            ApiError::new(
                ErrorCode::Unavailable,
                format!("The homeserver did not take the room's end ({e}); nothing was deleted, try again."),
            )
        })
    }
}
