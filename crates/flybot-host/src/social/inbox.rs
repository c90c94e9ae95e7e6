//! Friends' lines handed to this home's Bots (issue 33): each inbox line is
//! checked by `reach()` again as it is delivered (#90: a grant taken away
//! since the sync wins), fenced as a peer's text (#98), delivered with a
//! `Friend` source naming the room and the event, and only then taken out
//! of the inbox. A friend's Bot's answer to a line one of this home's Bots
//! sent goes back to that Bot the same way (fenced, owing nothing back).
//! At start, a line a crash left in the inbox is delivered
//! unless the Bot's log already holds its event.

use super::{Social, lock};
use flybot_agent::session::{ItemKind, LogEntry, SessionEvent, Source};
use flybot_core::fences::fence;
use flybot_protocol::social::InboxLine;

fn already_delivered(entries: &[LogEntry], event_id: &str) -> bool {
    entries.iter().any(|entry| {
        matches!(
            &entry.event,
            SessionEvent::UserMessage { source: Source::Friend { event, .. }, .. } if event == event_id
        )
    })
}

impl Social {
    /// Hands each line to its Bot, then takes it out of the inbox.
    pub(super) async fn deliver(&self, lines: Vec<InboxLine>) {
        for line in lines {
            self.deliver_one(&line, false);
            let event_id = line.event_id.clone();
            let taken = self
                .team()
                .mutate("social", move |change| {
                    change.remove_inbox(&event_id);
                    Ok(())
                })
                .await;
            if let Err(e) = taken {
                tracing::warn!(
                    "a delivered friend's line stays in the inbox: {}",
                    e.message
                );
            }
        }
    }

    /// One line to its Bot; `check_log` when a crash may have delivered it.
    fn deliver_one(&self, line: &InboxLine, check_log: bool) {
        let session = self.team().read(|state| {
            // An answer goes back to the Bot that asked; a friend's line
            // reaches a Bot only through its grant (#90).
            let reached = line.answer
                || flybot_core::social::reach(state, &line.bot_id, &line.from_home).is_ok();
            let bot = state.bots.get(&line.bot_id).filter(|b| !b.is_retired());
            bot.filter(|_| reached).map(|bot| bot.session_id.clone())
        });
        let Some(session) = session else {
            tracing::info!(
                "a friend's line to {} was not delivered: not shared",
                line.bot_id
            );
            return;
        };
        let Some(sessions) = self.sessions() else {
            return;
        };
        // Counted before the delivery, so a turn that ends at once is seen;
        // a line a crash delivered may still owe its answer. An answer
        // handed back owes none.
        if !line.answer {
            *lock(&self.inner.waiting)
                .entry(session.clone())
                .or_default() += 1;
        }
        if check_log
            && sessions
                .transcript_written(&session, 0)
                .is_ok_and(|entries| already_delivered(&entries, &line.event_id))
        {
            return;
        }
        let text = fence(&format!("{} (a friend's home)", line.from_home), &line.text);
        let source = Source::Friend {
            home: line.from_home.clone(),
            room: line.room_id.clone(),
            event: line.event_id.clone(),
            typed: line.typed,
            first_contact: line.first_contact,
        };
        if let Err(e) = sessions.deliver(&session, &text, source, ItemKind::NextTurn) {
            if !line.answer {
                self.answered(&session);
            }
            tracing::warn!("a friend's line was not delivered to {}: {e}", line.bot_id);
        }
    }

    /// At start: the lines a crash left between the sync and the Bot.
    pub(super) fn redeliver_inbox(&self) {
        let lines: Vec<InboxLine> = self
            .team()
            .read(|state| state.social.inbox.values().cloned().collect());
        if lines.is_empty() {
            return;
        }
        for line in &lines {
            self.deliver_one(line, true);
        }
        let social = self.clone();
        tokio::spawn(async move {
            let ids: Vec<String> = lines.into_iter().map(|l| l.event_id).collect();
            let _ = social
                .team()
                .mutate("social", move |change| {
                    for id in &ids {
                        change.remove_inbox(id);
                    }
                    Ok(())
                })
                .await;
        });
    }

    /// A Session's line was answered (or never delivered): one fewer owed.
    pub(super) fn answered(&self, session_id: &str) {
        let mut waiting = lock(&self.inner.waiting);
        if let Some(count) = waiting.get_mut(session_id) {
            *count = count.saturating_sub(1);
            if *count == 0 {
                waiting.remove(session_id);
            }
        }
    }
}
