//! A Bot chat's conversations (issue 31): the person's "New conversation"
//! starts a fresh part of the same Session the way the steward's move does
//! (a committed `part/start` record, #1245), with its own reason and no
//! handoff note, so nothing of the earlier conversation reaches the model;
//! the log, the Session id and everything keyed by it stay. A conversation
//! is the span of the log from one part the person started to the next; the
//! steward's own moves inside it are no seam a person sees.

use super::runtime::Sessions;
use crate::context::PartRecord;
use serde::Serialize;
use std::io;

/// The reason a part records when the person started it.
pub const NEW_CONVERSATION: &str = "the person started a new conversation";

/// One conversation of a Session, as a page lists it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Conversation {
    /// The part it begins with (1: the Session's first).
    pub part: u32,
    /// Its first log entry (0: the log's start).
    pub from_seq: u64,
    /// The first entry of the next conversation; none for the current one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub until_seq: Option<u64>,
    /// When the person started it (none for the first).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub at: Option<u64>,
}

impl Conversation {
    /// Whether log entry `seq` belongs to this conversation.
    pub fn holds(&self, seq: u64) -> bool {
        seq >= self.from_seq && self.until_seq.is_none_or(|until| seq < until)
    }
}

/// What `new_conversation` did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NewConversation {
    Started(Conversation),
    /// A turn runs or input waits for one: it belongs to the conversation
    /// it was sent in, so none starts now.
    Busy,
    /// The current conversation has nothing in it yet.
    Empty,
}

/// The conversations `records` describe, oldest first: the Session's first
/// part, then each standing part the person started (a rolled-back part is
/// none).
pub fn conversations(records: &[PartRecord]) -> Vec<Conversation> {
    let mut standing: Vec<(u32, u64, u64)> = Vec::new();
    for record in records {
        match record {
            PartRecord::Start {
                part,
                from_seq,
                at,
                reason,
            } if reason == NEW_CONVERSATION => standing.push((*part, *from_seq, *at)),
            PartRecord::Rollback { part } => standing.retain(|(p, _, _)| p != part),
            _ => {}
        }
    }
    let mut list = vec![Conversation {
        part: 1,
        from_seq: 0,
        until_seq: None,
        at: None,
    }];
    for (part, from_seq, at) in standing {
        if let Some(before) = list.last_mut() {
            before.until_seq = Some(from_seq);
        }
        list.push(Conversation {
            part,
            from_seq,
            until_seq: None,
            at: Some(at),
        });
    }
    list
}

impl Sessions {
    /// The Session's conversations, oldest first.
    pub fn conversations(&self, session_id: &str) -> io::Result<Vec<Conversation>> {
        let cell = self.cell(session_id)?;
        Ok(cell.with_parts(|parts| conversations(parts.records())))
    }

    /// Starts a new conversation in the Session at time `now`.
    pub fn new_conversation(&self, session_id: &str, now: u64) -> io::Result<NewConversation> {
        let cell = self.cell(session_id)?;
        let state = flybot_core::sync::lock(&cell.state);
        if state.running.is_some() || state.held.is_some() || !state.inbox.is_empty() {
            return Ok(NewConversation::Busy);
        }
        let last_seq = cell.with_log(|log| log.last_seq_after(0));
        let next_seq = last_seq + 1;
        cell.with_parts(|parts| {
            let current = conversations(parts.records());
            if last_seq == 0 || current.last().is_some_and(|c| c.from_seq > last_seq) {
                return Ok(NewConversation::Empty);
            }
            let part = parts.current().part + 1;
            parts.append(PartRecord::Start {
                part,
                from_seq: next_seq,
                at: now,
                reason: NEW_CONVERSATION.to_owned(),
            })?;
            Ok(NewConversation::Started(Conversation {
                part,
                from_seq: next_seq,
                until_seq: None,
                at: Some(now),
            }))
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn start(part: u32, from_seq: u64, reason: &str) -> PartRecord {
        PartRecord::Start {
            part,
            from_seq,
            at: 7,
            reason: reason.to_owned(),
        }
    }

    #[test]
    fn conversations_split_only_where_the_person_started_one() {
        let records = vec![
            start(2, 40, "the previous part grew long"),
            start(3, 90, NEW_CONVERSATION),
            start(4, 120, NEW_CONVERSATION),
            PartRecord::Rollback { part: 4 },
            start(5, 150, "the previous part grew long"),
        ];
        let list = conversations(&records);
        assert_eq!(
            list,
            [
                Conversation {
                    part: 1,
                    from_seq: 0,
                    until_seq: Some(90),
                    at: None
                },
                Conversation {
                    part: 3,
                    from_seq: 90,
                    until_seq: None,
                    at: Some(7)
                },
            ]
        );
        assert!(list[0].holds(89) && !list[0].holds(90));
        assert!(list[1].holds(150));
    }

    #[test]
    fn a_session_that_never_moved_is_one_conversation() {
        assert_eq!(conversations(&[]).len(), 1);
    }
}
