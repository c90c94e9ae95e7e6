//! A room's channel (issue 5): `send {roomId, text}` for a person's line and
//! `messages {roomId, after?}` for the room's log in the actor's membership
//! window (#50). A line while a member speaks is a steer into that turn, or a
//! stop that cancels it (#1267); a line while no round runs opens one.

use crate::host::Host;
use crate::rooms::interrupt::interrupt_long_wait;
use crate::rooms::runner::run_round_with;
use flybot_agent::session::{ItemKind, Source};
use flybot_core::access::Actor;
use flybot_core::rooms::log::{AuthorKind, LineKind, from_start};
use flybot_core::rooms::participants::{participants_of, window_start};
use flybot_core::rooms::steer::{MidLine, mid_line, mid_line_note};
use flybot_protocol::state::{Room, TeamState};
use flybot_protocol::{ApiError, ErrorCode};
use flybot_store::room_log::NewLine;
use serde::Deserialize;
use serde_json::{Value, json};

/// The longest line a person may send, in characters.
const MAX_LINE: usize = 20_000;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RoomSend {
    pub room_id: String,
    pub text: String,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RoomMessages {
    pub room_id: String,
    #[serde(default)]
    pub after: Option<u64>,
}

/// Whether a channel body names a room.
pub fn names_room(body: &[u8]) -> bool {
    serde_json::from_slice::<Value>(body)
        .ok()
        .is_some_and(|v| v.get("roomId").is_some())
}

/// The room and the first seq the actor may read there; a room outside the
/// actor's window answers like an unknown one.
fn room_window(state: &TeamState, actor: &Actor, room_id: &str) -> Result<(Room, u64), ApiError> {
    let room = state
        .rooms
        .get(room_id)
        .ok_or_else(|| ApiError::not_found("room", room_id))?;
    let member = actor.member_id(state).unwrap_or_default();
    let start = window_start(state, &participants_of(room), &member)
        .ok_or_else(|| ApiError::not_found("room", room_id))?;
    Ok((room.clone(), start))
}

fn io_refusal(e: std::io::Error) -> ApiError {
    tracing::error!("a room log could not be used: {e}");
    ApiError::new(
        ErrorCode::Invalid,
        "The room could not be opened on this host; try again.",
    )
}

/// Runs rounds for the room until no person line is left waiting.
fn drive(host: Host, room_id: String, first: u64) {
    tokio::spawn(async move {
        let participant = crate::rooms::external::participant(&host);
        let board = crate::board::dispatch::HostRoundBoard { host: host.clone() };
        let store = host.store().clone();
        let read = move || store.read(|s| s.clone());
        let now = flybot_store::system_now_ms;
        let mut next = first;
        loop {
            let summary = run_round_with(
                host.rooms(),
                &participant,
                Some(&board),
                &read,
                &now,
                &room_id,
                next,
            )
            .await;
            if let Some(report) = summary.report {
                send_report(&host, &report);
            }
            let more = host.rooms().run(&room_id, |r| {
                let newest = r.pending.iter().max().copied();
                r.pending.clear();
                if newest.is_none() {
                    r.running = false;
                }
                newest
            });
            match more {
                Some(seq) => next = seq,
                None => break,
            }
        }
    });
}

/// The round's closing report (#913) into the poster's own chat.
fn send_report(host: &Host, report: &crate::rooms::runner::ClosingReport) {
    let session = host
        .store()
        .read(|s| s.bots.get(&report.poster).map(|b| b.session_id.clone()));
    let Some(session) = session else { return };
    if let Err(e) =
        host.sessions()
            .deliver(&session, &report.text, Source::Host, ItemKind::NextTurn)
    {
        tracing::warn!("a closing report could not reach {}: {e}", report.poster);
    }
}

/// A Bot's own line posted with `post_to_group` (#557): logged in its
/// voice at `hop`, then a round opens for it, or it waits for the next one
/// when a round runs. Answers the line's seq.
pub(crate) fn post_bot_line(
    host: &Host,
    room_id: &str,
    bot_id: &str,
    text: &str,
    hop: u32,
    report_back: bool,
) -> std::io::Result<u64> {
    let line = host.rooms().append(
        room_id,
        NewLine {
            author_id: bot_id.to_owned(),
            author_kind: AuthorKind::LocalBot,
            kind: LineKind::Chat,
            text: text.to_owned(),
            at: flybot_store::system_now_ms(),
            hop,
        },
    )?;
    let start = host.rooms().run(room_id, |r| {
        if report_back {
            r.report_back.insert(line.seq);
        }
        if r.running {
            r.pending.push(line.seq);
            false
        } else {
            r.running = true;
            true
        }
    });
    if start {
        drive(host.clone(), room_id.to_owned(), line.seq);
    }
    Ok(line.seq)
}

/// `send {roomId, text}` → `{roomId, seq, queued: "round"|"steer"|"stop"|"interrupt"|"next-round"}`.
pub async fn send(host: &Host, actor: &Actor, req: RoomSend) -> Result<Value, ApiError> {
    let text = req.text.trim();
    if text.is_empty() {
        return Err(ApiError::invalid(
            "text",
            "The line is empty; write something to send.",
        ));
    }
    if text.chars().count() > MAX_LINE {
        return Err(ApiError::invalid(
            "text",
            format!("The line is longer than {MAX_LINE} characters; send it in parts."),
        ));
    }
    let (room, member) = host.store().read(|state| {
        room_window(state, actor, &req.room_id)
            .map(|(room, _)| (room, actor.member_id(state).unwrap_or_default()))
    })?;
    let line = host
        .rooms()
        .append(
            &room.id,
            NewLine {
                author_id: member,
                author_kind: AuthorKind::Human,
                kind: LineKind::Chat,
                text: text.to_owned(),
                at: flybot_store::system_now_ms(),
                hop: 0,
            },
        )
        .map_err(io_refusal)?;
    let speaking = host.rooms().run(&room.id, |r| {
        if !r.running {
            r.running = true;
            return Err(());
        }
        Ok(r.speaking.clone())
    });
    let queued = match speaking {
        Err(()) => {
            drive(host.clone(), room.id.clone(), line.seq);
            "round"
        }
        Ok(Some((_, session))) => match mid_line(text) {
            MidLine::Stop => {
                host.rooms().run(&room.id, |r| {
                    r.stopped = true;
                    r.pending.push(line.seq);
                });
                let participant = crate::rooms::external::participant(host);
                crate::rooms::RoomParticipant::cancel(&participant, &session);
                "stop"
            }
            MidLine::Steer
                if interrupt_long_wait(
                    host.sessions(),
                    &session,
                    flybot_store::system_now_ms(),
                ) =>
            {
                // #1650: the turn let go; the line opens the next round.
                host.rooms().run(&room.id, |r| r.pending.push(line.seq));
                "interrupt"
            }
            MidLine::Steer => {
                let participant = crate::rooms::external::participant(host);
                let note = format!("{}\n{text}", mid_line_note(&room.name));
                if crate::rooms::RoomParticipant::steer(&participant, &session, &note) {
                    "steer"
                } else {
                    host.rooms().run(&room.id, |r| r.pending.push(line.seq));
                    "next-round"
                }
            }
        },
        Ok(None) => {
            host.rooms().run(&room.id, |r| r.pending.push(line.seq));
            "next-round"
        }
    };
    Ok(json!({"roomId": room.id, "seq": line.seq, "queued": queued}))
}

/// `messages {roomId, after?}` → `{roomId, running, speaking, messages}`:
/// the lines from the actor's join on (#50); passes are not lines.
pub fn messages(host: &Host, actor: &Actor, req: RoomMessages) -> Result<Value, ApiError> {
    let (room, start, names) = host.store().read(|state| {
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
            (room, start, names)
        })
    })?;
    let lines = host.rooms().lines(&room.id).map_err(io_refusal)?;
    let shown: Vec<Value> = from_start(&lines, start, req.after)
        .into_iter()
        .map(|l| {
            json!({
                "seq": l.seq,
                "authorId": l.author_id,
                "authorKind": l.author_kind,
                "author": names.get(&l.author_id).cloned().unwrap_or_else(|| l.author_id.clone()),
                "kind": l.kind,
                "text": l.text,
                "at": l.at,
            })
        })
        .collect();
    let (running, speaking) = host.rooms().run(&room.id, |r| {
        (r.running, r.speaking.as_ref().map(|(bot, _)| bot.clone()))
    });
    Ok(json!({"roomId": room.id, "running": running, "speaking": speaking, "messages": shown}))
}
