//! Bounded Session memory (issue 13). A Session holds in memory only its
//! log entries not yet durable and its current part, which a turn loads;
//! once a turn's end is durable and no turn runs, it lets go of the rest
//! ([`Cell::release_log`]). The host keeps in memory every Session that
//! runs a turn, holds or queues input, has lines not yet durable, or is in
//! use by a caller, and of the idle rest only those used most recently, at
//! most [`KEPT_IDLE`] of them holding at most [`KEPT_IDLE_BYTES`] of log in
//! all. A Session let go is read from its files again the next time it is
//! used; everything it held was durable.

use super::runtime::Cell;
use flybot_core::sync::lock;
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;

/// How many idle Sessions stay in memory beside the busy ones.
pub const KEPT_IDLE: usize = 64;
/// How much log (as written) the idle Sessions kept may hold in all.
pub const KEPT_IDLE_BYTES: u64 = 4 << 20;

impl Cell {
    /// Lets go of the durable log entries held in memory from before the
    /// current part, unless a turn runs (it builds its requests from
    /// them). The current part's entries stay: the next turn builds its
    /// request from them without reading and parsing the part again (a
    /// room member's part grows by a round each turn), and an idle
    /// Session's held entries count against [`KEPT_IDLE_BYTES`].
    pub(crate) fn release_log(&self) {
        let part_from = self.with_parts(|parts| parts.current().live_after());
        let state = lock(&self.state);
        if state.running.is_none() {
            let durable = self.visible.durable();
            self.with_log(|log| log.release_through(durable.min(part_from)));
        }
    }

    /// Whether nothing but the map holds the Session and nothing of it
    /// lives only in memory: no turn, no queued or held input, every line
    /// durable.
    fn may_let_go(self: &Arc<Cell>) -> bool {
        if Arc::strong_count(self) > 1 {
            return false;
        }
        let idle = {
            let state = lock(&self.state);
            state.running.is_none() && state.inbox.is_empty() && state.held.is_none()
        };
        idle && self.with_log(|log| log.last_seq_after(0)) <= self.visible.durable()
    }
}

/// Lets go of the least recently used idle Sessions beyond [`KEPT_IDLE`]
/// of them or [`KEPT_IDLE_BYTES`] of their logs.
pub(crate) fn let_go_idle(cells: &mut HashMap<String, Arc<Cell>>) {
    let mut idle: Vec<(u64, String, u64)> = cells
        .iter()
        .filter(|(_, cell)| cell.may_let_go())
        .map(|(id, cell)| {
            let bytes = cell.with_log(|log| log.held_bytes());
            (cell.used.load(Ordering::Relaxed), id.clone(), bytes)
        })
        .collect();
    // The most recently used first: they are the ones kept.
    idle.sort_unstable_by_key(|cell| std::cmp::Reverse(cell.0));
    let (mut kept, mut held) = (0, 0);
    for (_, id, bytes) in idle {
        if kept < KEPT_IDLE && held + bytes <= KEPT_IDLE_BYTES {
            kept += 1;
            held += bytes;
        } else {
            cells.remove(&id);
        }
    }
}
