//! The acknowledged-line ledger (#1678, #1684): per Session, the ids of the
//! lines already acknowledged, so one line never earns a second ack or a
//! second model call. It is bounded on both axes: per Session the last
//! [`LINE_IDS_KEPT`] ids exactly and older ones folded into a 1 KiB filter
//! (three salted positions per id) that is rebuilt from the exact set every
//! [`LEDGER_FILTER_REBUILD_AFTER`] folds, so its false positives stay
//! under 1 % (a filter that only filled would silence the ack); and at most
//! [`LEDGER_SESSIONS_KEPT`] Sessions, the one that wrote longest ago
//! dropped.

use std::collections::hash_map::DefaultHasher;
use std::collections::{HashMap, VecDeque};
use std::hash::{Hash, Hasher};

/// Ids kept exactly per Session.
pub const LINE_IDS_KEPT: usize = 16;
/// Folds between two rebuilds of the filter: with 8,192 bits and three
/// positions, 512 ids fill it to about 0.5 % false positives.
pub const LEDGER_FILTER_REBUILD_AFTER: u32 = 512;
/// Sessions whose ledger is kept.
pub const LEDGER_SESSIONS_KEPT: usize = 256;
/// The filter's size in 64-bit words: 1 KiB.
const FILTER_WORDS: usize = 128;
const FILTER_BITS: u64 = (FILTER_WORDS * 64) as u64;

/// One Session's acknowledged ids.
#[derive(Debug, Clone)]
pub struct AckLedger {
    exact: VecDeque<String>,
    filter: [u64; FILTER_WORDS],
    folds: u32,
}

impl Default for AckLedger {
    fn default() -> Self {
        AckLedger {
            exact: VecDeque::new(),
            filter: [0; FILTER_WORDS],
            folds: 0,
        }
    }
}

fn positions(id: &str) -> [u64; 3] {
    [0u64, 1, 2].map(|salt| {
        let mut hasher = DefaultHasher::new();
        salt.hash(&mut hasher);
        id.hash(&mut hasher);
        hasher.finish() % FILTER_BITS
    })
}

impl AckLedger {
    /// Whether `id` was acknowledged (exactly for the last ones, by the
    /// filter for older ones).
    pub fn acked(&self, id: &str) -> bool {
        self.exact.iter().any(|kept| kept == id)
            || positions(id)
                .iter()
                .all(|&bit| self.filter[(bit / 64) as usize] & (1 << (bit % 64)) != 0)
    }

    /// Notes `id` as acknowledged.
    pub fn note(&mut self, id: &str) {
        if self.exact.iter().any(|kept| kept == id) {
            return;
        }
        self.exact.push_back(id.to_owned());
        while self.exact.len() > LINE_IDS_KEPT {
            if let Some(old) = self.exact.pop_front() {
                self.fold(&old);
            }
        }
    }

    fn fold(&mut self, id: &str) {
        self.folds += 1;
        if self.folds >= LEDGER_FILTER_REBUILD_AFTER {
            self.folds = 0;
            self.filter = [0; FILTER_WORDS];
            let exact: Vec<String> = self.exact.iter().cloned().collect();
            for kept in &exact {
                self.set(kept);
            }
        }
        self.set(id);
    }

    fn set(&mut self, id: &str) {
        for bit in positions(id) {
            self.filter[(bit / 64) as usize] |= 1 << (bit % 64);
        }
    }
}

/// The ledgers of the Sessions that wrote most recently.
#[derive(Debug, Default)]
pub struct AckLedgers {
    by_session: HashMap<String, (u64, AckLedger)>,
    clock: u64,
}

impl AckLedgers {
    /// Notes `line_id` for `session_id`; answers false when it was already
    /// acknowledged (no second ack, no second call).
    pub fn first_ack(&mut self, session_id: &str, line_id: &str) -> bool {
        self.clock += 1;
        let clock = self.clock;
        if !self.by_session.contains_key(session_id)
            && self.by_session.len() >= LEDGER_SESSIONS_KEPT
        {
            let oldest = self
                .by_session
                .iter()
                .min_by_key(|(_, (wrote, _))| *wrote)
                .map(|(id, _)| id.clone());
            if let Some(oldest) = oldest {
                self.by_session.remove(&oldest);
            }
        }
        let (wrote, ledger) = self.by_session.entry(session_id.to_owned()).or_default();
        if ledger.acked(line_id) {
            return false;
        }
        *wrote = clock;
        ledger.note(line_id);
        true
    }

    pub fn sessions(&self) -> usize {
        self.by_session.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    /// Rule #1684.
    fn ledger_a_line_earns_one_ack_even_long_after_it_left_the_exact_set() {
        let mut ledgers = AckLedgers::default();
        assert!(ledgers.first_ack("s1", "msg-0"));
        assert!(!ledgers.first_ack("s1", "msg-0"));
        for n in 1..=LINE_IDS_KEPT * 3 {
            assert!(ledgers.first_ack("s1", &format!("msg-{n}")));
        }
        assert!(!ledgers.first_ack("s1", "msg-0"), "folded into the filter");
        assert!(ledgers.first_ack("s2", "msg-0"), "per Session");
    }

    #[test]
    /// Rule #1678.
    fn ledger_filter_stays_under_one_percent_false_positives_over_12000_lines() {
        let mut ledger = AckLedger::default();
        for n in 0..12_000 {
            ledger.note(&format!("line-{n}"));
        }
        let false_positives = (0..10_000)
            .filter(|n| ledger.acked(&format!("new-{n}")))
            .count();
        assert!(
            false_positives < 100,
            "{false_positives} of 10,000 new lines read as acked"
        );
    }

    #[test]
    /// Rule #1684.
    fn ledger_sessions_are_bounded_the_one_that_wrote_longest_ago_dropped() {
        let mut ledgers = AckLedgers::default();
        for n in 0..LEDGER_SESSIONS_KEPT {
            ledgers.first_ack(&format!("s{n}"), "msg");
        }
        ledgers.first_ack("s0", "msg-again");
        ledgers.first_ack("s-new", "msg");
        assert_eq!(ledgers.sessions(), LEDGER_SESSIONS_KEPT);
        assert!(!ledgers.first_ack("s0", "msg"), "s0 wrote lately: kept");
        assert!(
            ledgers.first_ack("s1", "msg"),
            "s1 wrote longest ago: dropped"
        );
    }
}
