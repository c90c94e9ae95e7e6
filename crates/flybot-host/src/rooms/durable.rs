//! A room line is shown once it is durable (issue 19): every line goes to
//! the home's turn log, and the writer's callback, in write order, moves
//! the room's shown mark and announces `room.line`. A person's line is
//! answered after that; a member's line in a round is not waited on, so the
//! round goes on while the disk syncs, and the round's end waits for all.

use super::logs::RoomLogs;
use crate::events::HostEvent;
use flybot_core::rooms::log::RoomLine;
use flybot_core::sync::lock;
use flybot_store::room_log::NewLine;
use flybot_store::turn_log::{OnDurable, Pending, Record, Urgency};
use std::io;

impl RoomLogs {
    /// Numbers and writes `line`; `Now` answers the wait for it too.
    pub(super) fn write_line(
        &self,
        room_id: &str,
        line: NewLine,
        attachments: Vec<String>,
        urgency: Urgency,
    ) -> io::Result<(RoomLine, Option<Pending>)> {
        self.with_log(room_id, |log| {
            let mut stored = log.next(line);
            // One record: the line and its attachments are durable together.
            stored.attachments = attachments;
            let record = Record::new(&self.home, log.path(), &stored)?;
            let announce = self.announcer(room_id, stored.seq);
            let pending = match urgency {
                Urgency::Now => Some(self.turn_log.write_pending(
                    vec![record],
                    None,
                    Some(announce),
                )?),
                Urgency::Soon => {
                    self.turn_log
                        .write(vec![record], None, Urgency::Soon, Some(announce))?;
                    None
                }
            };
            log.push(stored.clone());
            Ok((stored, pending))
        })?
    }

    /// Moves the room's shown mark to `seq` and announces the line.
    fn announcer(&self, room_id: &str, seq: u64) -> OnDurable {
        let shown = self.shown.clone();
        let bus = self.bus.clone();
        let room_id = room_id.to_owned();
        Box::new(move |result| match result {
            Ok(()) => {
                let mut shown = lock(&shown);
                let mark = shown.entry(room_id.clone()).or_default();
                *mark = (*mark).max(seq);
                drop(shown);
                bus.emit(HostEvent::RoomLine { room_id, seq });
            }
            Err(e) => tracing::warn!("room line {seq} of {room_id} is not durable: {e}"),
        })
    }

    /// The lines a person may be shown: the durable ones.
    pub fn shown_lines(&self, room_id: &str) -> io::Result<Vec<RoomLine>> {
        self.shown_after(room_id, 0)
    }

    /// The durable lines after seq `after`, oldest first.
    pub fn shown_after(&self, room_id: &str, after: u64) -> io::Result<Vec<RoomLine>> {
        let page = super::log_reads::LinePage {
            from: 0,
            after: Some(after),
            before: None,
            limit: usize::MAX,
        };
        Ok(self.shown_page(room_id, page)?.0)
    }

    /// Blocks until every line and run note written so far is durable, as
    /// `append` blocks for a person's line: the answer to a person waits on
    /// it, and no await lets a test's paused clock run ahead meanwhile.
    pub fn settle_now(&self) -> io::Result<()> {
        self.turn_log.write_durable(Vec::new(), None)
    }

    /// Resolves once every line written so far is durable and announced.
    pub async fn settled(&self) -> io::Result<()> {
        self.turn_log.settled().await
    }
}
