//! The round runner: a line in the room log opens a round (core
//! `Round::open`), each member turn goes through the `RoomParticipant`, and
//! each reply is recorded and, unless it is a pass, stored as the member's
//! line. A person's line that arrives while a member speaks is a steer into
//! that turn, or a stop that cancels it (#1267); lines that arrived during
//! the round open the next one, newest first.

use super::dispatch::{RoundBoard, dispatch_in};
use super::logs::RoomLogs;
use super::participant::{MemberTurn, RoomParticipant, TurnOutcome};
use super::retry::run_turn_retrying;
use flybot_core::rooms::context::room_lines_text;
use flybot_core::rooms::log::{AuthorKind, LineKind, RoomLine};
use flybot_core::rooms::mentions::Named;
use flybot_core::rooms::participants::participants_of;
use flybot_core::rooms::presence::format_room_presence;
use flybot_core::rooms::report::closing_report;
use flybot_core::rooms::round::{Opener, Reply, Round, Setup, is_quiet, next_late_rounds};
use flybot_core::rooms::standing::{Settings, route_note, standing_text, turn_message};
use flybot_core::rooms::{board::format_room_board, participants::ParticipantKind};
use flybot_core::tasks::roles::task_lead;
use flybot_protocol::state::{Room, TeamState};
use flybot_store::room_log::NewLine;

/// What one round did.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RoundSummary {
    /// Member turns run (model calls through the participant).
    pub turns: u32,
    /// Lines the members posted.
    pub lines: u32,
    /// Characters of the longest member turn message.
    pub max_prompt_chars: usize,
    /// The closing report for the poster who asked for one (#913).
    pub report: Option<ClosingReport>,
}

/// A round's closing report and the Bot whose own chat it goes to (#913).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClosingReport {
    pub poster: String,
    pub text: String,
}

/// The room's members as `@` names them, in the room's order.
pub fn setup_of(state: &TeamState, room: &Room) -> Setup {
    let order = room
        .members
        .iter()
        .filter_map(|id| state.bots.get(id))
        .map(|b| {
            let mut named = Named::new(&b.id, &b.name);
            named.owner = state.members.get(&b.owner_id).map(|m| m.name.clone());
            named
        })
        .collect();
    Setup {
        order,
        admin: room.admin.clone(),
    }
}

fn name_of(state: &TeamState, id: &str) -> String {
    state
        .bots
        .get(id)
        .map(|b| b.name.clone())
        .or_else(|| state.members.get(id).map(|m| m.name.clone()))
        .unwrap_or_else(|| id.to_owned())
}

/// The standing section of `bot_id` in `room` (#894): room settings only.
pub fn standing_of(state: &TeamState, room: &Room, bot_id: &str) -> String {
    let lead = task_lead(room);
    standing_text(&Settings {
        room_name: room.name.clone(),
        members: room.members.iter().map(|m| name_of(state, m)).collect(),
        admin: lead.map(|a| name_of(state, a)),
        notice: room
            .extra
            .get("notice")
            .and_then(serde_json::Value::as_str)
            .map(str::to_owned),
        has_board: true,
        me: name_of(state, bot_id),
        i_lead: lead == Some(bot_id),
    })
}

/// The Bot and standing section of a room member's group Session.
pub fn standing_for(state: &TeamState, session_id: &str) -> Option<(String, String)> {
    state.rooms.values().find_map(|room| {
        room.sessions
            .iter()
            .find(|(_, s)| *s == session_id)
            .map(|(bot, _)| (bot.clone(), standing_of(state, room, bot)))
    })
}

/// One member turn's message: the round's lines in the member's window,
/// who is working, the board, the route note and the reply rule.
/// Who a turn is for and what the round asked of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TurnAsk<'a> {
    pub bot_id: &'a str,
    pub seen: Option<u64>,
    pub round_start: u64,
    pub forced: bool,
    pub addressed: bool,
    pub now: u64,
}

