//! Leases expire by themselves (#1729): on start and whenever the earliest
//! live lease ends the host runs the single-owner `expire_leases` read over every card, so a
//! dead claimer's card returns to its queue and the drive offers it (and
//! its Bot new work) on the write's `tasks.written`. The host's own timer
//! is the one caller that expires every lease; a member expires only the
//! leases of cards it manages (`task-expire-leases`).

use super::write::Board;
use flybot_core::tasks::lease::{any_expired, expire_leases, next_expiry};
use flybot_store::StoreStatus;
use std::time::Duration;
use tokio::sync::broadcast::error::RecvError;

/// The shortest wait between two sweeps.
const RETRY_MS: u64 = 1_000;

/// The journal's actor of a recovery the timer made.
const TIMER_ACTOR: &str = "host:lease-clock";

/// Expires every ended lease now; answers how many cards were recovered.
/// Reads first, so a home with no ended lease (or one another FlyBot
/// writes) is never written by the timer.
pub async fn sweep(board: &Board) -> usize {
    let store = board.team().store();
    let now = store.clock_ms();
    // A home another FlyBot writes is never taken over by the timer.
    if store.status() != StoreStatus::Writer || !store.read(|state| any_expired(state, now)) {
        return 0;
    }
    let expired = board
        .write(TIMER_ACTOR, |state, now| {
            Ok(expire_leases(state, now, |_| true))
        })
        .await;
    match expired {
        Ok(out) => out.writes.len(),
        Err(e) => {
            tracing::warn!("ended leases could not be recovered: {}", e.message);
            0
        }
    }
}

/// Sweeps on start, then sleeps until the earliest live lease ends (and
/// sweeps again), re-reading the board after every board write, until the
/// host stops. With no lease held it keeps no timer at all.
pub fn follow(board: &Board) {
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        return;
    };
    let board = board.clone();
    runtime.spawn(async move {
        let bus = board.team().bus().clone();
        let mut written = bus.subscribe();
        let stopped = bus.stopped();
        tokio::pin!(stopped);
        loop {
            sweep(&board).await;
            let store = board.team().store();
            let next = store.read(next_expiry);
            // At least a second: a lease that could not be recovered (a
            // read-only home) is looked at again, never in a tight loop.
            let wait = next
                .map(|at| Duration::from_millis(at.saturating_sub(store.clock_ms()).max(RETRY_MS)));
            let lease_ends = async {
                match wait {
                    Some(wait) => tokio::time::sleep(wait).await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                () = &mut stopped => break,
                () = lease_ends => {}
                event = written.recv() => {
                    if matches!(event, Err(RecvError::Closed)) {
                        break;
                    }
                }
            }
        }
    });
}
