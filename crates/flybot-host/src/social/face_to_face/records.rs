//! What a face-to-face room keeps on its room record (`room.extra`, with
//! `origin: face-to-face`), typed: the Matrix room it lives in, its number,
//! where it is (open, left, closed), every home it has had with the person
//! and the Bots each brought (#182: a home that left stays in the title),
//! the lead, how far this home's lines went out, the lines that start no
//! turn here, and the remote lines on their way into the log.

use super::envelope::{BotEntry, HomePart, HomeStatus, LeadRef};
use crate::social::shared_rooms::records::{Inbound, seat_id};
use flybot_core::rooms::participants::{
    Participant, ParticipantKind, RoomRole, participants_of, to_values,
};
use flybot_core::social::{clean_label, friend_bot_title};
use flybot_protocol::state::Room;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// The origin of a face-to-face room (#83).
pub const FACE_TO_FACE: &str = "face-to-face";
/// How many seqs of quiet lines a room remembers.
const QUIET_KEPT: usize = 200;

/// Where this home is in the room.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum FaceStatus {
    Open,
    /// This home left; the transcript stays and the room reopens (#171).
    Left,
    /// Its maker closed it.
    Closed,
}

/// A face-to-face room's record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FaceRecord {
    pub matrix_room_id: String,
    /// The number it is joined by (`joinCode`, #304); empty until known.
    #[serde(default)]
    pub code: String,
    pub status: FaceStatus,
    #[serde(default)]
    pub created_at: u64,
    /// The name its maker gave it; empty: the auto title.
    #[serde(default)]
    pub given_name: String,
    /// The auto title last given; a room whose name differs was renamed
    /// and keeps its name (#172).
    #[serde(default)]
    pub auto_title: Option<String>,
    /// Every home the room has had, by Matrix user id (#182).
    #[serde(default)]
    pub homes: BTreeMap<String, HomePart>,
    #[serde(default)]
    pub lead: Option<LeadRef>,
    /// The home that made the room (#476): the sender of its create event,
    /// read when this home joins (else of its first `org.flybot.face`
    /// state), or this home when it made it. Only its state events change
    /// the lead or close the room.
    #[serde(default)]
    pub maker: String,
    /// This home's lines up to here are in the outbox.
    #[serde(default)]
    pub fanned_seq: u64,
    /// Seqs of remote lines that start no turn here (#295: not attested,
    /// or naming only other homes' Bots).
    #[serde(default)]
    pub quiet: Vec<u64>,
}

pub fn face(room: &Room) -> Option<FaceRecord> {
    room.extra
        .get("face")
        .and_then(|v| serde_json::from_value(v.clone()).ok())
}

pub fn is_face(room: &Room) -> bool {
    room.extra.get("origin").and_then(Value::as_str) == Some(FACE_TO_FACE)
}

pub fn set_face(room: &mut Room, record: &FaceRecord) {
    if let Ok(v) = serde_json::to_value(record) {
        room.extra.insert("face".into(), v);
    }
    room.extra
        .insert("origin".into(), Value::from(FACE_TO_FACE));
}

pub fn inbox(room: &Room) -> Vec<Inbound> {
    room.extra
        .get("faceInbox")
        .and_then(|v| serde_json::from_value(v.clone()).ok())
        .unwrap_or_default()
}

pub fn set_inbox(room: &mut Room, lines: &[Inbound]) {
    match serde_json::to_value(lines) {
        Ok(v) if !lines.is_empty() => {
            room.extra.insert("faceInbox".into(), v);
        }
        _ => {
            room.extra.remove("faceInbox");
        }
    }
}

impl FaceRecord {
    pub fn new(matrix_room_id: &str) -> FaceRecord {
        FaceRecord {
            matrix_room_id: matrix_room_id.to_owned(),
            code: String::new(),
            status: FaceStatus::Open,
            created_at: 0,
            given_name: String::new(),
            auto_title: None,
            homes: BTreeMap::new(),
            lead: None,
            maker: String::new(),
            fanned_seq: 0,
            quiet: Vec::new(),
        }
    }

    pub fn note_quiet(&mut self, seq: u64) {
        self.quiet.push(seq);
        let over = self.quiet.len().saturating_sub(QUIET_KEPT);
        self.quiet.drain(..over);
    }

    /// Whether `home` is in the room now.
    pub fn seats_home(&self, home: &str) -> bool {
        self.homes
            .get(home)
            .is_some_and(|h| h.status == HomeStatus::Joined)
    }
}

/// The shared auto title (#172, #182, #194, #304): the number, then every
/// person the room has had, in the stable order of their homes' ids, so
/// every home derives the same title.
pub fn auto_title(record: &FaceRecord) -> String {
    let people: Vec<String> = record
        .homes
        .values()
        .map(|h| clean_label(&h.owner_name, "Someone"))
        .collect();
    let head = match record.code.is_empty() {
        true => "Face-to-face room".to_owned(),
        false => format!("Face-to-face {}", record.code),
    };
    match people.is_empty() {
        true => head,
        false => format!("{head} · {}", people.join(", ")),
    }
}