pub fn turn_text(
    state: &TeamState,
    room: &Room,
    lines: &[RoomLine],
    round: &Round,
    ask: &TurnAsk<'_>,
) -> String {
    let TurnAsk {
        bot_id,
        seen,
        round_start,
        forced,
        addressed,
        now,
    } = *ask;
    let seats = participants_of(room);
    let start = seats
        .iter()
        .find(|p| p.id == bot_id && p.kind == ParticipantKind::LocalBot && p.is_live())
        .map_or(0, |p| p.joined_seq);
    let visible: Vec<RoomLine> = lines.iter().filter(|l| l.seq >= start).cloned().collect();
    let round_lines = room_lines_text(&visible, seen, round_start, |id| name_of(state, id));
    let members: Vec<(String, String)> = room
        .members
        .iter()
        .map(|m| (m.clone(), name_of(state, m)))
        .collect();
    let presence = format_room_presence(state, &room.id, &members, now);
    let board = format_room_board(state, &room.id, now);
    let answered: Vec<String> = round
        .answered_by()
        .iter()
        .map(|id| name_of(state, id))
        .collect();
    let note = route_note(
        round.broadcast,
        addressed,
        task_lead(room) == Some(bot_id),
        &answered,
    );
    let mut body = format!(
        "[Group \"{}\" · this round]\n{round_lines}\n\n{presence}",
        room.name
    );
    if !board.is_empty() {
        body.push_str("\n\n");
        body.push_str(&board);
    }
    turn_message(&body, &note, forced)
}

/// Runs the round the line at `opener_seq` opens. `read` answers the team as
/// it is now; `now` the clock.
pub async fn run_round(
    logs: &RoomLogs,
    participant: &dyn RoomParticipant,
    read: &(dyn Fn() -> TeamState + Sync),
    now: &(dyn Fn() -> u64 + Sync),
    room_id: &str,
    opener_seq: u64,
) -> RoundSummary {
    run_round_with(logs, participant, None, read, now, room_id, opener_seq).await
}

