//! A standby becoming the writer (issue 35, #1027, #83). A standby on
//! PostgreSQL only reads: what writes what it receives (Bot Social and the
//! followers of shared rooms, invite links and face rooms) waits for the
//! lease. Started on a standby, Bot Social synced the homeserver with the
//! leader's account, every batch was refused as read-only (the standby's
//! page said the sync had stopped, and the sync backed off to 30 s, which
//! it still waited out after the takeover), and the inbox the old leader
//! left was never handed on. Now the takeover does what a writer's start
//! does, in its order: the repairs, the pickup, then Bot Social.

use crate::host::{Host, PickedUp};
use crate::rooms::external::ExternalSeats;
use std::time::Duration;

impl Host {
    /// What a start does once its store writes, run again when a standby
    /// takes the lease: the approvals the old leader left waiting end, cut
    /// attachment postings come back, and OpenCode cards left uncertain are
    /// reconciled. Each repair lives in the service it repairs and does
    /// nothing on a host that only reads.
    pub async fn took_over(&self) {
        self.approvals().clear_crashed_asks().await;
        crate::attachments::room_postings::repair_on_start(self.team(), self.rooms()).await;
        ExternalSeats::recover(self.rounds());
    }

    /// Bot Social and the followers of shared rooms, invite links and face
    /// rooms. After the pickup: a remote line queued before a crash is
    /// handed to its room once the room's run is back (#83).
    pub(crate) fn start_social(&self) {
        self.social().start();
        self.shared_rooms().start();
        self.invite_links().start();
        self.face_rooms().start();
    }

    /// On a standby: waits for the lease, then does what a writer's start
    /// does (`took_over`, `pick_up`, Bot Social) and answers the pickup.
    /// `None` when the host stops first.
    pub async fn lead_once_taken_over(&self) -> Option<PickedUp> {
        let mut revision = self.store().watch_revision();
        // The takeover moves the revision (the store re-announces it); a
        // look every second covers a takeover with no change behind it.
        while !self.writes() {
            let waited = tokio::time::timeout(Duration::from_secs(1), revision.changed()).await;
            if let Ok(Err(_)) = waited {
                return None; // the store is gone: the host is stopping
            }
        }
        self.took_over().await;
        let picked = self.pick_up();
        self.start_social();
        Some(picked)
    }
}
