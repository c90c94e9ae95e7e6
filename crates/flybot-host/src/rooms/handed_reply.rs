//! The reply to work handed out from a group (#550, #553). A member hands
//! a Bot work with `message_bot` from its group Session (the request
//! carries `senderRoomId`); the Bot runs it in a hidden turn of its own
//! chat, and when that turn ends its answer goes back to the group: it is
//! posted there in the Bot's voice calling the member that handed the work
//! over, so that member's Session in the group takes it in the round the
//! line opens, and the group shows the work as its own. A group's answer to
//! the Bot's question (`answer-question`) is such a request too, so its
//! reply goes back the same way. Nothing goes back for a pass, an empty
//! answer, a turn that did not complete, a turn a person's line also went
//! into (that turn is the person's), or when the rule no longer holds (the
//! member left the room, a Bot was deleted: core `handed_from_group`).

use super::RoomLogs;
use crate::events::{HostEvent, follow};
use crate::team::Team;
use crate::turns::bot_of_session;
use flybot_agent::session::{
    EndReason, LogEntry, SessionEvent, Sessions, Source, TurnOutcome, of_turn,
};
use flybot_core::rooms::group_questions::handed_from_group;
use flybot_core::rooms::mentions::is_pass;
use std::sync::Arc;

/// The handed-out request a turn ran: `(room id, sender Bot, hop)`.
type Handed = (String, String, u32);

/// Follows turn ends for the replies owed to a group, on a host whose
/// scheduler does not run (its run settler follows turn ends otherwise and
/// calls `reply_to_group` itself).
pub fn follow_handed_replies(team: &Team, sessions: &Sessions, logs: &Arc<RoomLogs>) {
    let bus = team.bus();
    let (team, sessions, logs) = (team.clone(), sessions.clone(), logs.clone());
    follow(
        bus.subscribe_work(),
        bus,
        |event| match event {
            Ok(HostEvent::TurnEnded {
                session_id,
                turn_id,
            }) => Some((session_id, turn_id)),
            _ => None,
        },
        move |(session_id, turn_id)| {
            reply_to_group(&team, &sessions, &logs, &session_id, &turn_id);
            async {}
        },
    );
}

/// The request of `turn_id` when every input of the turn is a request
/// handed out from a group: the newest of them.
pub fn handed_request(entries: &[LogEntry], turn_id: &str) -> Option<Handed> {
    let mut handed = None;
    for entry in of_turn(entries, turn_id) {
        if let SessionEvent::UserMessage { source, .. } = &entry.event {
            match source {
                Source::Bot {
                    bot_id,
                    hops,
                    room_id: Some(room_id),
                    ..
                } => handed = Some((room_id.clone(), bot_id.clone(), *hops)),
                _ => return None,
            }
        }
    }
    handed
}

/// The completed turn's answer: its last non-empty assistant message,
/// unless that is a pass.
fn answer_of(entries: &[LogEntry], turn_id: &str) -> Option<String> {
    let outcome = TurnOutcome::of(entries, turn_id);
    let completed = matches!(
        outcome.ended,
        Some(EndReason::Completed | EndReason::MaxTokens)
    );
    let answer = outcome.answer?.trim().to_owned();
    (completed && !is_pass(&answer)).then_some(answer)
}

/// Posts the reply `turn_id` owes a group, if it owes one.
pub fn reply_to_group(
    team: &Team,
    sessions: &Sessions,
    logs: &RoomLogs,
    session_id: &str,
    turn_id: &str,
) {
    // Only a Bot's own chat runs handed-out work.
    let Some(bot_id) = team.read(|s| bot_of_session(s, session_id).map(|b| b.id.clone())) else {
        return;
    };
    let Ok(entries) = sessions.turn_transcript_written(session_id, turn_id) else {
        return;
    };
    let Some((room_id, sender, hop)) = handed_request(&entries, turn_id) else {
        return;
    };
    let Some(answer) = answer_of(&entries, turn_id) else {
        return;
    };
    let line = team.read(|state| {
        handed_from_group(state, &bot_id, &room_id, &sender, hop)?;
        let name = &state.bots.get(&sender)?.name;
        Some(format!("@{name} {answer}"))
    });
    let Some(line) = line else { return };
    if let Err(e) = logs.post_bot_line(&room_id, &bot_id, &line, hop.saturating_add(1), false) {
        tracing::warn!("the reply of {bot_id} to {room_id} could not be posted: {e}");
    }
}
