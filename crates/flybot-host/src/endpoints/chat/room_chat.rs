//! A room's channel (issue 5): `send {roomId, text}` for a person's line and
//! `messages {roomId, after?, before?, limit?}` for the room's log in the actor's membership
//! window (#50). A line while a member speaks is a steer into that turn, or a
//! stop that cancels it (#1267); a line while no round runs opens one.

use crate::busy_ack::{Arrival, BusyAcks};
use crate::rooms::Rounds;
use crate::rooms::interrupt::{let_go, oldest_wait};
use crate::rooms::log_reads::LinePage;
use flybot_core::access::Actor;
use flybot_core::rooms::log::{AuthorKind, LineKind};
use flybot_core::rooms::participants::{participants_of, window_start};
use flybot_core::rooms::steer::{
    Arrival as RoomArrival, RoomNow, Route, mid_line_note, route_line,
};
use flybot_protocol::answers::{
    RoomLineSent, RoomLineShown, RoomMessages as RoomMessagesAnswer, RoomQueued,
};
use flybot_protocol::state::{Room, TeamState};
use flybot_protocol::{ApiError, ErrorCode};
use flybot_store::room_log::NewLine;
use serde::Deserialize;
use serde_json::Value;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RoomSend {
    pub room_id: String,
    pub text: String,
    /// Uploads of the sender's own the line carries (issue 32).
    #[serde(default)]
    pub attachments: Vec<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RoomMessages {
    pub room_id: String,
    #[serde(default)]
    pub after: Option<u64>,
    /// Only lines older than this seq (a page of earlier lines).
    #[serde(default)]
    pub before: Option<u64>,
    /// At most this many lines, the newest of those asked for; read from
    /// the log's end, so a page costs its lines, not the room's length.
    #[serde(default)]
    pub limit: Option<usize>,
}

/// Whether a channel body names a room.
pub fn names_room(body: &[u8]) -> bool {
    serde_json::from_slice::<Value>(body)
        .ok()
        .is_some_and(|v| v.get("roomId").is_some())
}

/// The room and the first seq the actor may read there; a room outside the
/// actor's window answers like an unknown one.
pub(super) fn room_window(
    state: &TeamState,
    actor: &Actor,
    room_id: &str,
) -> Result<(Room, u64), ApiError> {
    let room = state
        .rooms
        .get(room_id)
        .ok_or_else(|| ApiError::not_found("room", room_id))?;
    let member = actor.member_id(state).unwrap_or_default();
    let start = window_start(state, &participants_of(room), &member)
        .ok_or_else(|| ApiError::not_found("room", room_id))?;
    Ok((room.clone(), start))
}

/// A room log the disk would not read or write: a fault of the host, never
/// of the caller's line (issue 38).
fn io_refusal(e: std::io::Error) -> ApiError {
    tracing::error!("a room log could not be used: {e}");
    ApiError::new(
        ErrorCode::Unavailable,
        "The room could not be opened on this host; try again.",
    )
}

/// `send {roomId, text}` → `{roomId, seq, queued: "round"|"steer"|"stop"|"interrupt"|"next-round"}`.
/// A line steered into the speaking member's turn is acknowledged on the
/// room, per member (#1646).
pub async fn send(
    rounds: &Rounds,
    acks: &BusyAcks,
    actor: &Actor,
    readers: &crate::attachments::reading::Readers<'_>,
    req: RoomSend,
) -> Result<RoomLineSent, ApiError> {
    super::not_on_standby(rounds.team())?;
    let text = flybot_core::names::clean_line(&req.text)?;
    let (room, member) = rounds.team().read(|state| {
        room_window(state, actor, &req.room_id)
            .map(|(room, _)| (room, actor.member_id(state).unwrap_or_default()))
    })?;
    // Issue 34: a face-to-face room this home left takes no line (#83).
    crate::social::face_to_face::refuse_ended(&room)?;
    let attached = crate::attachments::line::check(rounds.team(), actor, &req.attachments)?;
    // The group relay hands every seat the images as text (#779).
    let said = attached.text_for_model(text, readers, false).await;
    let text = said.as_str();
    let line = person_line(rounds, &room.id, member, text, attached.ids())?;
    // #124: the owner's line in a face-to-face room goes to the other
    // homes and opens no round here unless it names one of this home's Bots.
    let opens = rounds
        .team()
        .read(|state| crate::social::face_to_face::owner_line_opens_round(state, &room, text));
    if opens == Some(false) {
        let posting = flybot_protocol::attachment::Posting::Room {
            room_id: room.id.clone(),
            seq: line.seq,
        };
        attached.post(rounds.team(), actor, posting).await?;
        rounds.logs().settle_now().map_err(io_refusal)?;
        return Ok(RoomLineSent {
            room_id: room.id,
            seq: line.seq,
            queued: flybot_protocol::answers::RoomQueued::Posted,
        });
    }
    let (was_running, speaking) = rounds.logs().run(&room.id, |r| {
        // The line that finds no round claims it, in the same lock.
        (std::mem::replace(&mut r.running, true), r.speaking.clone())
    });
    let posting = flybot_protocol::attachment::Posting::Room {
        room_id: room.id.clone(),
        seq: line.seq,
    };
    attached.post(rounds.team(), actor, posting).await?;
    let now = flybot_store::system_now_ms();
    let wait = speaking
        .as_ref()
        .and_then(|(_, session)| oldest_wait(rounds.sessions(), session, now));
    let room_now = RoomNow {
        running: was_running,
        speaking: speaking.is_some(),
        oldest_wait_since: wait.as_ref().map(|(_, since)| *since),
        now,
    };
    let route = route_line(&room_now, RoomArrival::Line(text));
    let arrived = Arrived {
        room: &room,
        line: &line,
        text,
    };
    let queued = apply_route(rounds, acks, &arrived, speaking, wait, route);
    // Answered once what became of the line is durable too: the steer in
    // the member's Session, or the line waiting for the next round.
    rounds.logs().settle_now().map_err(io_refusal)?;
    Ok(RoomLineSent {
        room_id: room.id,
        seq: line.seq,
        queued,
    })
}

/// A person's line, stored, on its way into the room's round.
struct Arrived<'a> {
    room: &'a Room,
    line: &'a flybot_core::rooms::log::RoomLine,
    text: &'a str,
}