/// The room's name after a change of its record: the maker's name, or the
/// auto title refreshed unless this home renamed the room (#172).
pub fn refresh_title(room: &mut Room, record: &mut FaceRecord) {
    if !record.given_name.is_empty() {
        if record.auto_title.is_some() || room.name.is_empty() {
            room.name = clean_label(&record.given_name, "Face-to-face room");
            record.auto_title = None;
        }
        return;
    }
    let renamed = record
        .auto_title
        .as_ref()
        .is_some_and(|t| *t != room.name && !room.name.is_empty());
    if renamed {
        return;
    }
    let title = auto_title(record);
    room.name = title.clone();
    record.auto_title = Some(title);
}

/// Seats the Bots of `home` as its part says (#384: `<Bot> (<owner>)`): a
/// Bot it no longer brings, or a home that left, is marked left; one that
/// comes back is the same seat with a new window (#1072).
pub fn seat_home(room: &mut Room, home: &str, part: &HomePart) {
    let mut seats = participants_of(room);
    // A window mark that only grows: remote seats never read this home's
    // log, so it orders joins and leaves rather than naming a line.
    let next_seq = seats
        .iter()
        .map(|s| s.joined_seq.max(s.left_seq.unwrap_or(0)))
        .max()
        .unwrap_or(0)
        + 1;
    let owner = clean_label(&part.owner_name, "Someone");
    let live: Vec<String> = match part.status {
        HomeStatus::Joined => part.bots.iter().map(|b| seat_id(home, &b.handle)).collect(),
        HomeStatus::Left => Vec::new(),
    };
    for seat in seats.iter_mut().filter(|s| {
        s.kind == ParticipantKind::RemoteBot && s.owner.as_deref() == Some(home) && s.is_live()
    }) {
        if !live.contains(&seat.id) {
            seat.left_seq = Some(next_seq);
        }
    }
    if part.status == HomeStatus::Joined {
        for bot in &part.bots {
            let id = seat_id(home, &bot.handle);
            let name = friend_bot_title(&clean_label(&bot.name, "Bot"), &owner);
            match seats.iter_mut().find(|s| s.id == id) {
                Some(seat) => {
                    if seat.left_seq.is_some() {
                        seat.left_seq = None;
                        seat.joined_seq = next_seq;
                    }
                    seat.name = Some(name);
                    (seat.color, seat.avatar) = clean_look(bot);
                    seat.role_label = role_label(bot);
                }
                None => {
                    let mut seat = Participant::new(
                        &id,
                        ParticipantKind::RemoteBot,
                        RoomRole::Member,
                        next_seq,
                    );
                    seat.owner = Some(home.to_owned());
                    seat.name = Some(name);
                    (seat.color, seat.avatar) = clean_look(bot);
                    seat.role_label = role_label(bot);
                    seats.push(seat);
                }
            }
        }
    }
    room.participants = to_values(&seats);
}

/// A remote Bot's look as its home gave it, kept only in the shapes the
/// page draws safely: a `#rrggbb` color, and an avatar of at most four
/// printable characters with no `/` or `:` (an emoji or initials, never a
/// link the page would fetch). Anything else is none: the page seeds a
/// look from the handle.
pub fn clean_look(bot: &BotEntry) -> (Option<String>, Option<String>) {
    let color = bot.color.as_deref().map(str::trim).filter(|c| {
        c.len() == 7 && c.starts_with('#') && c[1..].chars().all(|d| d.is_ascii_hexdigit())
    });
    let avatar = bot.avatar.as_deref().map(str::trim).filter(|a| {
        let n = a.chars().count();
        (1..=4).contains(&n)
            && !a
                .chars()
                .any(|c| c.is_control() || matches!(c, '/' | ':' | '<' | '>'))
    });
    (color.map(str::to_owned), avatar.map(str::to_owned))
}

/// A remote Bot's role as its home gave it, cleaned like a name (#476).
fn role_label(bot: &BotEntry) -> Option<String> {
    let role = clean_label(bot.role.as_deref().unwrap_or(""), "");
    (!role.is_empty()).then_some(role)
}

