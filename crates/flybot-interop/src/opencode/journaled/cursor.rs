//! The inbox cursor as a position in the room's log (#198, "persist
//! validated ingress ... before advancing the durable inbox cursor"): in a
//! room, what Bot B has been delivered is the room line that called its
//! turn, so the cursor is that line's sequence number, journaled with the
//! decision and advanced only by a delivery. Bot B's own replies and
//! progress never move it, and a line at or before the cursor is never
//! delivered again (a round resumed after a restart re-calling the Bot on
//! the same line sends nothing twice).

use super::{JournaledTask, blocked};
use crate::journal::TransportContext;
use crate::opencode::driver::TurnEnd;
use std::time::Duration;
use tokio::sync::watch;

impl JournaledTask {
    /// The inbox cursor follows the room's log from now on (a room's
    /// seat); without it each envelope moves it by one (a harness).
    pub fn follow_room_log(&mut self) {
        self.room_cursor = true;
    }

    /// The inbox position `context`'s envelope is journaled at.
    pub(super) fn cursor_for(&self, context: &TransportContext) -> u64 {
        let current = self.journal.inbox_cursor();
        if !self.room_cursor {
            return current + 1;
        }
        match self.delivering {
            Some(seq) if context.sender_bot == self.parties.requester_bot => seq.max(current),
            Some(_) | None => current,
        }
    }

    /// Bot B's turn on the room line `room_seq` (the last line it sees):
    /// the line is delivered once; at or before the cursor it is not
    /// delivered again.
    pub async fn turn_at(
        &mut self,
        text: &str,
        room_seq: u64,
        stop: &mut watch::Receiver<bool>,
        limit: Duration,
    ) -> TurnEnd {
        let cursor = self.journal.inbox_cursor();
        if self.room_cursor && room_seq <= cursor {
            return blocked(format!(
                "room line {room_seq} was already delivered to OpenCode (its inbox cursor is at line {cursor}); nothing is sent twice"
            ));
        }
        self.delivering = Some(room_seq);
        let end = self.turn(text, stop, limit).await;
        self.delivering = None;
        end
    }
}
