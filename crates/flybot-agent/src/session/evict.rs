//! Bounded Session memory (issue 13). A Session holds in memory only its
//! log entries not yet durable and its current part, which a turn loads;
//! once a turn's end is durable and no turn runs, it lets go of the rest
//! ([`Cell::release_log`]); the parts kept stay within [`KEPT_PARTS_BYTES`]
//! in all, the least recently used letting go of theirs first
//! ([`trim_idle_logs`]). The host keeps in memory every Session that
//! runs a turn, holds or queues input, has lines not yet durable, or is in
//! use by a caller, and of the idle rest only those used most recently, at
//! most [`KEPT_IDLE`] of them holding at most [`KEPT_IDLE_BYTES`] of log in
//! all. A Session let go is read from its files again the next time it is
//! used; everything it held was durable.

use super::runtime::{Cell, Sessions};
use flybot_core::sync::lock;
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;

/// How many idle Sessions stay in memory beside the busy ones.
pub const KEPT_IDLE: usize = 64;
/// How much log (as written) the idle Sessions kept may hold in all.
pub const KEPT_IDLE_BYTES: u64 = 4 << 20;
/// How much of their current parts (as written) the Sessions in memory
/// keep between turns in all: a room's members' parts fit many times over,
/// and the host's memory stays flat however many chats run.
pub const KEPT_PARTS_BYTES: u64 = 1 << 20;

impl Sessions {
    /// How many Sessions are in memory now (the busy ones and at most
    /// `KEPT_IDLE` idle ones, plus the one just read).
    pub fn in_memory(&self) -> usize {
        lock(&self.inner.cells).len()
    }

    /// The size as written of the log entries the Sessions in memory hold
    /// (issue 13: entries not yet durable and the current parts kept).
    pub fn log_bytes_in_memory(&self) -> u64 {
        let cells: Vec<Arc<Cell>> = lock(&self.inner.cells).values().cloned().collect();
        cells.iter().map(|cell| held(cell)).sum()
    }

    /// Keeps what the Sessions in memory hold of their logs within
    /// [`KEPT_PARTS_BYTES`] (`trim_idle_logs`).
    pub(crate) fn trim_idle_logs(&self) {
        trim_idle_logs(&lock(&self.inner.cells));
    }
}

impl Cell {
    /// Lets go of the durable log entries held in memory from before the
    /// current part, unless a turn runs (it builds its requests from
    /// them). The current part's entries stay: the next turn builds its
    /// request from them without reading and parsing the part again (a
    /// room member's part grows by a round each turn), and an idle
    /// Session's held entries count against [`KEPT_PARTS_BYTES`].
    /// The log's read descriptor is opened here too (once, at the first
    /// turn's end, when the file exists), so a later read of what was let
    /// go opens nothing while the Session is held (issue 38).
    pub(crate) fn release_log(&self) {
        self.release_up_to(self.with_parts(|parts| parts.current().live_after()));
        self.with_log(|log| log.keep_file_open());
    }

    /// Lets go of the durable entries held before the last turn, the
    /// current part's too, unless a turn runs: [`trim_idle_logs`] asks it
    /// of the Sessions used least recently once they hold more than
    /// [`KEPT_PARTS_BYTES`]. The last turn stays: what follows its end
    /// (the usage ledger's fold, a room reading its member's answer) reads
    /// it from memory, not from the file (issue 38).
    fn release_before_last_turn(&self) {
        let start = self.with_log(|log| log.last_turn_start());
        self.release_up_to(start.map_or(u64::MAX, |seq| seq.saturating_sub(1)));
    }

    /// Lets go of every durable entry held, unless a turn runs: the last
    /// resort of [`trim_idle_logs`].
    fn release_whole_log(&self) {
        self.release_up_to(u64::MAX);
    }

    /// Lets go of the durable entries held up to `seq`, unless a turn runs.
    fn release_up_to(&self, seq: u64) {
        let state = lock(&self.state);
        if state.running.is_none() {
            let durable = self.visible.durable();
            self.with_log(|log| log.release_through(durable.min(seq)));
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
        .map(|(id, cell)| (cell.used.load(Ordering::Relaxed), id.clone(), held(cell)))
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

/// Keeps the log the Sessions in memory hold within [`KEPT_PARTS_BYTES`]
/// (beside what their running turns need): past it, the least recently
/// used let go of their current parts but their last turn, and if those
/// last turns still pass the bound, the least recently used let go of
/// theirs too. A part let go is read back from the file by its next turn.
pub(crate) fn trim_idle_logs(cells: &HashMap<String, Arc<Cell>>) {
    let mut holding: Vec<(u64, &Arc<Cell>, u64)> = cells
        .values()
        .map(|cell| (cell.used.load(Ordering::Relaxed), cell, held(cell)))
        .filter(|(_, _, bytes)| *bytes > 0)
        .collect();
    if holding.iter().map(|(_, _, bytes)| bytes).sum::<u64>() <= KEPT_PARTS_BYTES {
        return;
    }
    holding.sort_unstable_by_key(|cell| std::cmp::Reverse(cell.0));
    let mut kept = 0;
    let mut cut = Vec::new();
    for (_, cell, bytes) in holding {
        if kept + bytes <= KEPT_PARTS_BYTES {
            kept += bytes;
        } else {
            cell.release_before_last_turn();
            cut.push(cell);
        }
    }
    kept += cut.iter().map(|cell| held(cell)).sum::<u64>();
    for cell in cut.iter().rev() {
        if kept <= KEPT_PARTS_BYTES {
            break;
        }
        let before = held(cell);
        cell.release_whole_log();
        // A turn may have begun on it meanwhile: its lines stay held.
        kept = kept.saturating_sub(before.saturating_sub(held(cell)));
    }
}

fn held(cell: &Cell) -> u64 {
    cell.with_log(|log| log.held_bytes())
}
