//! The settle window of a person's lines (#642): the first line that arrives
//! with no turn running starts a 1,500 ms window; lines inside it join its
//! text, each on its own line, in arrival order; the window's close opens
//! one turn. A line during a turn flushes the window first.

use super::event::Source;
use super::inbox::{InboxItem, ItemKind};
use super::runtime::{Cell, CellState, Sessions};
use flybot_core::sync::lock;
use std::sync::Arc;
use std::time::Duration;
use tokio::time::Instant;

pub const SETTLE: Duration = Duration::from_millis(1500);

/// How late tokio's timer may fire: it runs on 1 ms ticks and its driver
/// parks for whole milliseconds.
const TIMER_SLACK: Duration = Duration::from_millis(2);

/// Lines held in the window.
pub(crate) struct Held {
    id: String,
    lines: Vec<String>,
    member_id: Option<String>,
    /// The attachments the held lines carry, in order (issue 32).
    attachments: Vec<String>,
}

impl Held {
    pub(crate) fn as_item(&self) -> InboxItem {
        InboxItem {
            id: self.id.clone(),
            text: self.lines.join("\n"),
            source: Source::User {
                member_id: self.member_id.clone(),
            },
            kind: ItemKind::NextTurn,
            attachments: self.attachments.clone(),
        }
    }
}

/// Holds `text`; the first line starts the window's timer.
pub(crate) fn hold(
    sessions: &Sessions,
    cell: &Arc<Cell>,
    state: &mut CellState,
    text: &str,
    member_id: Option<String>,
    attachments: Vec<String>,
) {
    if let Some(held) = &mut state.held {
        held.lines.push(text.to_owned());
        held.attachments.extend(attachments);
        return;
    }
    let id = sessions.new_id("msg");
    state.held = Some(Held {
        id: id.clone(),
        lines: vec![text.to_owned()],
        member_id,
        attachments,
    });
    let sessions = sessions.clone();
    let cell = cell.clone();
    let closes = Instant::now() + SETTLE;
    tokio::spawn(async move {
        sleep_until_on_time(closes).await;
        let flushed = {
            let mut state = lock(&cell.state);
            // A cancel or an earlier flush may have taken the window already.
            if state.held.as_ref().is_some_and(|held| held.id == id) {
                flush(&sessions, &mut state);
                true
            } else {
                false
            }
        };
        // The Session's in-flight note needs no new line here: it lists
        // held lines where it lists the inbox's, in the same order, so the
        // note the window's last line wrote still stands (and the turn's
        // start writes the next).
        if flushed {
            sessions.start(cell);
        }
    });
}

/// Sleeps until `deadline` and not a tick later: the window's close is on
/// the path of a person's first answer (issue 13, the time to first token
/// the host adds), and tokio's timer wakes up to [`TIMER_SLACK`] late. So
/// the timer wakes that much early and the rest is slept on a blocking
/// thread, whose sleep the OS ends on time. A paused clock (tests) does not
/// move while that thread sleeps; the timer then sleeps the rest.
async fn sleep_until_on_time(deadline: Instant) {
    tokio::time::sleep_until(deadline - TIMER_SLACK).await;
    let rest = deadline.saturating_duration_since(Instant::now());
    if !rest.is_zero() {
        let _ = tokio::task::spawn_blocking(move || std::thread::sleep(rest)).await;
    }
    if Instant::now() < deadline {
        tokio::time::sleep_until(deadline).await;
    }
}

/// Moves the held lines into the inbox as one next-turn item.
pub(crate) fn flush(_sessions: &Sessions, state: &mut CellState) {
    if let Some(held) = state.held.take() {
        state.inbox.push(held.as_item());
    }
}