/// Does what core `route_line` decided for a person's line; a steer the
/// turn can no longer take, or a wait let go already, waits for the next
/// round instead.
fn apply_route(
    rounds: &Rounds,
    acks: &BusyAcks,
    arrived: &Arrived<'_>,
    speaking: Option<(String, String)>,
    wait: Option<(String, u64)>,
    route: Route,
) -> RoomQueued {
    let Arrived { room, line, .. } = *arrived;
    if route == Route::OpenRound {
        rounds.logs().start_round(&room.id, line.seq);
        return RoomQueued::Round;
    }
    let wait_next = || {
        rounds.logs().run(&room.id, |r| r.pending.push(line.seq));
        RoomQueued::NextRound
    };
    let Some((bot_id, session)) = speaking else {
        return wait_next();
    };
    match route {
        Route::StopSpeaker => {
            rounds.logs().run(&room.id, |r| {
                r.stopped = true;
                r.pending.push(line.seq);
            });
            crate::rooms::RoomParticipant::cancel(&rounds.participant(), &session);
            RoomQueued::Stop
        }
        Route::Interrupt
            if wait.is_some_and(|(call_id, _)| let_go(rounds.sessions(), &session, &call_id)) =>
        {
            rounds.logs().run(&room.id, |r| r.pending.push(line.seq));
            RoomQueued::Interrupt
        }
        Route::Steer | Route::Interrupt => {
            steer(rounds, acks, arrived, &bot_id, &session).unwrap_or_else(wait_next)
        }
        Route::OpenRound | Route::NextRound | Route::HaltRound | Route::Nothing => wait_next(),
    }
}

/// Steers `text` into the speaking member's turn and acknowledges it on
/// the room (#1267, #1646); `None` when the turn no longer takes steers.
fn steer(
    rounds: &Rounds,
    acks: &BusyAcks,
    arrived: &Arrived<'_>,
    bot_id: &str,
    session: &str,
) -> Option<RoomQueued> {
    let Arrived { room, line, text } = *arrived;
    let participant = rounds.participant();
    let note = format!("{}\n{text}", mid_line_note(&room.name));
    if !crate::rooms::RoomParticipant::steer(&participant, session, &note) {
        return None;
    }
    let model = rounds
        .team()
        .read(|state| state.bots.get(bot_id).map(|bot| bot.model.clone()))
        .unwrap_or_default();
    let line_id = format!("{}:{}", room.id, line.seq);
    let mut arrival = Arrival::in_session(rounds.sessions(), session, line_id, text, &model);
    arrival.in_room = Some((room.id.clone(), bot_id.to_owned()));
    acks.arrived(arrival);
    Some(RoomQueued::Steer)
}