/// The local room a Matrix room is, by a stable id made from it.
pub fn face_room_id(matrix_room_id: &str) -> String {
    format!(
        "room-f2f-{}",
        crate::social::outbox::short_hash(matrix_room_id)
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn room() -> Room {
        Room {
            id: "room-f2f-1".into(),
            name: String::new(),
            owner_id: "m".into(),
            members: vec![],
            admin: None,
            participants: vec![],
            sessions: Default::default(),
            created_at: 1,
            updated_at: 1,
            extra: Default::default(),
        }
    }

    fn part(owner: &str, bots: &[&str], status: HomeStatus) -> HomePart {
        HomePart {
            owner_name: owner.into(),
            bots: bots
                .iter()
                .map(|b| BotEntry {
                    handle: format!("bot-{b}"),
                    name: b.to_string(),
                    role: None,
                    color: None,
                    avatar: None,
                })
                .collect(),
            status,
        }
    }

    #[test]
    /// Rules #172, #182, #194, #304.
    fn every_home_derives_the_same_auto_title_and_a_renamed_room_keeps_its_name() {
        let mut record = FaceRecord::new("!r:x");
        record.code = "123456".into();
        record
            .homes
            .insert("@carol:x".into(), part("Carol", &[], HomeStatus::Joined));
        record
            .homes
            .insert("@alice:x".into(), part("Alice", &[], HomeStatus::Joined));
        let mut room = room();
        refresh_title(&mut room, &mut record);
        assert_eq!(room.name, "Face-to-face 123456 · Alice, Carol");
        // Carol leaves: she stays in the title (#182).
        record
            .homes
            .insert("@carol:x".into(), part("Carol", &[], HomeStatus::Left));
        record
            .homes
            .insert("@bob:x".into(), part("Bob", &[], HomeStatus::Joined));
        refresh_title(&mut room, &mut record);
        assert_eq!(room.name, "Face-to-face 123456 · Alice, Bob, Carol");
        // Renamed here: a roster change no longer touches it (#172).
        room.name = "Launch plan".into();
        record
            .homes
            .insert("@dan:x".into(), part("Dan", &[], HomeStatus::Joined));
        refresh_title(&mut room, &mut record);
        assert_eq!(room.name, "Launch plan");
    }

    #[test]
    /// Rules #384, #1072.
    fn a_home_that_leaves_and_joins_again_is_the_same_seat_with_a_new_window() {
        let mut room = room();
        seat_home(
            &mut room,
            "@bob:x",
            &part("Bob", &["Bolt"], HomeStatus::Joined),
        );
        let seats = participants_of(&room);
        let bolt = seats.iter().find(|s| s.id == "@bob:x/bot-Bolt").unwrap();
        assert_eq!(bolt.name.as_deref(), Some("Bolt (Bob)"));
        seat_home(
            &mut room,
            "@bob:x",
            &part("Bob", &["Bolt"], HomeStatus::Left),
        );
        assert!(
            !participants_of(&room)
                .iter()
                .any(|s| s.id == "@bob:x/bot-Bolt" && s.is_live())
        );
        let first = participants_of(&room)
            .into_iter()
            .find(|s| s.id == "@bob:x/bot-Bolt")
            .unwrap()
            .joined_seq;
        seat_home(
            &mut room,
            "@bob:x",
            &part("Bob", &["Bolt"], HomeStatus::Joined),
        );
        let seats = participants_of(&room);
        let bolts: Vec<_> = seats.iter().filter(|s| s.id == "@bob:x/bot-Bolt").collect();
        assert_eq!(bolts.len(), 1, "not a second live row");
        assert!(bolts[0].is_live());
        assert!(bolts[0].joined_seq > first, "a new window");
    }

    #[test]
    /// Rule #83.
    fn a_remote_bots_look_is_kept_only_in_the_shapes_the_page_draws() {
        let bot = |color: &str, avatar: &str| BotEntry {
            handle: "bot-b".into(),
            name: "B".into(),
            role: None,
            color: Some(color.into()),
            avatar: Some(avatar.into()),
        };
        assert_eq!(
            clean_look(&bot("#1f56C2", "🦊")),
            (Some("#1f56C2".into()), Some("🦊".into()))
        );
        assert_eq!(clean_look(&bot(" #abcdef ", "AB")).1, Some("AB".into()));
        for (color, avatar) in [
            ("red", "https://x.example/a.png"),
            ("#12345", "<img>"),
            ("#1234567", "too long"),
            ("url(#x)", "a\u{0}b"),
            ("", ""),
        ] {
            assert_eq!(
                clean_look(&bot(color, avatar)),
                (None, None),
                "{color} {avatar}"
            );
        }
        let mut room = room();
        let mut part = part("Bob", &["Bolt"], HomeStatus::Joined);
        part.bots[0].color = Some("#00aa00".into());
        part.bots[0].avatar = Some("javascript:".into());
        seat_home(&mut room, "@bob:x", &part);
        let seat = (participants_of(&room).into_iter())
            .find(|s| s.id == "@bob:x/bot-Bolt")
            .unwrap();
        assert_eq!(seat.color.as_deref(), Some("#00aa00"));
        assert_eq!(seat.avatar, None);
    }
}
