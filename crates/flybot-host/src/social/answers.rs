//! A Bot's answer to a friend's line (issue 33): when a turn that took a
//! friend's line ends, its answer (or one of #1068's two fixed sentences,
//! never the provider's words) is put in the outbox for the line's room,
//! under an id made from the line's event, so the same answer queued twice
//! is one Matrix transaction. A stopped turn sends nothing; a line that was
//! itself a failure sentence earns no failure sentence back.

use super::{Social, lock};
use crate::events::{HostEvent, follow};
use flybot_agent::session::{EndReason, LogEntry, SessionEvent, Source};
use flybot_core::social::{failure_sentence, is_failure_sentence};
use flybot_protocol::FailureCode;
use flybot_protocol::social::{LINE_KEY, LineContent, OutboxItem};
use serde_json::json;

/// One answer owed: the room, the event it answers, and the text.
struct Owed {
    room: String,
    event: String,
    text: String,
}

/// Follows turn ends for the answers friends are owed.
pub fn follow_answers(social: &Social) {
    let bus = social.team().bus();
    let social = social.clone();
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
            let social = social.clone();
            async move { social.turn_ended(&session_id, &turn_id).await }
        },
    );
}

/// The answers a turn owes: one per friend's line it took.
fn owed_by(entries: &[LogEntry], turn_id: &str) -> Vec<Owed> {
    let turn: Vec<&LogEntry> = entries
        .iter()
        .filter(|e| e.event.turn_id() == turn_id)
        .collect();
    let ended = turn.iter().find_map(|e| match &e.event {
        SessionEvent::TurnEnd { reason, .. } => Some(reason.clone()),
        _ => None,
    });
    let answer = turn.iter().rev().find_map(|e| match &e.event {
        SessionEvent::AssistantMessage { text, .. } if !text.trim().is_empty() => {
            Some(text.clone())
        }
        _ => None,
    });
    let text = match (ended, answer) {
        (Some(EndReason::Completed), Some(answer)) => Some(answer),
        // A stopped turn sends nothing (#1068).
        (Some(EndReason::Aborted { .. }), _) => None,
        // #1068: no model set up is the one other sentence; the provider's
        // own words are never copied.
        (Some(EndReason::Error { code, .. }), _) => Some(
            failure_sentence(matches!(code, FailureCode::NoModel | FailureCode::NoKey)).to_owned(),
        ),
        (_, _) => Some(failure_sentence(false).to_owned()),
    };
    let Some(text) = text else {
        return Vec::new();
    };
    turn.iter()
        .filter_map(|e| match &e.event {
            SessionEvent::UserMessage {
                text: asked,
                source: Source::Friend { room, event, .. },
                ..
            } => {
                let trade = is_failure_sentence(&text) && asked.contains(&text);
                (!trade).then(|| Owed {
                    room: room.clone(),
                    event: event.clone(),
                    text: text.clone(),
                })
            }
            _ => None,
        })
        .collect()
}

impl Social {
    async fn turn_ended(&self, session_id: &str, turn_id: &str) {
        if !lock(&self.inner.waiting).contains_key(session_id) {
            return;
        }
        let Ok(entries) = self.inner.sessions.transcript(session_id, 0) else {
            return;
        };
        let bot = self.team().read(|state| {
            state
                .bots
                .values()
                .find(|b| b.session_id == session_id)
                .map(|b| b.id.clone())
        });
        let Some(bot) = bot else { return };
        for owed in owed_by(&entries, turn_id) {
            self.answered(session_id);
            let item = OutboxItem {
                id: format!("ans-{}", super::outbox::short_hash(&owed.event)),
                room_id: owed.room,
                content: json!({
                    "msgtype": "m.text",
                    "body": owed.text,
                    LINE_KEY: LineContent::Answer { bot: bot.clone() },
                }),
                created_at: flybot_store::system_now_ms(),
                attempts: 0,
                next_at: 0,
            };
            self.enqueue(item).await;
        }
    }
}
