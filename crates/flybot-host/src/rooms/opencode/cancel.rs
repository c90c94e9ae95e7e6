//! A person's `task-cancel` on a card an OpenCode Bot works (#198, stop
//! and late result): it reaches the card's execution journal (a new
//! generation, the turn tombstoned) and the runtime (the session's abort),
//! through the running turn's own stop when one runs; the seat, and with it
//! the `opencode serve` process, is released only once the journal shows
//! `cancel: observed`, which rests on a status the runtime reported.

use super::{OpenCodeSeats, Seat};
use flybot_core::sync::lock;
use flybot_interop::opencode::CancelStand;
use flybot_protocol::state::{TaskStatus, TeamState};
use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};
use tokio::sync::watch;

/// Whether the card `task_id` was cancelled.
pub(super) fn card_is_cancelled(state: &TeamState, task_id: &str) -> bool {
    state
        .tasks
        .get(task_id)
        .is_some_and(|t| t.status == TaskStatus::Cancelled)
}

type Running = Arc<Mutex<HashMap<String, watch::Sender<bool>>>>;
type CardsRunning = Arc<Mutex<HashMap<String, String>>>;

impl OpenCodeSeats {
    /// Starts settling every seat whose card was cancelled and whose stop
    /// the runtime has not shown yet; each seat settles once at a time.
    pub fn settle_cancelled(&self, state: &TeamState) {
        let waiting: Vec<Arc<Seat>> = lock(&self.seats)
            .values()
            .filter(|seat| card_is_cancelled(state, &seat.task_id))
            .filter(|seat| !seat.cancel_observed.load(Ordering::SeqCst))
            .cloned()
            .collect();
        for seat in waiting {
            if seat.settling.swap(true, Ordering::SeqCst) {
                continue;
            }
            let (running, cards) = (self.running.clone(), self.cards_running.clone());
            tokio::spawn(async move {
                settle(&running, &cards, &seat).await;
                seat.settling.store(false, Ordering::SeqCst);
            });
        }
    }
}

async fn settle(running: &Running, cards: &CardsRunning, seat: &Seat) {
    // A turn at work stops through its own path (journaled there).
    let session_id = lock(cards).get(&seat.task_id).cloned();
    if let Some(stop) = session_id.and_then(|id| lock(running).get(&id).cloned()) {
        stop.send_replace(true);
    }
    let stand = seat.task.lock().await.cancel().await;
    if stand == CancelStand::Observed {
        seat.cancel_observed.store(true, Ordering::SeqCst);
        // The next reap releases it (and ends its process group).
        tracing::info!(task = %seat.task_id, "OpenCode's stop observed; the seat is released");
    }
}