/// Appends a person's line to room `room_id`'s log, with the ids of its
/// attachments in the line's own record (issue 32): one write, so the line
/// and what it carries are durable together. The records' postings that
/// decide who may read them follow (`Attached::post`), and a start puts
/// back any a crash cut off between (`attachments::room_postings`).
fn person_line(
    rounds: &Rounds,
    room_id: &str,
    member: String,
    text: &str,
    attachments: Vec<String>,
) -> Result<flybot_core::rooms::log::RoomLine, ApiError> {
    let line = NewLine {
        author_id: member,
        author_kind: AuthorKind::Human,
        kind: LineKind::Chat,
        text: text.to_owned(),
        at: flybot_store::system_now_ms(),
        hop: 0,
    };
    rounds
        .logs()
        .append_carrying(room_id, line, attachments)
        .map_err(io_refusal)
}

/// `messages {roomId, after?, before?, limit?}` → `{roomId, running,
/// speaking, messages, earlier}`: the lines from the actor's join on (#50),
/// the newest `limit` of them; passes are not lines.
pub fn messages(
    rounds: &Rounds,
    feed: &crate::live::feed::LiveFeed,
    actor: &Actor,
    req: RoomMessages,
) -> Result<RoomMessagesAnswer, ApiError> {
    let (room, start, names) = rounds.team().read(|state| {
        room_window(state, actor, &req.room_id).map(|(room, start)| {
            let names: std::collections::BTreeMap<String, String> = state
                .bots
                .values()
                .map(|b| (b.id.clone(), b.name.clone()))
                .chain(
                    state
                        .members
                        .values()
                        .map(|m| (m.id.clone(), m.name.clone())),
                )
                .collect();
            // Issue 34: the names remote seats and shared lines brought.
            let names = crate::social::shared_rooms::with_remote_names(&room, names);
            (room, start, names)
        })
    })?;
    let attached = rounds
        .team()
        .read(|state| lines_attachments(state, &req.room_id));
    let page = LinePage {
        from: start,
        after: req.after,
        before: req.before,
        limit: req.limit.unwrap_or(usize::MAX),
    };
    let (lines, earlier) = rounds
        .logs()
        .shown_page(&room.id, page)
        .map_err(io_refusal)?;
    let shown = lines
        .iter()
        .map(|l| RoomLineShown {
            seq: l.seq,
            author_id: l.author_id.clone(),
            author_kind: l.author_kind,
            author: names
                .get(&l.author_id)
                .cloned()
                .unwrap_or_else(|| l.author_id.clone()),
            kind: l.kind,
            text: crate::attachments::line::shown_text(&l.text).to_owned(),
            at: l.at,
            attachments: carried(l, attached.get(&l.seq)),
        })
        .collect();
    let (running, speaking) = rounds
        .logs()
        .run(&room.id, |r| (r.running, r.speaking.clone()));
    // A page that opens while a member speaks draws its line from the start.
    let draft = speaking
        .as_ref()
        .and_then(|(_, session)| feed.draft(session))
        .map(|(draft, at)| flybot_protocol::answers::ChatDraft {
            turn_id: draft.turn_id,
            text: draft.text,
            at,
        });
    Ok(RoomMessagesAnswer {
        room_id: room.id,
        running,
        speaking: speaking.map(|(bot, _)| bot),
        draft,
        messages: shown,
        earlier,
    })
}

/// The attachments a line carries: its own record's, then any a posting
/// names (a line stored before lines held their ids).
fn carried(line: &flybot_core::rooms::log::RoomLine, posted: Option<&Vec<String>>) -> Vec<String> {
    let mut ids = line.attachments.clone();
    for id in posted.into_iter().flatten() {
        if !ids.contains(id) {
            ids.push(id.clone());
        }
    }
    ids
}

/// The attachments each line of room `room_id` carries, by seq (issue 32).
fn lines_attachments(
    state: &TeamState,
    room_id: &str,
) -> std::collections::BTreeMap<u64, Vec<String>> {
    let mut by_line: std::collections::BTreeMap<u64, Vec<String>> = Default::default();
    for attachment in state.attachments.values() {
        for posting in &attachment.postings {
            if let flybot_protocol::attachment::Posting::Room { room_id: at, seq } = posting
                && at == room_id
            {
                by_line.entry(*seq).or_default().push(attachment.id.clone());
            }
        }
    }
    by_line
}
