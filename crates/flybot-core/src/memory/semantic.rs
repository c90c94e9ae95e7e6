//! The `semantic` recall path: a sparse TF-IDF vector per entry over its
//! terms (`terms_of`), normalised, in an inverted index; a query is ranked
//! by cosine. Built from the entries alone, so it is rebuilt whenever the
//! files change and never stored.

use super::MemoryEntry;
use super::terms::terms_of;
use std::collections::HashMap;

/// The index of a list of entries; documents are the entries' positions.
#[derive(Debug, Default)]
pub struct SemanticIndex {
    ids: HashMap<String, usize>,
    idf: Vec<f32>,
    /// Per term: (document, normalised weight).
    postings: Vec<Vec<(u32, f32)>>,
    docs: usize,
}

/// Term counts of one text.
fn counts(text: &str) -> HashMap<String, u32> {
    let mut counts = HashMap::new();
    for term in terms_of(text) {
        *counts.entry(term).or_insert(0) += 1;
    }
    counts
}

fn weight(count: u32, idf: f32) -> f32 {
    (1.0 + (count as f32).ln()) * idf
}

/// Builds the index of `entries` (text and topic).
pub fn build_index(entries: &[MemoryEntry]) -> SemanticIndex {
    let mut index = SemanticIndex {
        docs: entries.len(),
        ..SemanticIndex::default()
    };
    let docs: Vec<Vec<(usize, u32)>> = entries
        .iter()
        .map(|entry| {
            counts(&format!("{}\n{}", entry.topic, entry.text))
                .into_iter()
                .map(|(term, count)| {
                    let next = index.ids.len();
                    let id = *index.ids.entry(term).or_insert(next);
                    (id, count)
                })
                .collect()
        })
        .collect();
    let mut df = vec![0u32; index.ids.len()];
    for doc in &docs {
        for (term, _) in doc {
            df[*term] += 1;
        }
    }
    let n = entries.len() as f32;
    index.idf = df
        .iter()
        .map(|&d| ((n + 1.0) / (d as f32 + 1.0)).ln() + 1.0)
        .collect();
    index.postings = vec![Vec::new(); index.ids.len()];
    for (doc_at, doc) in docs.iter().enumerate() {
        let norm = doc
            .iter()
            .map(|(t, c)| weight(*c, index.idf[*t]).powi(2))
            .sum::<f32>()
            .sqrt();
        if norm == 0.0 {
            continue;
        }
        for (term, count) in doc {
            let w = weight(*count, index.idf[*term]) / norm;
            index.postings[*term].push((doc_at as u32, w));
        }
    }
    index
}

/// The positions of the entries nearest `query` by cosine, best first (ties:
/// the later entry first), at most `limit`, each with its score. An entry
/// sharing no term with the query is not listed.
pub fn search_index(index: &SemanticIndex, query: &str, limit: usize) -> Vec<(usize, f32)> {
    let query: Vec<(usize, f32)> = counts(query)
        .into_iter()
        .filter_map(|(term, count)| {
            let id = *index.ids.get(&term)?;
            Some((id, weight(count, index.idf[id])))
        })
        .collect();
    let norm = query.iter().map(|(_, w)| w * w).sum::<f32>().sqrt();
    if norm == 0.0 || limit == 0 {
        return Vec::new();
    }
    let mut scores = vec![0f32; index.docs];
    for (term, w) in &query {
        for (doc, dw) in &index.postings[*term] {
            scores[*doc as usize] += dw * w / norm;
        }
    }
    let mut hits: Vec<(usize, f32)> = scores
        .into_iter()
        .enumerate()
        .filter(|(_, s)| *s > 0.0)
        .collect();
    let by_score = |a: &(usize, f32), b: &(usize, f32)| b.1.total_cmp(&a.1).then(b.0.cmp(&a.0));
    if hits.len() > limit {
        hits.select_nth_unstable_by(limit - 1, by_score);
        hits.truncate(limit);
    }
    hits.sort_by(by_score);
    hits
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(text: &str) -> MemoryEntry {
        MemoryEntry {
            id: String::new(),
            topic: "notes".into(),
            by: "bot-a".into(),
            at: 0,
            text: text.into(),
        }
    }

    fn ranked(texts: &[&str], query: &str) -> Vec<usize> {
        let entries: Vec<MemoryEntry> = texts.iter().map(|t| entry(t)).collect();
        search_index(&build_index(&entries), query, 10)
            .into_iter()
            .map(|(at, _)| at)
            .collect()
    }

    #[test]
    fn semantic_ranks_by_cosine_and_a_shared_stem_matches_across_endings() {
        let texts = [
            "The cat sat on the mat.",
            "Deployment happens every Friday afternoon.",
            "We deployed the billing service yesterday.",
        ];
        // "deploying" shares the trigrams of "deploy" with both deploy lines.
        let hits = ranked(&texts, "deploying");
        assert_eq!(hits.len(), 2);
        assert!(hits.contains(&1) && hits.contains(&2));
        assert_eq!(ranked(&texts, "friday deployment")[0], 1);
        assert!(ranked(&texts, "zebra").is_empty());
    }

    #[test]
    fn semantic_matches_cjk_by_characters_and_pairs() {
        let texts = ["服务器部署在上海", "我们喜欢喝茶", "deploy in Shanghai"];
        assert_eq!(ranked(&texts, "部署")[0], 0);
        assert_eq!(ranked(&texts, "喝茶"), vec![1]);
    }
}
