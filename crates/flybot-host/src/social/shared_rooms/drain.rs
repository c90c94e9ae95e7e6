//! Remote lines into the room log: each line the sync queued on a shared
//! room (`shareInbox`) is appended as the remote author wrote it, fenced
//! (#98); a line that calls this room's own Bots opens one round for them
//! (`startInboundTurn`), unless its hop reached the room's `maxHops` or the
//! same remote line was answered already (`room.answered`). History lines
//! start no turn. The queue is cleared after the log holds the lines; a
//! crash in between finds the line in the log's tail and does not add it
//! twice.

use super::SharedRooms;
use super::records::{Inbound, answered, inbox, max_hops, note_answered, set_inbox, shared_from};
use flybot_core::rooms::log::LineKind;
use flybot_store::room_log::NewLine;

/// How far back a redelivery looks for a line already in the log.
const TAIL: usize = 64;

impl SharedRooms {
    /// Appends every queued remote line, then clears what it appended.
    pub(super) async fn drain(&self) {
        let queued: Vec<(String, Vec<Inbound>)> = self.social.team().read(|state| {
            state
                .rooms
                .values()
                .map(|r| (r.id.clone(), inbox(r)))
                .filter(|(_, lines)| !lines.is_empty())
                .collect()
        });
        for (room_id, lines) in queued {
            let mut opened = Vec::new();
            let mut taken = Vec::new();
            for line in &lines {
                match self.append(&room_id, line) {
                    Ok(turns) => {
                        opened.extend(turns);
                        taken.push(line.key.clone());
                    }
                    Err(e) => {
                        tracing::warn!("a shared line waits for the log of {room_id}: {e}");
                        break;
                    }
                }
            }
            let room = room_id.clone();
            let cleared = self
                .social
                .team()
                .mutate("social", move |change| {
                    let Some(mut room) = change.state().rooms.get(&room).cloned() else {
                        return Ok(());
                    };
                    let left: Vec<Inbound> = inbox(&room)
                        .into_iter()
                        .filter(|l| !taken.contains(&l.key))
                        .collect();
                    set_inbox(&mut room, &left);
                    for key in opened {
                        note_answered(&mut room, key);
                    }
                    change.put_room(&room);
                    Ok(())
                })
                .await;
            if let Err(e) = cleared {
                tracing::warn!("the shared lines of {room_id} stay queued: {}", e.message);
            }
        }
    }

    /// Appends one line (unless a crash appended it already) and opens its
    /// round; answers the `answered` keys of the turns it opened.
    fn append(&self, room_id: &str, line: &Inbound) -> std::io::Result<Vec<String>> {
        let (room, names) = self.social.team().read(|state| {
            let room = state.rooms.get(room_id).cloned();
            let names: Vec<String> = line
                .calls
                .iter()
                .filter_map(|id| state.bots.get(id).map(|b| format!("@{}", b.name)))
                .collect();
            (room, names)
        });
        let Some(room) = room else {
            return Ok(Vec::new());
        };
        let remote_room = shared_from(&room).map_or_else(|| room.id.clone(), |f| f.remote_room_id);
        let seq_of = line.key.rsplit_once(':').map_or("0", |(_, s)| s);
        let due: Vec<String> = line
            .calls
            .iter()
            .filter(|_| !line.history && line.hop < max_hops(&room))
            .map(|bot| format!("{remote_room}:{seq_of}:{bot}"))
            .filter(|key| !answered(&room, key))
            .collect();
        // The calls this home resolved itself open the round; the peer's
        // own words stay inside the fence and call nobody (#98).
        let text = match due.is_empty() {
            true => line.text.clone(),
            false => format!("{}\n{}", names.join(" "), line.text),
        };
        let tail = self.logs.recent(room_id, TAIL)?;
        if tail
            .iter()
            .any(|l| l.author_id == line.author_id && l.text == text)
        {
            return Ok(Vec::new());
        }
        let appended = self.logs.append(
            room_id,
            NewLine {
                author_id: line.author_id.clone(),
                author_kind: line.author_kind,
                kind: LineKind::Chat,
                text,
                at: flybot_store::system_now_ms(),
                hop: line.hop,
            },
        )?;
        if !due.is_empty() {
            self.logs.open_round(room_id, appended.seq);
        }
        Ok(due)
    }
}
