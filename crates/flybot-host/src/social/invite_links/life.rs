//! The end of a claim and of a room's links (#884, #923). On the asker's
//! side a claim (`roomClaims[ticket]`) is given back at the server, its
//! knock taken back by leaving the lobby, when the room it seated is no
//! longer open here (the last of its Bots left: the inviter's roster
//! dropped them, a leave, or the owner hid it), and dropped after a day
//! nobody answered it; either way `ticketPeers` stops listing its pairs.
//! A home whose Bots were taken out may ask again by the same link: the
//! inviter seats a home again once none of its seats is live, and the new
//! claim is not ended by the leave that came before it.
//! On the inviter's side, deleting a room first withdraws every link of
//! it at the server and answers each knock there `revoked`, so a later
//! preview or ask reads `revoked` and nothing can be seated by it. The
//! rule is pure (`claim_end`, the time passed in); the service applies it.

use super::InviteLinks;
use super::lobby;
use super::records::{invites, lobby as lobby_of};
use super::verdict::ServerLink;
use crate::social::shared_rooms::records::{MirrorStatus, SharedFrom, shared_from};
use flybot_core::access::Actor;
use flybot_protocol::social::RoomClaim;
use flybot_protocol::state::TeamState;
use flybot_protocol::{ApiError, ErrorCode};

/// How long a claim nobody answered is kept (#884): a day.
pub const CLAIM_UNANSWERED_MS: u64 = 24 * 60 * 60 * 1000;

/// Why a claim ends.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClaimEnd {
    /// The room it seated is no longer open here: its last Bot left.
    Left,
    /// No room came of it within a day.
    Unanswered,
}

/// This home's mirror of `inviter`'s room that holds any of `bots`, with
/// where it stands.
pub fn claim_mirror(state: &TeamState, inviter: &str, bots: &[String]) -> Option<SharedFrom> {
    (state.rooms.values())
        .filter_map(|r| shared_from(r).map(|f| (r, f)))
        .find(|(r, f)| f.home == inviter && bots.iter().any(|b| r.members.contains(b)))
        .map(|(_, from)| from)
}

/// Whether `claim` has ended at `now`: the mirror of the inviter's room
/// that holds its Bots was left or hidden after the claim was made, or
/// none is open a day on.
pub fn claim_end(state: &TeamState, claim: &RoomClaim, now: u64) -> Option<ClaimEnd> {
    match claim_mirror(state, &claim.inviter, &claim.bots) {
        Some(from) if from.status == MirrorStatus::Open => None,
        Some(from) if from.join_seq > claim.after_join_seq => Some(ClaimEnd::Left),
        _ if now.saturating_sub(claim.at) >= CLAIM_UNANSWERED_MS => Some(ClaimEnd::Unanswered),
        _ => None,
    }
}

fn not_taken(e: &crate::social::client::MatrixError) -> ApiError {
    ApiError::new(
        ErrorCode::Unavailable,
        format!(
            "The homeserver did not take the room's invite links back ({e}); nothing was deleted, try again."
        ),
    )
}

impl InviteLinks {
    /// Gives back (or drops) every claim of this home that has ended.
    pub(super) async fn settle_claims(&self) {
        let now = self.social.team().store().clock_ms();
        let ended: Vec<(RoomClaim, ClaimEnd)> = self.social.team().read(|s| {
            (s.social.room_claims.values())
                .filter_map(|c| claim_end(s, c, now).map(|end| (c.clone(), end)))
                .collect()
        });
        for (claim, end) in ended {
            let Some((_, matrix)) = self.social.matrix() else {
                return;
            };
            let l = &claim.lobby;
            let left =
                (self.social).renewing(&matrix, |m| async move { lobby::leave(&m, l).await });
            match left.await {
                // Already answered (refused, or the lobby gone): nothing
                // is held there any more.
                Err(e) if e.is_transient() => {
                    tracing::info!("the claim on {} is given back later: {e}", claim.ticket);
                    continue;
                }
                Err(e) => tracing::info!("the claim on {} was not held: {e}", claim.ticket),
                Ok(()) => {}
            }
            tracing::info!("the claim on {} ends: {end:?}", claim.ticket);
            let ticket = claim.ticket.clone();
            let dropped = (self.social.team())
                .mutate("social", move |change| {
                    if change.state().social.room_claims.get(&ticket) == Some(&claim) {
                        change.remove_room_claim(&ticket);
                    }
                    Ok(())
                })
                .await;
            if let Err(e) = dropped {
                tracing::warn!("an ended claim is kept: {}", e.message);
            }
        }
    }

