//! The round runner: a line in the room log opens a round (core
//! `Round::open`), each member turn goes through the `RoomParticipant`, and
//! each reply is recorded and, unless it is a pass, stored as the member's
//! line. A person's line that arrives while a member speaks is a steer into
//! that turn, or a stop that cancels it (#1267); lines that arrived during
//! the round open the next one, newest first. The round's steps are
//! `RoundParts`'s (`round_steps`).

use super::logs::RoomLogs;
use super::participant::RoomParticipant;
pub use super::round_steps::RoundParts;
use flybot_core::rooms::context::room_lines_text;
use flybot_core::rooms::log::{AuthorKind, LineKind, RoomLine};
use flybot_core::rooms::mentions::Named;
use flybot_core::rooms::notice_seen::notice_news;
use flybot_core::rooms::participants::participants_of;
use flybot_core::rooms::presence::format_room_presence;
use flybot_core::rooms::round::{Round, Setup};
use flybot_core::rooms::standing::{Lead, Settings, route_note, standing_text, turn_message};
use flybot_core::rooms::{board::format_room_board, participants::ParticipantKind};
use flybot_core::tasks::roles::task_lead;
use flybot_protocol::state::{Room, TeamState};

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
        last_speaker: None,
    }
}

/// The member Bot whose chat line came last before `opener_seq`.
pub fn last_speaker_before(logs: &RoomLogs, room: &Room, opener_seq: u64) -> Option<String> {
    logs.find_back(&room.id, 0, |l| {
        l.seq < opener_seq && l.kind == LineKind::Chat && l.author_kind != AuthorKind::Human
    })
    .map(|l| l.author_id)
    .filter(|id| room.members.contains(id))
}

pub(super) fn name_of(state: &TeamState, id: &str) -> String {
    state
        .bots
        .get(id)
        .map(|b| b.name.clone())
        .or_else(|| state.members.get(id).map(|m| m.name.clone()))
        .unwrap_or_else(|| id.to_owned())
}

/// The standing section of `bot_id` in `room` (#894): room settings only.
/// A face-to-face room's members are every home's Bots and its lead is
/// the room's, of whichever home (#476).
pub fn standing_of(state: &TeamState, room: &Room, bot_id: &str) -> String {
    let lead = task_lead(room);
    let face = crate::social::face_to_face::roster(state, room);
    let (members, admin) = match face {
        Some(roster) => (roster.members, roster.lead),
        None => (
            room.members.iter().map(|m| name_of(state, m)).collect(),
            lead.map(|a| name_of(state, a)),
        ),
    };
    standing_text(&Settings {
        room_name: room.name.clone(),
        members,
        admin,
        notice: room
            .extra
            .get("notice")
            .and_then(serde_json::Value::as_str)
            .map(str::to_owned),
        has_board: true,
        me: name_of(state, bot_id),
        i_lead: lead == Some(bot_id),
        face: crate::social::face_to_face::records::is_face(room),
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
    // Issue 34: a person or Bot of another home by the name its line brought.
    let remote = crate::social::shared_rooms::records::names(room);
    let named = |id: &str| {
        remote
            .get(id)
            .cloned()
            .unwrap_or_else(|| name_of(state, id))
    };
    let round_lines = room_lines_text(&visible, seen, round_start, named);
    let members: Vec<(String, String)> = room
        .members
        .iter()
        .map(|m| (m.clone(), name_of(state, m)))
        .collect();
    // A face-to-face room has no board, so no presence either (#1213).
    let is_face = crate::social::face_to_face::records::is_face(room);
    let presence = match is_face {
        true => String::new(),
        false => format_room_presence(state, &room.id, &members, now),
    };
    let board = format_room_board(state, &room.id, now);
    let answered: Vec<String> = round
        .answered_by()
        .iter()
        .map(|id| name_of(state, id))
        .collect();
    let spoke_last = round
        .setup
        .last_speaker
        .as_deref()
        .filter(|_| round.routed)
        .map(|id| name_of(state, id));
    let lead = match (task_lead(room) == Some(bot_id), is_face) {
        (false, _) => Lead::No,
        (true, false) => Lead::Group,
        (true, true) => Lead::FaceRoom,
    };
    let note = route_note(
        round.broadcast,
        addressed,
        lead,
        spoke_last.as_deref(),
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
    // #894: the notice is in the standing rules; a turn says only that it
    // changed or was cleared since this member last saw it.
    if let Some(news) = notice_news(room, bot_id) {
        body.push_str("\n\n");
        body.push_str(news);
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
    let parts = RoundParts {
        logs,
        participant,
        board: None,
        team: None,
        read,
        now,
    };
    parts.run(room_id, opener_seq).await
}
