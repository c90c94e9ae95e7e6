//! The recall indexes the host keeps: one per Bot that recalled lately,
//! valid while the Bot's memory file, the team's file and the team's
//! ownership facts (#53: who may read whose team entries) stand. Checking
//! that costs two `stat`s and a hash of the roster, no read; a write, a hand
//! edit of a file or a change of owners makes the next recall build afresh.

use flybot_core::memory::index::RecallIndex;
use flybot_core::sync::lock;
use flybot_protocol::state::TeamState;
use flybot_store::memory::FileStamp;
use std::collections::HashMap;
use std::collections::hash_map::DefaultHasher;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex};

/// How many Bots' indexes are kept at once; the least recently used goes.
pub const CACHED_READERS: usize = 32;

/// What a cached index was built from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stamp {
    pub own: Option<FileStamp>,
    pub team: Option<FileStamp>,
    pub owners: u64,
}

/// The facts `team_entries_for` reads: the members and each Bot's owner.
pub fn owners_fingerprint(state: &TeamState) -> u64 {
    let mut hasher = DefaultHasher::new();
    for member in state.members.keys() {
        member.hash(&mut hasher);
    }
    0u8.hash(&mut hasher);
    for (id, bot) in &state.bots {
        id.hash(&mut hasher);
        bot.owner_id.hash(&mut hasher);
    }
    hasher.finish()
}

struct Kept {
    stamp: Stamp,
    index: Arc<RecallIndex>,
    used: u64,
}

/// The kept indexes, by Bot id. Cheap to clone.
#[derive(Clone, Default)]
pub struct RecallCache {
    kept: Arc<Mutex<(u64, HashMap<String, Kept>)>>,
}

impl RecallCache {
    /// The Bot's index when it was built from what `stamp` says.
    pub fn get(&self, bot_id: &str, stamp: &Stamp) -> Option<Arc<RecallIndex>> {
        let mut guard = lock(&self.kept);
        let (clock, kept) = &mut *guard;
        *clock += 1;
        let found = kept.get_mut(bot_id).filter(|k| k.stamp == *stamp)?;
        found.used = *clock;
        Some(found.index.clone())
    }

    /// Keeps `index`, built from what `stamp` says, for the Bot.
    pub fn put(&self, bot_id: &str, stamp: Stamp, index: Arc<RecallIndex>) {
        let mut guard = lock(&self.kept);
        let (clock, kept) = &mut *guard;
        *clock += 1;
        if !kept.contains_key(bot_id) && kept.len() >= CACHED_READERS {
            let oldest = kept
                .iter()
                .min_by_key(|(_, k)| k.used)
                .map(|(id, _)| id.clone());
            if let Some(oldest) = oldest {
                kept.remove(&oldest);
            }
        }
        let used = *clock;
        kept.insert(bot_id.to_owned(), Kept { stamp, index, used });
    }

    #[cfg(test)]
    fn len(&self) -> usize {
        lock(&self.kept).1.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn stamp(len: u64) -> Stamp {
        Stamp {
            own: Some(FileStamp {
                len,
                modified_ns: 1,
                inode: 1,
            }),
            team: None,
            owners: 0,
        }
    }

    #[test]
    fn an_index_is_answered_only_for_the_stamp_it_was_built_from() {
        let cache = RecallCache::default();
        cache.put("bot-a", stamp(10), Arc::new(RecallIndex::default()));
        assert!(cache.get("bot-a", &stamp(10)).is_some());
        assert!(cache.get("bot-a", &stamp(11)).is_none());
        assert!(cache.get("bot-b", &stamp(10)).is_none());
    }

    #[test]
    fn the_least_recently_used_reader_goes_when_the_cache_is_full() {
        let cache = RecallCache::default();
        for n in 0..CACHED_READERS {
            cache.put(&format!("bot-{n}"), stamp(1), Arc::default());
        }
        assert!(cache.get("bot-0", &stamp(1)).is_some());
        cache.put("bot-new", stamp(1), Arc::default());
        assert_eq!(cache.len(), CACHED_READERS);
        assert!(
            cache.get("bot-0", &stamp(1)).is_some(),
            "bot-0 was used last"
        );
        assert!(
            cache.get("bot-1", &stamp(1)).is_none(),
            "bot-1 was the oldest"
        );
    }
}
