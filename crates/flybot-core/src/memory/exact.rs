//! The default recall path: exact words. An entry scores one point for each
//! query word among its words (topic included; a CJK query piece matches
//! inside a CJK run); the best score first, then the newest.

use super::MemoryEntry;
use super::terms::{is_cjk, words_of};
use std::collections::HashSet;

/// The entries matching `query`, best first, at most `limit`.
pub fn exact_recall<'a>(
    entries: &'a [MemoryEntry],
    query: &str,
    limit: usize,
) -> Vec<&'a MemoryEntry> {
    let wanted: Vec<String> = {
        let mut seen = HashSet::new();
        words_of(query)
            .into_iter()
            .filter(|w| seen.insert(w.clone()))
            .collect()
    };
    if wanted.is_empty() {
        return Vec::new();
    }
    let mut scored: Vec<(usize, &MemoryEntry)> = entries
        .iter()
        .filter_map(|entry| {
            let words: Vec<String> = words_of(&entry.text)
                .into_iter()
                .chain(words_of(&entry.topic))
                .collect();
            let score = wanted
                .iter()
                .filter(|w| {
                    if w.chars().next().is_some_and(is_cjk) {
                        words.iter().any(|have| have.contains(w.as_str()))
                    } else {
                        words.iter().any(|have| have == *w)
                    }
                })
                .count();
            (score > 0).then_some((score, entry))
        })
        .collect();
    scored.sort_by(|a, b| b.0.cmp(&a.0).then(b.1.at.cmp(&a.1.at)));
    scored.into_iter().take(limit).map(|(_, e)| e).collect()
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