/// `run_round` with the board a dispatch is written to (#1254); without
/// one a dispatch stays an ordinary call.
pub async fn run_round_with(
    logs: &RoomLogs,
    participant: &dyn RoomParticipant,
    board: Option<&dyn RoundBoard>,
    read: &(dyn Fn() -> TeamState + Sync),
    now: &(dyn Fn() -> u64 + Sync),
    room_id: &str,
    opener_seq: u64,
) -> RoundSummary {
    let mut summary = RoundSummary::default();
    let state = read();
    let Some(room) = state.rooms.get(room_id).cloned() else {
        return summary;
    };
    let lines = logs.lines(room_id).unwrap_or_default();
    let Some(line) = lines.iter().find(|l| l.seq == opener_seq).cloned() else {
        return summary;
    };
    let opener = match (line.author_kind, line.kind) {
        (_, LineKind::Event) | (_, LineKind::Claim) | (AuthorKind::System, _) => Opener::Event,
        (AuthorKind::Human, LineKind::Chat) => Opener::Person {
            text: &line.text,
            owner_line: true,
        },
        (AuthorKind::LocalBot, LineKind::Chat) | (AuthorKind::RemoteBot, LineKind::Chat) => {
            Opener::Bot {
                from: &line.author_id,
                text: &line.text,
            }
        }
    };
    let late = logs.run(room_id, |r| {
        r.late_rounds = next_late_rounds(r.late_rounds, &opener);
        r.stopped = false;
        r.late_rounds
    });
    let setup = setup_of(&state, &room);
    // #1254: the lead's dispatch is the assignment; the round opens for
    // nobody once the board took it (a failed write keeps the turn).
    let opener = match (opener, board) {
        (Opener::Bot { from, text }, Some(board)) => {
            let quiet = is_quiet(late.saturating_sub(1));
            match dispatch_in(&room, &setup, from, text, quiet) {
                Some(d) if board.assign(room_id, from, d.clone(), text).await => Opener::Event,
                _ => opener,
            }
        }
        _ => opener,
    };
    let mut round = Round::open(setup, opener, late.saturating_sub(1));
    while let Some(call) = round.next_turn() {
        if logs.run(room_id, |r| r.stopped) {
            round.record(&call.bot_id, Reply::Stopped);
            continue;
        }
        let state = read();
        let Some(room) = state.rooms.get(room_id).cloned() else {
            break;
        };
        let Some(session_id) = room.sessions.get(&call.bot_id).cloned() else {
            round.record(&call.bot_id, Reply::Failed);
            continue;
        };
        if participant
            .open(room_id, &call.bot_id, &session_id)
            .is_err()
        {
            round.record(&call.bot_id, Reply::Failed);
            continue;
        }
        let lines = logs.lines(room_id).unwrap_or_default();
        let seen = logs.run(room_id, |r| r.seen.get(&call.bot_id).copied());
        let ask = TurnAsk {
            bot_id: &call.bot_id,
            seen,
            round_start: opener_seq,
            forced: call.forced,
            addressed: call.addressed || call.by.is_some(),
            now: now(),
        };
        let text = turn_text(&state, &room, &lines, &round, &ask);
        summary.max_prompt_chars = summary.max_prompt_chars.max(text.chars().count());
        let last = lines.last().map_or(0, |l| l.seq);
        logs.run(room_id, |r| {
            r.speaking = Some((call.bot_id.clone(), session_id.clone()));
            r.seen.insert(call.bot_id.clone(), last);
        });
        summary.turns += 1;
        let turn = MemberTurn {
            room_id: room_id.to_owned(),
            bot_id: call.bot_id.clone(),
            session_id,
            text,
        };
        let outcome = run_turn_retrying(logs, participant, room_id, turn).await;
        let superseded = logs.run(room_id, |r| {
            r.speaking = None;
            std::mem::take(&mut r.stopped)
        });
        match outcome {
            TurnOutcome::Text(_) if superseded => {
                round.record(&call.bot_id, Reply::Stopped);
            }
            TurnOutcome::Text(reply) => {
                if round.record(&call.bot_id, Reply::Line(&reply)) {
                    // #1254: a dispatch in the lead's own reply is written
                    // to the board instead of calling the member here.
                    if let Some(board) = board
                        && let Some(d) =
                            dispatch_in(&room, &round.setup, &call.bot_id, &reply, false)
                    {
                        let member = d.member.clone();
                        if board.assign(room_id, &call.bot_id, d, &reply).await {
                            round.uncall(&call.bot_id, &member);
                        }
                    }
                    let stored = logs.append(
                        room_id,
                        NewLine {
                            author_id: call.bot_id.clone(),
                            author_kind: AuthorKind::LocalBot,
                            kind: LineKind::Chat,
                            text: reply,
                            at: now(),
                            hop: line.hop + 1,
                        },
                    );
                    if stored.is_ok() {
                        summary.lines += 1;
                    }
                }
            }
            TurnOutcome::Stopped => {
                round.record(&call.bot_id, Reply::Stopped);
            }
            TurnOutcome::FailedWithLine {
                code: _,
                line: text,
            } => {
                // Never silence (#198): the member's own line says why.
                round.record(&call.bot_id, Reply::Failed);
                let _ = logs.append(
                    room_id,
                    NewLine {
                        author_id: call.bot_id.clone(),
                        author_kind: AuthorKind::LocalBot,
                        kind: LineKind::Event,
                        text,
                        at: now(),
                        hop: line.hop + 1,
                    },
                );
            }
            TurnOutcome::Failed { code } => {
                round.record(&call.bot_id, Reply::Failed);
                let friendly = flybot_core::fences::failure::room_failure_line(&code);
                let _ = logs.append(
                    room_id,
                    NewLine {
                        author_id: call.bot_id.clone(),
                        author_kind: AuthorKind::LocalBot,
                        kind: LineKind::Event,
                        text: friendly.to_owned(),
                        at: now(),
                        hop: line.hop + 1,
                    },
                );
            }
        }
    }
    let wants_report = line.author_kind != AuthorKind::Human
        && logs.run(room_id, |r| r.report_back.remove(&opener_seq));
    if wants_report {
        let state = read();
        summary.report = Some(ClosingReport {
            poster: line.author_id.clone(),
            text: closing_report(&round, &line.author_id, |id| name_of(&state, id)),
        });
    }
    summary
}
