//! A local room's invite links (issue 34, #852-#1176) on Bot Social's
//! Matrix transport, so a person who is nobody's friend can join a room by
//! a link. The link is `https://<server>/r/<handle>/<ticket>` (`ticket`);
//! the room keeps its links (`records`); the claim and its verification
//! live on the homeserver (`lobby`: a knock-only, world-readable Matrix
//! room per shared room, one state event per link, a knock whose reason
//! carries the claim); the inviter's rule (`verdict`) and its seating
//! (`seat`); the invitee's preview and claim (`ask`); the room admin's
//! mint, list and revoke (`mint`); what the one sync hands it (`knock`);
//! the pairs a link opens (`peers`) and a Bot's line to a seat by its pair
//! (`direct`); the end of a claim and of a deleted room's links
//! (`life`); and the quiet poll (`poll`). No
//! client or sync of its own: it sends through the same Matrix client and
//! seats through the shared rooms' join.

pub mod ask;
pub mod direct;
pub mod knock;
pub mod life;
pub mod lobby;
pub mod mint;
pub mod peers;
pub mod poll;
pub mod records;
pub mod seat;
pub mod ticket;
pub mod verdict;

use super::Social;
use crate::rooms::RoomLogs;
use poll::{Looked, next_look};
use records::{invites, knocks};
use std::sync::Arc;
use std::time::Duration;

/// How often the service looks even when nothing was written.
const TICK: Duration = Duration::from_secs(2);

/// The invite links' service. Cheap to clone.
#[derive(Clone)]
pub struct InviteLinks {
    social: Social,
    logs: Arc<RoomLogs>,
}

impl InviteLinks {
    pub fn new(social: &Social, logs: &Arc<RoomLogs>) -> InviteLinks {
        InviteLinks {
            social: social.clone(),
            logs: logs.clone(),
        }
    }

    /// Seats the knocks the sync notes, and reads one open link's lobby
    /// about once a minute (#1064), minding the cool-down (#1161).
    pub fn start(&self) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let this = self.clone();
        runtime.spawn(async move {
            let bus = this.social.team().bus().clone();
            let mut written = this.social.team().store().watch_revision();
            let mut next_quiet = 0u64;
            let mut turn = 0usize;
            loop {
                this.seat_knocked().await;
                this.settle_claims().await;
                let now = this.social.team().store().clock_ms();
                if now >= next_quiet {
                    let looked = this.quiet_read(&mut turn).await;
                    next_quiet = next_look(now, looked);
                }
                let gone = tokio::select! {
                    changed = written.changed() => changed.is_err(),
                    _ = tokio::time::sleep(TICK) => false,
                    _ = bus.stopped() => true,
                };
                if gone {
                    return;
                }
            }
        });
    }

    /// Every room with a knock the sync noted.
    async fn seat_knocked(&self) {
        let rooms: Vec<String> = self.social.team().read(|s| {
            (s.rooms.values())
                .filter(|r| !knocks(r).is_empty())
                .map(|r| r.id.clone())
                .collect()
        });
        for room in rooms {
            if let Err(e) = self.seat_room(&room, false).await {
                tracing::info!("knocks on {room} wait: {}", e.message);
            }
        }
    }

    /// One room with an open server link, in turn.
    async fn quiet_read(&self, turn: &mut usize) -> Looked {
        let now = self.social.team().store().clock_ms();
        let rooms: Vec<String> = self.social.team().read(|s| {
            (s.rooms.values())
                .filter(|r| invites(r).iter().any(|l| l.server && l.is_open(now)))
                .map(|r| r.id.clone())
                .collect()
        });
        if rooms.is_empty() || self.social.matrix().is_none() {
            return Looked::Read;
        }
        *turn = turn.wrapping_add(1);
        let room = &rooms[*turn % rooms.len()];
        self.seat_room(room, false)
            .await
            .unwrap_or(Looked::Unanswered)
    }

    /// `room-invite-seat` (Seat them): the room's lobby read again now,
    /// refused homes too.
    pub async fn seat_now(
        &self,
        actor: &flybot_core::access::Actor,
        req: mint::RoomOnly,
    ) -> Result<mint::Links, flybot_protocol::ApiError> {
        crate::social::check_owner(&self.social, actor)?;
        let room = (self.social.team()).read(|s| mint::admin_room(s, actor, &req.room_id))?;
        self.seat_room(&room.id, true).await?;
        let room = (self.social.team()).read(|s| mint::admin_room(s, actor, &req.room_id))?;
        Ok(mint::links_of(&room, self.social.team().store().clock_ms()))
    }
}
