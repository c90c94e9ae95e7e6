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
use flybot_agent::session::{EndReason, LogEntry, SessionEvent, Source, TurnOutcome, of_turn};
use flybot_core::social::{NO_ANSWER, NO_MODEL, failure_sentence, is_failure_sentence};
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
    let TurnOutcome { ended, answer } = TurnOutcome::of(entries, turn_id);
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
    of_turn(entries, turn_id)
        .filter_map(|e| match &e.event {
            SessionEvent::UserMessage {
                text: asked,
                source:
                    Source::Friend {
                        room, event, typed, ..
                    },
                ..
            } => {
                // #1068: a line that is already either sentence earns neither.
                let asked_failed = [NO_MODEL, NO_ANSWER].iter().any(|s| asked.contains(s));
                let trade = is_failure_sentence(&text) && asked_failed;
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
        let Some(sessions) = self.sessions() else {
            return;
        };
        let Ok(entries) = sessions.turn_transcript(session_id, turn_id) else {
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

#[cfg(test)]
mod tests {
    use super::*;
    use flybot_agent::session::AbortedBy;

    fn entry(seq: u64, event: SessionEvent) -> LogEntry {
        LogEntry {
            seq,
            at: seq,
            event,
        }
    }

    /// A turn that took a friend's line `asked` and ended for `reason`,
    /// having said `said` (if anything).
    fn turn(asked: &str, said: Option<&str>, reason: EndReason) -> Vec<LogEntry> {
        let t = || "t1".to_owned();
        let source = Source::Friend {
            home: "@bob:hs".into(),
            room: "!r".into(),
            event: "$ask".into(),
            typed: true,
            first_contact: false,
        };
        let mut log = vec![
            entry(1, SessionEvent::TurnStart { turn_id: t() }),
            entry(
                2,
                SessionEvent::UserMessage {
                    turn_id: t(),
                    message_id: "m1".into(),
                    text: asked.into(),
                    source,
                    attachments: Vec::new(),
                },
            ),
        ];
        if let Some(said) = said {
            let text = said.into();
            let message = SessionEvent::AssistantMessage {
                turn_id: t(),
                text,
                attachments: Vec::new(),
            };
            log.push(entry(3, message));
        }
        let end = SessionEvent::TurnEnd {
            turn_id: t(),
            reason,
            calls: 0,
        };
        log.push(entry(4, end));
        log
    }

    fn error(code: FailureCode) -> EndReason {
        EndReason::Error {
            code,
            message: "sk-live-abc123 was refused".into(),
        }
    }

    fn texts(log: &[LogEntry]) -> Vec<String> {
        owed_by(log, "t1").into_iter().map(|o| o.text).collect()
    }

    #[test]
    /// Rule #1068.
    fn a_dead_turn_sends_one_of_two_fixed_sentences_never_the_providers_words() {
        let answered = turn("hi", Some("hello"), EndReason::Completed);
        assert_eq!(texts(&answered), ["hello"]);
        let owed = owed_by(&answered, "t1");
        assert_eq!(
            (owed[0].event.as_str(), owed[0].room.as_str()),
            ("$ask", "!r")
        );
        for code in [FailureCode::NoModel, FailureCode::NoKey] {
            assert_eq!(texts(&turn("hi", None, error(code))), [NO_MODEL]);
        }
        // AUTH is the generic sentence even when its text names a key.
        for code in [FailureCode::Auth, FailureCode::Timeout, FailureCode::Quota] {
            let sent = texts(&turn("hi", Some("partial"), error(code)));
            assert_eq!(sent, [NO_ANSWER]);
            assert!(!sent[0].contains("sk-live"));
        }
        // A stopped turn sends nothing.
        let stopped = EndReason::Aborted {
            by: AbortedBy::Hook,
            reason: None,
        };
        assert!(texts(&turn("hi", Some("half"), stopped)).is_empty());
        // A line that is already a failure sentence earns none back, so two
        // homes that cannot run a model do not trade it.
        let fenced = format!("<untrusted-message from=\"@bob:hs\">{NO_MODEL}</untrusted-message>");
        assert!(texts(&turn(&fenced, None, error(FailureCode::NoModel))).is_empty());
        assert!(texts(&turn(&fenced, None, error(FailureCode::Timeout))).is_empty());
        // An answer that is not a failure still goes.
        assert_eq!(
            texts(&turn(&fenced, Some("sorry"), EndReason::Completed)),
            ["sorry"]
        );
    }
}