    /// Before `delete-room`: every link of the room withdrawn at the
    /// server and each knock there answered `revoked`. A room the actor
    /// may not delete, or one with no links, is left to the delete's own
    /// answer; a homeserver that does not take the withdrawal refuses it.
    pub async fn drop_room_invites(&self, actor: &Actor, room_id: &str) -> Result<(), ApiError> {
        let social = &self.social;
        let found = social.team().read(|s| {
            let room = flybot_core::roster::managed_room(s, actor, room_id).ok()?;
            let lobby = lobby_of(room)?;
            let inviter = crate::social::shared_rooms::send::inviter_name(s, room);
            Some((room.clone(), lobby, inviter))
        });
        let Some((room, lobby_id, inviter)) = found else {
            return Ok(());
        };
        let Some((_, matrix)) = social.matrix() else {
            tracing::warn!("{room_id} is deleted while this home is not connected to Matrix");
            return Ok(());
        };
        for link in invites(&room)
            .into_iter()
            .filter(|l| l.withdrawn_at.is_none())
        {
            let withdrawn = ServerLink {
                status: "withdrawn".into(),
                room_name: room.name.clone(),
                lead_name: String::new(),
                inviter_name: inviter.clone(),
                expires_at: link.expires_at,
            };
            let (l, t, w) = (&lobby_id, &link.ticket, &withdrawn);
            let put = social.renewing(
                &matrix,
                |m| async move { lobby::put_link(&m, l, t, w).await },
            );
            put.await.map_err(|e| not_taken(&e))?;
        }
        let l = &lobby_id;
        let read = social.renewing(&matrix, |m| async move { lobby::state(&m, l).await });
        let knocks = read
            .await
            .map(|e| lobby::record(&e).knocks)
            .unwrap_or_default();
        for home in knocks.keys() {
            let denied = social.renewing(&matrix, |m| async move {
                lobby::deny(&m, l, home, "revoked").await
            });
            if let Err(e) = denied.await {
                tracing::info!("the claim of {home} on {room_id} stays at the server: {e}");
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    const INVITER: &str = "@alice:localhost";

    fn claim(at: u64) -> RoomClaim {
        RoomClaim {
            ticket: "t".repeat(22),
            inviter: INVITER.into(),
            handle: "bot-atlas".into(),
            lobby: "!lobby:localhost".into(),
            bots: vec!["bot-cleo".into()],
            at,
            after_join_seq: 0,
        }
    }

    /// A team with Cleo in a mirror of Alice's room in `status`, or none.
    fn team(status: Option<&str>) -> TeamState {
        let mut state = TeamState::default();
        if let Some(status) = status {
            let room = json!({"id": "room-m", "name": "Plans", "ownerId": "owner",
                "members": ["bot-cleo"], "createdAt": 0, "updatedAt": 0,
                "origin": "inbound-share",
                "sharedFrom": {"home": INVITER, "remoteRoomId": "room-p",
                    "matrixRoomId": "!m:localhost", "inviterName": "Alice",
                    "status": status, "joinSeq": 1}});
            state
                .rooms
                .insert("room-m".into(), serde_json::from_value(room).unwrap());
        }
        state
    }

    #[test]
    /// Rule #884.
    fn a_claim_nobody_answered_is_dropped_after_a_day_and_not_before() {
        let state = team(None);
        let at = 1_000;
        let before = at + CLAIM_UNANSWERED_MS - 1;
        assert_eq!(claim_end(&state, &claim(at), before), None);
        let after = at + CLAIM_UNANSWERED_MS;
        assert_eq!(
            claim_end(&state, &claim(at), after),
            Some(ClaimEnd::Unanswered)
        );
    }

    #[test]
    /// Rule #884.
    fn a_claim_ends_when_the_room_it_seated_is_left_and_lives_while_it_is_open() {
        let late = 10 * CLAIM_UNANSWERED_MS;
        assert_eq!(claim_end(&team(Some("open")), &claim(0), late), None);
        for status in ["left", "hidden"] {
            assert_eq!(
                claim_end(&team(Some(status)), &claim(0), 0),
                Some(ClaimEnd::Left),
                "{status}"
            );
        }
    }

    #[test]
    /// Rule #884: a home whose Bots were taken out asks again by the link.
    fn a_mirror_left_before_the_claim_does_not_end_it_and_a_later_leave_does() {
        let again = RoomClaim {
            after_join_seq: 1,
            ..claim(0)
        };
        // The old leave (join seq 1) was there before the claim.
        assert_eq!(claim_end(&team(Some("left")), &again, 0), None);
        let day = CLAIM_UNANSWERED_MS;
        assert_eq!(
            claim_end(&team(Some("left")), &again, day),
            Some(ClaimEnd::Unanswered)
        );
        // A leave after it (join seq 2) ends it.
        let mut state = team(Some("left"));
        let room = state.rooms.get_mut("room-m").unwrap();
        room.extra.get_mut("sharedFrom").unwrap()["joinSeq"] = json!(2);
        assert_eq!(claim_end(&state, &again, 0), Some(ClaimEnd::Left));
    }
}
