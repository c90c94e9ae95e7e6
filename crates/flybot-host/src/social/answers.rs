//! A Bot's answer to a friend's line (issue 33): when a turn that took a
//! friend's line ends, its answer (or one of #1068's two fixed sentences,
//! never the provider's words) is put in the outbox for the line's room,
//! under an id made from the line's event, so the same answer queued twice
//! is one Matrix transaction, naming the event it answers (`re`, and
//! Matrix's own reply relation) so the asking home hands it to the Bot
//! that asked. A stopped turn sends nothing; a line that was itself a
//! failure sentence earns no failure sentence back. A Bot whose policy is
//! `ask-first` has its reply held for the owner's Send or Don't send
//! (#52, #418); otherwise it goes on the owner's Auto-send (#417).

use super::{Social, lock};
use crate::events::{HostEvent, follow};
use flybot_agent::session::{EndReason, LogEntry, SessionEvent, Source};
use flybot_core::social::{failure_sentence, is_failure_sentence};
use flybot_protocol::FailureCode;
use flybot_protocol::social::{
    HeldReply, LINE_KEY, LineContent, OutboxItem, ReplyStatus, SendPolicy,
};
use serde_json::json;

/// One answer owed: the room, the event it answers, whether a person
/// typed that line (#227), and the text.
struct Owed {
    room: String,
    event: String,
    typed: bool,
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
                source:
                    Source::Friend {
                        room, event, typed, ..
                    },
                ..
            } => {
                let trade = is_failure_sentence(&text) && asked.contains(&text);
                (!trade).then(|| Owed {
                    room: room.clone(),
                    event: event.clone(),
                    typed: *typed,
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
            // An answer a friend's Bot gave this home's Bot owes nothing.
            let mine = self.team().read(|state| {
                let room = state.social.rooms.get(&owed.room);
                room.is_some_and(|r| r.side == flybot_protocol::social::RoomSide::Mine)
            });
            if !mine {
                continue;
            }
            self.answered(session_id);
            let now = flybot_store::system_now_ms();
            let id = format!("ans-{}", super::outbox::short_hash(&owed.event));
            let (friend, policy) = self.team().read(|state| {
                let room = state.social.rooms.get(&owed.room);
                let policy = state.social.policies.get(&bot).copied();
                let peer = room.map(|r| r.peer.clone()).unwrap_or_default();
                (peer, policy.unwrap_or_default())
            });
            // #417, #418: the reply as its owner sees it, never its text.
            let reply = HeldReply {
                id: id.clone(),
                bot_id: bot.clone(),
                policy: policy.as_str().to_owned(),
                status: ReplyStatus::Pending,
                session_id: session_id.to_owned(),
                turn: turn_id.to_owned(),
                friend,
                to_owner: owed.typed,
                retry: None,
                error: None,
                at: now,
            };
            let item = OutboxItem {
                id,
                room_id: owed.room,
                content: json!({
                    "msgtype": "m.text",
                    "body": owed.text,
                    LINE_KEY: LineContent::Answer { bot: bot.clone(), re: Some(owed.event.clone()) },
                    // A plain Matrix client shows it as the reply it is.
                    "m.relates_to": {"m.in_reply_to": {"event_id": owed.event}},
                }),
                created_at: now,
                attempts: 0,
                next_at: 0,
            };
            let held = policy == SendPolicy::AskFirst;
            self.enqueue_reply(item, reply, held).await;
        }
    }
}
