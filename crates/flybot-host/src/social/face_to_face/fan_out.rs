//! The way out of a face-to-face room: each chat line this home writes
//! there (its owner's, or one of its own Bots') goes out once as an
//! `m.room.message` with an `org.flybot.face` line: the log's lines after
//! `fannedSeq` are put in the journaled outbox with the new mark, in one
//! change, under ids made from the room and the seq (one Matrix
//! transaction per line, however often it is queued). A Bot's line goes
//! under that Bot's Ask-first / Auto-send policy (#456, `held`).

use super::FaceRooms;
use super::envelope::{FACE_KEY, FaceLineOut};
use super::records::{FaceStatus, face, set_face};
use crate::social::shared_rooms::envelope::fit_text;
use flybot_core::rooms::log::{AuthorKind, LineKind, RoomLine};
use flybot_core::rooms::mentions::{Named, calls};
use flybot_core::rooms::participants::{ParticipantKind, participants_of};
use flybot_protocol::social::OutboxItem;
use flybot_protocol::state::Room;
use serde_json::json;

impl FaceRooms {
    /// Puts this home's new lines of every open face room in the outbox.
    pub(super) async fn fan_out(&self) {
        let open: Vec<(String, u64)> = self.social.team().read(|state| {
            state
                .rooms
                .values()
                .filter_map(|r| face(r).map(|f| (r.id.clone(), f)))
                .filter(|(_, f)| f.status == FaceStatus::Open)
                .map(|(id, f)| (id, f.fanned_seq))
                .collect()
        });
        for (room_id, fanned) in open {
            if self.logs.last_seq(&room_id) > fanned {
                self.fan_out_room(&room_id, fanned).await;
            }
        }
    }

    async fn fan_out_room(&self, room_id: &str, fanned: u64) {
        let Ok(lines) = self.logs.lines_after(room_id, fanned) else {
            return;
        };
        let room_id = room_id.to_owned();
        let written = self
            .social
            .team()
            .mutate("social", move |change| {
                let Some(mut room) = change.state().rooms.get(&room_id).cloned() else {
                    return Ok(false);
                };
                let Some(mut record) = face(&room) else {
                    return Ok(false);
                };
                let now = change.now_ms();
                for (item, bot, seq) in outgoing(&room, &record.matrix_room_id, &lines, now) {
                    super::held::send_or_hold(change, &mut room, item, bot.as_deref(), seq);
                }
                let newest = lines.last().map_or(0, |l| l.seq);
                record.fanned_seq = record.fanned_seq.max(newest);
                set_face(&mut room, &record);
                change.put_room(&room);
                Ok(true)
            })
            .await;
        match written {
            Ok(true) => self.social.inner.outbox_bell.notify_one(),
            Ok(false) => {}
            Err(e) => tracing::warn!("a face room's lines were not queued: {}", e.message),
        }
    }
}

/// The Bots of other homes seated in `room`, as `@` names them: the bare
/// Bot name and the label `<Bot> (<owner>)`.
fn remote_named(room: &Room) -> Vec<Named> {
    participants_of(room)
        .into_iter()
        .filter(|p| p.kind == ParticipantKind::RemoteBot && p.is_live())
        .map(|p| {
            let label = p.name.clone().unwrap_or_default();
            let bare = label.split(" (").next().unwrap_or(&label).to_owned();
            let mut named = Named::new(&p.id, &bare);
            named.handle = p.id.rsplit_once('/').map(|(_, h)| h.to_owned());
            named
        })
        .collect()
}

/// The outbox items of the chat lines this home wrote, each with the Bot
/// that wrote it (none: the owner's own line) and its seq.
fn outgoing(
    room: &Room,
    matrix_room: &str,
    lines: &[RoomLine],
    now: u64,
) -> Vec<(OutboxItem, Option<String>, u64)> {
    let remote = remote_named(room);
    lines
        .iter()
        .filter(|l| l.kind == LineKind::Chat)
        .filter_map(|l| {
            let handle = match l.author_kind {
                AuthorKind::LocalBot if room.members.contains(&l.author_id) => {
                    Some(l.author_id.clone())
                }
                AuthorKind::Human if !l.author_id.starts_with('@') => None,
                _ => return None,
            };
            let text = crate::attachments::line::shown_text(&l.text).to_owned();
            let line = FaceLineOut {
                seq: l.seq,
                author_kind: l.author_kind,
                handle: handle.clone(),
                hop: l.hop,
                calls: calls(&text, &remote).ids,
                typed: l.author_kind == AuthorKind::Human,
            };
            let item = OutboxItem {
                id: format!(
                    "f2f-{}",
                    crate::social::outbox::short_hash(&format!("{}:{}", room.id, l.seq))
                ),
                room_id: matrix_room.to_owned(),
                content: json!({"msgtype": "m.text", "body": fit_text(&text), FACE_KEY: line}),
                created_at: now,
                attempts: 0,
                next_at: 0,
            };
            Some((item, handle, l.seq))
        })
        .collect()
}
