//! Remote face-to-face lines into the room log: each line the sync queued
//! (`faceInbox`) is appended as its home wrote it, fenced (#98), with the
//! `@Name`s of this home's Bots it called put before the fence, so the
//! round reads the calls this home resolved and the peer's own words call
//! nobody. Then the line goes to the round: a quiet line (#295) to none; a
//! Bot's line of another home while a round runs is a post inside it, so
//! its answer counts (#475) and the Bots it names are called there; any
//! other opens a round, or waits for the next one (#455). The queue is
//! cleared once the log holds the lines and what the run took of them is
//! durable; a crash in between finds the line in the log's tail, does not
//! add it twice, and hands it to the round if the run had not taken it
//! (`RoomLogs::deliver`).

use super::FaceRooms;
use super::records::{face, inbox, set_face, set_inbox};
use crate::rooms::logs::MidPost;
use crate::social::shared_rooms::records::Inbound;
use flybot_core::rooms::log::{AuthorKind, LineKind};
use flybot_store::room_log::NewLine;

impl FaceRooms {
    /// Appends every queued remote line, then clears what it appended.
    pub(super) async fn drain(&self) {
        let queued: Vec<(String, Vec<Inbound>)> = self.social.team().read(|state| {
            state
                .rooms
                .values()
                .filter(|r| face(r).is_some())
                .map(|r| (r.id.clone(), inbox(r)))
                .filter(|(_, lines)| !lines.is_empty())
                .collect()
        });
        for (room_id, lines) in queued {
            let mut taken = Vec::new();
            let mut quiet = Vec::new();
            for line in &lines {
                match self.append(&room_id, line) {
                    Ok(seq) => {
                        if line.history {
                            quiet.extend(seq);
                        }
                        taken.push(line.key.clone());
                    }
                    Err(e) => {
                        tracing::warn!("a face-to-face line waits for the log of {room_id}: {e}");
                        break;
                    }
                }
            }
            // The queue goes only once what the run took is durable too.
            if let Err(e) = self.logs.settled().await {
                tracing::warn!("the face lines of {room_id} stay queued: {e}");
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
                    if let Some(mut record) = face(&room) {
                        for seq in quiet {
                            record.note_quiet(seq);
                        }
                        set_face(&mut room, &record);
                    }
                    change.put_room(&room);
                    Ok(())
                })
                .await;
            if let Err(e) = cleared {
                tracing::warn!("the face lines of {room_id} stay queued: {}", e.message);
            }
        }
    }

    /// Appends one line (unless a crash appended it already) and hands it
    /// to the round. Answers the seq it holds in the log (none: it was
    /// there already and the run had taken it).
    fn append(&self, room_id: &str, line: &Inbound) -> std::io::Result<Option<u64>> {
        let names: Vec<String> = self.social.team().read(|state| {
            line.calls
                .iter()
                .filter_map(|bot| state.bots.get(bot).map(|b| format!("@{}", b.name)))
                .collect()
        });
        let text = match names.is_empty() {
            true => line.text.clone(),
            false => format!("{}\n{}", names.join(" "), line.text),
        };
        let delivered = self.logs.deliver(
            room_id,
            NewLine {
                author_id: line.author_id.clone(),
                author_kind: line.author_kind,
                kind: LineKind::Chat,
                text: text.clone(),
                at: flybot_store::system_now_ms(),
                hop: line.hop,
            },
        )?;
        let seq = delivered.seq;
        if !delivered.owed {
            return Ok(None);
        }
        if line.history {
            self.logs.pass_over(room_id, seq);
            return Ok(Some(seq));
        }
        let bot_mid_round = line.author_kind == AuthorKind::RemoteBot
            && self.logs.run(room_id, |r| {
                if r.running {
                    r.take(seq);
                    r.mid_posts.push(MidPost {
                        seq,
                        from: line.author_id.clone(),
                        text,
                    });
                }
                r.running
            });
        if !bot_mid_round {
            self.logs.open_round_taking(room_id, seq);
        }
        Ok(Some(seq))
    }
}
