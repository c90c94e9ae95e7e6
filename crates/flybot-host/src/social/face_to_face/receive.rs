//! A face-to-face event taken from the sync, in the sync's own journaled
//! change (so it is applied once, by its event id): the room's state (its
//! number, name, lead), a home's part (its person and Bots, joined or
//! left), or a line, queued for the room log. Who wrote a line is the
//! transport's sender, never the payload; a line from a home that is not
//! in the room is refused `not-in-room` and nothing changes; a Bot a home
//! does not list is shown as that home, `unverified`.

use super::envelope::{
    FACE_KEY, FACE_STATE, FaceLineOut, FaceMeta, HOME_STATE, HomePart, HomeStatus,
};
use super::records::{
    FaceRecord, FaceStatus, clean_look, face, face_room_id, inbox, refresh_title, seat_home,
    set_face, set_inbox,
};
use crate::social::client::RoomEvent;
use crate::social::shared_rooms::envelope::fit_text;
use crate::social::shared_rooms::records::{Inbound, note_name, seat_id};
use flybot_core::fences::fence;
use flybot_core::social::clean_label;
use flybot_protocol::room_line::AuthorKind;
use flybot_protocol::social::OutboxItem;
use flybot_protocol::state::Room;
use flybot_store::Change;
use serde_json::json;

/// The key of a refusal answered into a face room.
pub const REFUSED_KEY: &str = "org.flybot.face.refused";

/// Why a face event was refused: the code and one sentence.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Refusal {
    /// A line from a home that has no part in the room (#83).
    NotInRoom,
    /// A line for a Matrix room this home holds no face room of.
    UnknownRoom,
    /// A line for a room this home left or its maker closed.
    RoomEnded,
    /// A line that does not read.
    Invalid,
    /// The room's own state from a home that did not make the room.
    NotMaker,
}

impl Refusal {
    pub fn code(self) -> &'static str {
        match self {
            Refusal::NotInRoom => "not-in-room",
            Refusal::UnknownRoom => "unknown-room",
            Refusal::RoomEnded => "room-ended",
            Refusal::Invalid => "invalid",
            Refusal::NotMaker => "not-maker",
        }
    }

    pub fn sentence(self) -> &'static str {
        match self {
            Refusal::NotInRoom => {
                "Your home has no part in this room; join it by its number first."
            }
            Refusal::UnknownRoom => "This home holds no face-to-face room here.",
            Refusal::RoomEnded => {
                "This home left that room or it was closed; join it again to write."
            }
            Refusal::Invalid => "That face-to-face line could not be read.",
            Refusal::NotMaker => "Only the home that made this room changes it.",
        }
    }
}

/// Whether the sync hands this event to the face-to-face rooms.
pub fn takes(event: &RoomEvent) -> bool {
    match event.kind.as_str() {
        FACE_STATE => event.state_key.as_deref() == Some(""),
        HOME_STATE => event.state_key.is_some(),
        "m.room.message" => event.content.get(FACE_KEY).is_some(),
        _ => false,
    }
}

/// Applies one face event; a refused line is answered into the room.
pub fn receive(change: &mut Change<'_>, me: &str, matrix_room: &str, event: &RoomEvent) {
    let applied = match event.kind.as_str() {
        FACE_STATE => receive_meta(change, me, matrix_room, event),
        HOME_STATE => receive_home(change, me, matrix_room, event),
        _ if event.sender == me => Ok(()),
        _ => receive_line(change, me, matrix_room, event),
    };
    if let Err(refusal) = applied {
        tracing::info!(
            "a face-to-face event from {} was refused: {}",
            event.sender,
            refusal.code()
        );
        if event.kind == "m.room.message" {
            refuse(change, matrix_room, &event.event_id, refusal);
        }
    }
}

fn refuse(change: &mut Change<'_>, matrix_room: &str, event_id: &str, refusal: Refusal) {
    let item = OutboxItem {
        id: format!("f2f-ref-{}", crate::social::outbox::short_hash(event_id)),
        room_id: matrix_room.to_owned(),
        content: json!({
            "msgtype": "m.notice",
            "body": refusal.sentence(),
            REFUSED_KEY: {"code": refusal.code(), "event": event_id},
        }),
        created_at: change.now_ms(),
        attempts: 0,
        next_at: 0,
    };
    change.put_outbox(&item);
}

