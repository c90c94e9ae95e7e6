//! Pruning finished cards (#54, #1252): once more than `FINISHED_KEPT`
//! cards have ended, the oldest ended ones the core rule `prunable` allows
//! are removed in one change (never a result-ready card waiting for its
//! acceptance, never one whose decision comment is pending, never the
//! parent or rework original of a card still in play). It runs when the
//! host opens and after board writes, never on a write's own path, and
//! only when the board is over the limit by `PRUNE_SLACK`, so a busy board
//! prunes in batches rather than on every write.

use super::write::Board;
use crate::events::{Written, follow_written};
use flybot_core::tasks::prune::prunable;
use flybot_store::StoreStatus;

/// How many ended cards the board keeps.
pub const FINISHED_KEPT: usize = 2_000;

/// How far over `FINISHED_KEPT` the board may grow before a prune runs.
pub const PRUNE_SLACK: usize = 200;

/// The journal's actor of a prune.
const PRUNE_ACTOR: &str = "host:prune";

/// Prunes if the board holds more than `kept + slack` ended cards; answers
/// how many cards were removed.
pub async fn prune(board: &Board, kept: usize, slack: usize) -> usize {
    let store = board.team().store();
    let ended = store.read(|s| s.tasks.values().filter(|t| t.status.is_terminal()).count());
    if ended <= kept + slack || store.status() != StoreStatus::Writer {
        return 0;
    }
    let removed = board
        .team()
        .mutate(PRUNE_ACTOR, |change| {
            let ids = prunable(change.state(), kept, change.now_ms());
            for id in &ids {
                change.remove_task(id);
                // A pruned job card ends its run's Project binding (#1691).
                change.set_project_run(id, None);
            }
            Ok(ids.len())
        })
        .await;
    match removed {
        Ok(n) => n,
        Err(e) => {
            tracing::warn!("finished cards could not be pruned: {}", e.message);
            0
        }
    }
}

/// Prunes when the host opens and after every board write until it stops.
pub fn follow(board: &Board) {
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        return;
    };
    let first = board.clone();
    runtime.spawn(async move {
        prune(&first, FINISHED_KEPT, PRUNE_SLACK).await;
    });
    let bus = board.team().bus().clone();
    let board = board.clone();
    follow_written(&bus, move |_: Written| {
        let board = board.clone();
        async move {
            prune(&board, FINISHED_KEPT, PRUNE_SLACK).await;
        }
    });
}
