//! Bounded Session memory (issue 13): the host keeps in memory every
//! Session that runs a turn, holds or queues input, has lines not yet
//! durable, or is in use by a caller, and of the idle rest only the
//! [`KEPT_IDLE`] used most recently. A Session let go is read from its
//! files again the next time it is used; everything it held was durable.

use super::runtime::Cell;
use flybot_core::sync::lock;
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;

/// How many idle Sessions stay in memory beside the busy ones.
pub const KEPT_IDLE: usize = 64;

impl Cell {
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

/// Lets go of the least recently used idle Sessions beyond [`KEPT_IDLE`].
pub(crate) fn let_go_idle(cells: &mut HashMap<String, Arc<Cell>>) {
    if cells.len() <= KEPT_IDLE {
        return;
    }
    let mut idle: Vec<(u64, String)> = cells
        .iter()
        .filter(|(_, cell)| cell.may_let_go())
        .map(|(id, cell)| (cell.used.load(Ordering::Relaxed), id.clone()))
        .collect();
    if idle.len() <= KEPT_IDLE {
        return;
    }
    idle.sort_unstable();
    let extra = idle.len() - KEPT_IDLE;
    for (_, id) in idle.into_iter().take(extra) {
        cells.remove(&id);
    }
}
