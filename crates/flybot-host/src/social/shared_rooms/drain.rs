//! Remote lines into the room log: each line the sync queued on a shared
//! room (`shareInbox`) is appended as the remote author wrote it, fenced
//! (#98); a line that calls this room's own Bots opens one round for them
//! (`startInboundTurn`), unless its hop reached the room's `maxHops` or the
//! same remote line was answered already (`room.answered`). History lines
//! start no turn. The queue is cleared once the log holds the lines and
//! what the run took of them is durable; a crash in between finds the line
//! in the log's tail, does not add it twice, and opens its round if the run
//! had not taken it (`RoomLogs::deliver`).

use super::SharedRooms;
use super::records::{Inbound, answered, inbox, max_hops, note_answered, set_inbox, shared_from};
use flybot_core::rooms::log::LineKind;
use flybot_store::room_log::NewLine;

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
            // The queue goes only once what the run took is durable too.
            if let Err(e) = self.logs.settled().await {
                tracing::warn!("the shared lines of {room_id} stay queued: {e}");
                continue;
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
        let Some(bots) = self.social.team().read(|state| {
            let room = state.rooms.get(room_id)?;
            let bots: Vec<(String, String)> = due_calls(room, line)
                .into_iter()
                .filter_map(|(bot, key)| {
                    state.bots.get(&bot).map(|b| (format!("@{}", b.name), key))
                })
                .collect();
            Some(bots)
        }) else {
            return Ok(Vec::new());
        };
        let (names, due): (Vec<String>, Vec<String>) = bots.into_iter().unzip();
        // The calls this home resolved itself open the round; the peer's
        // own words stay inside the fence and call nobody (#98).
        let text = match due.is_empty() {
            true => line.text.clone(),
            false => format!("{}\n{}", names.join(" "), line.text),
        };
        let delivered = self.logs.deliver(
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
        match (delivered.owed, due.is_empty()) {
            (false, _) => {}
            (true, true) => self.logs.pass_over(room_id, delivered.seq),
            (true, false) => {
                self.logs.open_round_taking(room_id, delivered.seq);
            }
        }
        // A round the run took before a crash answered these calls too.
        Ok(due)
    }
}

/// The calls of a remote line that open a turn here, each with its
/// `answered` key: none for history, none once its hop reached the room's
/// `maxHops` (#825), and none for a Bot that answered that line already.
fn due_calls(room: &flybot_protocol::state::Room, line: &Inbound) -> Vec<(String, String)> {
    if line.history || line.hop >= max_hops(room) {
        return Vec::new();
    }
    let remote_room = shared_from(room).map_or_else(|| room.id.clone(), |f| f.remote_room_id);
    let seq = line.key.rsplit_once(':').map_or("0", |(_, s)| s);
    line.calls
        .iter()
        .map(|bot| (bot.clone(), format!("{remote_room}:{seq}:{bot}")))
        .filter(|(_, key)| !answered(room, key))
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use flybot_protocol::room_line::AuthorKind;
    use flybot_protocol::state::Room;

    fn room() -> Room {
        Room {
            id: "room-1".into(),
            name: "Plans".into(),
            owner_id: "m".into(),
            members: vec!["bot-a".into()],
            admin: None,
            participants: vec![],
            sessions: Default::default(),
            created_at: 1,
            updated_at: 1,
            extra: Default::default(),
        }
    }

    fn line(hop: u32, history: bool) -> Inbound {
        Inbound {
            key: "@bob:x:7".into(),
            author_id: "@bob:x/bot-b".into(),
            author_kind: AuthorKind::RemoteBot,
            text: "hi".into(),
            hop,
            calls: vec!["bot-a".into()],
            history,
        }
    }

    #[test]
    /// Rule #825.
    fn a_called_bot_answers_below_max_hops_3_and_once_per_remote_line() {
        let mut room = room();
        let due = due_calls(&room, &line(2, false));
        assert_eq!(due, vec![("bot-a".to_owned(), "room-1:7:bot-a".to_owned())]);
        assert!(due_calls(&room, &line(3, false)).is_empty(), "maxHops 3");
        assert!(
            due_calls(&room, &line(0, true)).is_empty(),
            "history starts no turn"
        );
        super::super::records::note_answered(&mut room, "room-1:7:bot-a".into());
        assert!(
            due_calls(&room, &line(0, false)).is_empty(),
            "answered once"
        );
    }
}
