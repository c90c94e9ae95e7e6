//! The default recall path: exact words. An entry scores one point for each
//! query word among its words (topic included; a CJK query piece matches
//! inside a CJK run); the best score first, then the newest.

use super::MemoryEntry;
use super::terms::{is_cjk, words_of};
use std::collections::{HashMap, HashSet};

/// Which entries hold each word (topic included), built once per list.
#[derive(Debug, Default)]
pub struct ExactIndex {
    words: HashMap<String, Vec<u32>>,
}

/// Builds the word index of `entries`.
pub fn build_exact_index(entries: &[MemoryEntry]) -> ExactIndex {
    let mut index = ExactIndex::default();
    for (at, entry) in entries.iter().enumerate() {
        let words: HashSet<String> = words_of(&entry.text)
            .into_iter()
            .chain(words_of(&entry.topic))
            .collect();
        for word in words {
            index.words.entry(word).or_default().push(at as u32);
        }
    }
    index
}

/// The entries of `entries` (the list `index` was built from) matching
/// `query`, best first, at most `limit`.
pub fn search_exact<'a>(
    index: &ExactIndex,
    entries: &'a [MemoryEntry],
    query: &str,
    limit: usize,
) -> Vec<&'a MemoryEntry> {
    let mut wanted = words_of(query);
    wanted.sort();
    wanted.dedup();
    let mut scores: HashMap<u32, usize> = HashMap::new();
    for word in &wanted {
        let mut docs: HashSet<u32> = HashSet::new();
        if word.chars().next().is_some_and(is_cjk) {
            // A CJK piece matches inside a longer CJK run.
            for (have, at) in &index.words {
                if have.contains(word.as_str()) {
                    docs.extend(at.iter().copied());
                }
            }
        } else if let Some(at) = index.words.get(word) {
            docs.extend(at.iter().copied());
        }
        for doc in docs {
            *scores.entry(doc).or_insert(0) += 1;
        }
    }
    let mut scored: Vec<(usize, &MemoryEntry)> = scores
        .into_iter()
        .filter_map(|(doc, score)| entries.get(doc as usize).map(|e| (score, e)))
        .collect();
    scored.sort_by(|a, b| {
        b.0.cmp(&a.0)
            .then(b.1.at.cmp(&a.1.at))
            .then(b.1.id.cmp(&a.1.id))
    });
    scored.into_iter().take(limit).map(|(_, e)| e).collect()
}

/// `search_exact` over a fresh index of `entries`.
pub fn exact_recall<'a>(
    entries: &'a [MemoryEntry],
    query: &str,
    limit: usize,
) -> Vec<&'a MemoryEntry> {
    search_exact(&build_exact_index(entries), entries, query, limit)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: &str, at: u64, text: &str) -> MemoryEntry {
        MemoryEntry {
            id: id.into(),
            topic: "t".into(),
            by: "bot-a".into(),
            at,
            text: text.into(),
        }
    }

    #[test]
    fn exact_words_rank_by_matches_then_newest_and_a_stem_does_not_match() {
        let entries = vec![
            entry("a", 1, "The deploy runs on Friday."),
            entry("b", 2, "Deploy window: Friday morning."),
            entry("c", 3, "Deploys are frozen in December."),
            entry("d", 4, "服务器部署在上海"),
        ];
        let ids = |q: &str| -> Vec<String> {
            exact_recall(&entries, q, 10)
                .iter()
                .map(|e| e.id.clone())
                .collect()
        };
        assert_eq!(ids("deploy friday"), vec!["b", "a"]);
        assert_eq!(ids("DEPLOYS"), vec!["c"]);
        assert_eq!(ids("部署"), vec!["d"]);
        assert!(ids("  ").is_empty());
    }
}
