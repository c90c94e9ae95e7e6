//! The one path out (#1266): when a turn that took a channel's message
//! ends (`turn.ended`), its answer (or a short failure sentence) is posted
//! into the chat the message came from, as the app, on the notifier's
//! retry policy keyed by the message's id (a repeat never posts twice).
//! Only Sessions that were handed a channel's message are read.

use super::{Channels, lock};
use crate::events::{HostEvent, follow};
use crate::notify::notifier::Notifier;
use flybot_agent::session::{LogEntry, SessionEvent, Source, TurnOutcome, of_turn};
use std::sync::Arc;

/// The sentence posted when the Bot's turn ended without an answer.
pub const NO_ANSWER: &str = "Could not reply: this Bot could not answer right now.";

/// One answer to post: where, and what.
struct Reply {
    connector: String,
    chat: String,
    key: String,
    text: String,
}

/// Follows turn ends for the channels' answers.
pub fn follow_answers(channels: &Channels) {
    let bus = channels.team().bus();
    let channels = channels.clone();
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
            let channels = channels.clone();
            async move { channels.turn_ended(&session_id, &turn_id) }
        },
    );
}

/// The replies a turn owes: one per channel message it took.
fn replies_of(entries: &[LogEntry], turn_id: &str) -> Vec<Reply> {
    let outcome = TurnOutcome::of(entries, turn_id);
    let text = match outcome.answer {
        Some(ref answer) if outcome.completed() => answer.clone(),
        _ => NO_ANSWER.to_owned(),
    };
    of_turn(entries, turn_id)
        .filter_map(|e| match &e.event {
            SessionEvent::UserMessage {
                message_id,
                source: Source::Connector { connector, chat },
                ..
            } => Some(Reply {
                connector: connector.clone(),
                chat: chat.clone(),
                key: message_id.clone(),
                text: text.clone(),
            }),
            _ => None,
        })
        .collect()
}

impl Channels {
    /// A Session's message was answered (or never delivered): one fewer owed.
    pub(super) fn answered(&self, session_id: &str) {
        let mut waiting = lock(&self.inner.waiting);
        if let Some(count) = waiting.get_mut(session_id) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                waiting.remove(session_id);
            }
        }
    }

    fn turn_ended(&self, session_id: &str, turn_id: &str) {
        if !lock(&self.inner.waiting).contains_key(session_id) {
            return;
        }
        let Ok(entries) = self.inner.sessions.turn_transcript(session_id, turn_id) else {
            return;
        };
        for reply in replies_of(&entries, turn_id) {
            self.answered(session_id);
            let channels = self.clone();
            tokio::spawn(async move { channels.post_reply(reply).await });
        }
    }

    async fn post_reply(&self, reply: Reply) {
        let saved = self.table().get(&reply.connector).map(|l| l.saved.clone());
        let Some(app) = saved.as_ref().and_then(|s| self.app_of(s)) else {
            tracing::warn!(
                "an answer for channel {} had no app to go out through",
                reply.connector
            );
            return;
        };
        let secret = app.app_secret.clone();
        let transport = Arc::new(app.to_chat(&reply.chat));
        let outcome = Notifier::new(transport, Arc::new(|| true))
            .send(&reply.key, &reply.text)
            .await;
        self.record_outcome(&reply.connector, outcome, &[&secret]);
    }
}