/// The face room of `matrix_room`, made bare when this home has none yet
/// (the sync may bring a home's part before the room's own state).
pub fn upsert_room(change: &Change<'_>, matrix_room: &str) -> Option<(Room, FaceRecord)> {
    let state = change.state();
    let id = face_room_id(matrix_room);
    if let Some(room) = state.rooms.get(&id) {
        let record = face(room)?;
        return Some((room.clone(), record));
    }
    let owner = flybot_core::access::host_owner_id(state)?;
    let now = change.now_ms();
    let room = Room {
        id,
        name: String::new(),
        owner_id: owner,
        members: Vec::new(),
        admin: None,
        participants: Vec::new(),
        sessions: Default::default(),
        created_at: now,
        updated_at: now,
        extra: Default::default(),
    };
    Some((room, FaceRecord::new(matrix_room)))
}

/// Writes the room with its record, its title refreshed; answers it.
pub fn put(change: &mut Change<'_>, mut room: Room, mut record: FaceRecord) -> Room {
    refresh_title(&mut room, &mut record);
    room.updated_at = change.now_ms();
    set_face(&mut room, &record);
    change.put_room(&room);
    room
}

/// The room's own state: only its maker may set it (the room's power
/// levels, which the homeserver enforces, and here the sender of its create
/// event, read when this home joins, else of the room's first such state),
/// so a power granted later, or a homeserver that lets it through, changes
/// no lead and closes nothing (#476).
fn receive_meta(
    change: &mut Change<'_>,
    me: &str,
    matrix_room: &str,
    event: &RoomEvent,
) -> Result<(), Refusal> {
    let meta: FaceMeta =
        serde_json::from_value(event.content.clone()).map_err(|_| Refusal::Invalid)?;
    let (mut room, mut record) = upsert_room(change, matrix_room).ok_or(Refusal::Invalid)?;
    if record.maker.is_empty() {
        record.maker = event.sender.clone();
    }
    if record.maker != event.sender {
        return Err(Refusal::NotMaker);
    }
    take_meta(&mut record, &meta);
    room.admin = local_lead(&room, &record, me);
    put(change, room, record);
    Ok(())
}

/// The maker's state of the room on its record: its number, name, lead
/// and whether it is closed (the name cleaned as a label).
pub fn take_meta(record: &mut FaceRecord, meta: &FaceMeta) {
    record.code = meta
        .code
        .chars()
        .filter(char::is_ascii_digit)
        .take(6)
        .collect();
    record.given_name = clean_label(&meta.name, "");
    if record.created_at == 0 {
        record.created_at = meta.created_at;
    }
    record.lead = meta.lead.clone();
    if meta.closed {
        record.status = FaceStatus::Closed;
    }
}

/// #476: the lead is this room's admin when it is one of this home's Bots
/// in the room (asked first, given the lead's notes); none in a room that
/// is no longer open.
pub fn local_lead(room: &Room, record: &FaceRecord, me: &str) -> Option<String> {
    let lead = record.lead.as_ref()?;
    (record.status == FaceStatus::Open && lead.home == me && room.members.contains(&lead.handle))
        .then(|| lead.handle.clone())
}

/// A home's part, set by that home alone (a state key that is a user id
/// can only be set by that user).
fn receive_home(
    change: &mut Change<'_>,
    me: &str,
    matrix_room: &str,
    event: &RoomEvent,
) -> Result<(), Refusal> {
    let home = event.state_key.as_deref().unwrap_or_default();
    if home != event.sender {
        return Err(Refusal::NotInRoom);
    }
    let mut part: HomePart =
        serde_json::from_value(event.content.clone()).map_err(|_| Refusal::Invalid)?;
    // The look is kept only in the shapes the page draws.
    for bot in &mut part.bots {
        (bot.color, bot.avatar) = clean_look(bot);
    }
    let (mut room, mut record) = upsert_room(change, matrix_room).ok_or(Refusal::Invalid)?;
    if home != me {
        seat_home(&mut room, home, &part);
        note_name(&mut room, home, &clean_label(&part.owner_name, "Someone"));
    }
    record.homes.insert(home.to_owned(), part);
    put(change, room, record);
    Ok(())
}

/// Whether this home holds a face-to-face room in `matrix_room`.
pub fn holds(change: &Change<'_>, matrix_room: &str) -> bool {
    let rooms = &change.state().rooms;
    rooms
        .get(&face_room_id(matrix_room))
        .is_some_and(|r| face(r).is_some())
}

