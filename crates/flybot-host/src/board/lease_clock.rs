//! Leases expire by themselves (#1729): on start and then every minute the
//! host runs the single-owner `expire_leases` read over every card, so a
//! dead claimer's card returns to its queue and the drive offers it (and
//! its Bot new work) on the write's `tasks.written`. The host's own timer
//! is the one caller that expires every lease; a member expires only the
//! leases of cards it manages (`task-expire-leases`).

use super::write::Board;
use flybot_core::tasks::lease::{any_expired, expire_leases};
use std::time::Duration;

/// How often the timer looks for an ended lease.
pub const SWEEP_EVERY: Duration = Duration::from_secs(60);

/// The journal's actor of a recovery the timer made.
const TIMER_ACTOR: &str = "host:lease-clock";

/// Expires every ended lease now; answers how many cards were recovered.
/// Reads first, so a home with no ended lease (or one another FlyBot
/// writes) is never written by the timer.
pub async fn sweep(board: &Board) -> usize {
    let store = board.team().store();
    let now = store.clock_ms();
    if !store.read(|state| any_expired(state, now)) {
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

/// Sweeps on start, then every `SWEEP_EVERY` until the host stops.
pub fn follow(board: &Board) {
    let Ok(runtime) = tokio::runtime::Handle::try_current() else {
        return;
    };
    let board = board.clone();
    runtime.spawn(async move {
        let bus = board.team().bus().clone();
        let stopped = bus.stopped();
        tokio::pin!(stopped);
        loop {
            sweep(&board).await;
            tokio::select! {
                () = &mut stopped => break,
                () = tokio::time::sleep(SWEEP_EVERY) => {}
            }
        }
    });
}
