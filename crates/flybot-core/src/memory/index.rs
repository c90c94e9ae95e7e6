//! The recall index of one reader's entries: the entries with their
//! exact-word and TF-IDF indexes, built once and searched many times. It is
//! derived from the files alone; the host keeps one while the files it came
//! from stand and builds a new one when they change.

use super::MemoryEntry;
use super::exact::{ExactIndex, build_exact_index, search_exact};
use super::graph::related_entries;
use super::semantic::{SemanticIndex, build_index, search_index};

/// A reader's entries, indexed for recall.
#[derive(Debug, Default)]
pub struct RecallIndex {
    entries: Vec<MemoryEntry>,
    exact: ExactIndex,
    semantic: SemanticIndex,
}

impl RecallIndex {
    /// Indexes `entries` (the reader's own, then the team's it may read).
    pub fn build(entries: Vec<MemoryEntry>) -> RecallIndex {
        RecallIndex {
            exact: build_exact_index(&entries),
            semantic: build_index(&entries),
            entries,
        }
    }

    pub fn entries(&self) -> &[MemoryEntry] {
        &self.entries
    }

    /// Entries holding the query's words, best first.
    pub fn exact(&self, query: &str, limit: usize) -> Vec<&MemoryEntry> {
        search_exact(&self.exact, &self.entries, query, limit)
    }

    /// Entries nearest the query by TF-IDF cosine, best first.
    pub fn semantic(&self, query: &str, limit: usize) -> Vec<&MemoryEntry> {
        search_index(&self.semantic, query, limit)
            .into_iter()
            .filter_map(|(at, _)| self.entries.get(at))
            .collect()
    }

    /// Entries whose topic is within two links of the query.
    pub fn related(&self, query: &str, limit: usize) -> Vec<&MemoryEntry> {
        related_entries(&self.entries, query, limit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: &str, topic: &str, text: &str) -> MemoryEntry {
        MemoryEntry {
            id: id.into(),
            topic: topic.into(),
            by: format!("bot-{id}"),
            at: 1,
            text: text.into(),
        }
    }

    #[test]
    fn one_index_answers_the_three_recall_paths_over_the_same_entries() {
        let index = RecallIndex::build(vec![
            entry("a", "deploy", "The deploy runs on Friday, see [[release]]."),
            entry("b", "release", "Releases are tagged by the lead."),
            entry("c", "lunch", "Lunch is at noon."),
        ]);
        let ids = |found: Vec<&MemoryEntry>| -> Vec<String> {
            found.into_iter().map(|e| e.id.clone()).collect()
        };
        assert_eq!(ids(index.exact("friday", 5)), vec!["a"]);
        assert_eq!(ids(index.semantic("deployment friday", 1)), vec!["a"]);
        let related = ids(index.related("deploy", 5));
        assert!(related.contains(&"b".to_owned()), "{related:?}");
        assert!(!related.contains(&"c".to_owned()), "{related:?}");
        assert_eq!(index.entries().len(), 3);
    }
}