/// A membership change the server made (#83: membership is the
/// server's): a home that left the Matrix room, or was kicked or banned
/// from it by someone else, is out of the room whatever its own part
/// still says. Its Bots are marked left on this home; when it is this
/// home, the room is left here (Past rooms keep it, #171).
pub fn receive_member(change: &mut Change<'_>, me: &str, matrix_room: &str, event: &RoomEvent) {
    let membership = event.content["membership"].as_str().unwrap_or("");
    let Some(home) = event.state_key.as_deref() else {
        return;
    };
    if !matches!(membership, "leave" | "ban") {
        return;
    }
    let Some((mut room, mut record)) = upsert_room(change, matrix_room) else {
        return;
    };
    if home == me {
        if record.status == FaceStatus::Open {
            record.status = FaceStatus::Left;
            room.admin = None;
        }
    } else {
        let Some(part) = record
            .homes
            .get(home)
            .filter(|p| p.status == HomeStatus::Joined)
        else {
            return;
        };
        let part = HomePart {
            status: HomeStatus::Left,
            ..part.clone()
        };
        seat_home(&mut room, home, &part);
        record.homes.insert(home.to_owned(), part);
    }
    if event.sender != home {
        tracing::info!(
            "{home} was put out of a face-to-face room by {}",
            event.sender
        );
    }
    put(change, room, record);
}

fn receive_line(
    change: &mut Change<'_>,
    me: &str,
    matrix_room: &str,
    event: &RoomEvent,
) -> Result<(), Refusal> {
    let line: FaceLineOut =
        serde_json::from_value(event.content[FACE_KEY].clone()).map_err(|_| Refusal::Invalid)?;
    let id = face_room_id(matrix_room);
    let mut room = change
        .state()
        .rooms
        .get(&id)
        .cloned()
        .ok_or(Refusal::UnknownRoom)?;
    let record = face(&room).ok_or(Refusal::UnknownRoom)?;
    if record.status != FaceStatus::Open {
        return Err(Refusal::RoomEnded);
    }
    let sender = event.sender.as_str();
    let part = record
        .homes
        .get(sender)
        .filter(|h| h.status == HomeStatus::Joined)
        .cloned()
        .ok_or(Refusal::NotInRoom)?;
    let owner = clean_label(&part.owner_name, "Someone");
    let bot = line
        .handle
        .as_deref()
        .and_then(|h| part.bots.iter().find(|b| b.handle == h));
    let (author_id, author_kind, name) = match (line.author_kind, bot) {
        (AuthorKind::Human, _) => (sender.to_owned(), AuthorKind::Human, owner.clone()),
        (_, Some(bot)) => (
            seat_id(sender, &bot.handle),
            AuthorKind::RemoteBot,
            format!("{} ({owner})", clean_label(&bot.name, "Bot")),
        ),
        // The payload names a Bot its home does not list: the home itself.
        _ => (
            sender.to_owned(),
            AuthorKind::RemoteBot,
            format!("{owner} (unverified, from {sender})"),
        ),
    };
    let split = |c: &String| {
        c.rsplit_once('/')
            .map(|(h, b)| (h.to_owned(), b.to_owned()))
    };
    let named: Vec<(String, String)> = line.calls.iter().filter_map(split).collect();
    let mine: Vec<String> = named
        .iter()
        .filter(|(home, handle)| home == me && room.members.contains(handle))
        .map(|(_, handle)| handle.clone())
        .collect();
    let text = event.content["body"].as_str().unwrap_or("");
    let all = flybot_core::rooms::mentions::calls(text, &[]).all;
    // #295: a person's line starts my Bots only when its home attests its
    // owner typed it, and not when it names only other homes' Bots.
    let quiet = match author_kind {
        AuthorKind::Human => !line.typed || (!named.is_empty() && mine.is_empty() && !all),
        _ => false,
    };
    let inbound = Inbound {
        key: event.event_id.clone(),
        text: fence(&format!("{name} ({sender})"), &fit_text(text)),
        author_id: author_id.clone(),
        author_kind,
        hop: line.hop,
        calls: mine,
        history: quiet,
    };
    note_name(&mut room, &author_id, &name);
    let mut queued = inbox(&room);
    queued.push(inbound);
    set_inbox(&mut room, &queued);
    put(change, room, record);
    Ok(())
}
