//! The `related` recall path: `[[topic]]` references make topic–topic edges
//! and an entry's `by:` makes a topic–Bot edge (the topic's file was written
//! by that Bot). The walk is undirected and goes up to two hops from a topic
//! or an author.

use super::MemoryEntry;
use std::collections::{BTreeMap, BTreeSet, VecDeque};

/// A node: a topic (lower-case) or an author id.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum Node {
    Topic(String),
    Author(String),
}

/// The undirected graph of a list of entries.
#[derive(Debug, Default)]
pub struct MemoryGraph {
    edges: BTreeMap<Node, BTreeSet<Node>>,
}

/// The `[[topic]]` references of `text`, in order.
pub fn references_of(text: &str) -> Vec<String> {
    let mut found = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find("[[") {
        let after = &rest[open + 2..];
        let Some(close) = after.find("]]") else { break };
        let topic = after[..close].trim();
        if !topic.is_empty() && !topic.contains('\n') {
            found.push(topic.to_owned());
        }
        rest = &after[close + 2..];
    }
    found
}

fn topic(name: &str) -> Node {
    Node::Topic(name.trim().to_lowercase())
}

/// Builds the graph of `entries`.
pub fn build_graph(entries: &[MemoryEntry]) -> MemoryGraph {
    let mut graph = MemoryGraph::default();
    let mut link = |a: Node, b: Node| {
        if a != b {
            graph.edges.entry(a.clone()).or_default().insert(b.clone());
            graph.edges.entry(b).or_default().insert(a);
        }
    };
    for entry in entries {
        for reference in references_of(&entry.text) {
            link(topic(&entry.topic), topic(&reference));
        }
        link(topic(&entry.topic), Node::Author(entry.by.clone()));
    }
    graph
}

/// The nodes within two hops of `start` (a topic, or an author id), with
/// their distance, nearest first; empty when `start` is in no edge.
pub fn related_of(graph: &MemoryGraph, start: &str) -> Vec<(Node, u32)> {
    let first = [topic(start), Node::Author(start.trim().to_owned())]
        .into_iter()
        .find(|node| graph.edges.contains_key(node));
    let Some(first) = first else {
        return Vec::new();
    };
    let mut seen = BTreeMap::from([(first.clone(), 0u32)]);
    let mut queue = VecDeque::from([first]);
    while let Some(node) = queue.pop_front() {
        let hops = seen[&node];
        if hops == 2 {
            continue;
        }
        for next in graph.edges.get(&node).into_iter().flatten() {
            if !seen.contains_key(next) {
                seen.insert(next.clone(), hops + 1);
                queue.push_back(next.clone());
            }
        }
    }
    let mut near: Vec<(Node, u32)> = seen.into_iter().collect();
    near.sort_by(|a, b| a.1.cmp(&b.1).then(a.0.cmp(&b.0)));
    near
}

/// The entries whose topic is within two hops of `start`, nearest first,
/// then newest, at most `limit`.
pub fn related_entries<'a>(
    entries: &'a [MemoryEntry],
    start: &str,
    limit: usize,
) -> Vec<&'a MemoryEntry> {
    let near = related_of(&build_graph(entries), start);
    let hops_of = |entry: &MemoryEntry| {
        near.iter()
            .find(|(node, _)| *node == topic(&entry.topic))
            .map(|(_, hops)| *hops)
    };
    let mut found: Vec<(u32, &MemoryEntry)> = entries
        .iter()
        .filter_map(|e| hops_of(e).map(|h| (h, e)))
        .collect();
    found.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.at.cmp(&a.1.at)));
    found.into_iter().take(limit).map(|(_, e)| e).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: &str, topic: &str, by: &str, text: &str) -> MemoryEntry {
        MemoryEntry {
            id: id.into(),
            topic: topic.into(),
            by: by.into(),
            at: 0,
            text: text.into(),
        }
    }

    #[test]
    fn related_walks_topic_and_by_edges_undirected_up_to_two_hops() {
        let entries = vec![
            entry("1", "deploy", "bot-a", "Uses the [[release]] checklist."),
            entry(
                "2",
                "release",
                "bot-b",
                "Cut on Thursdays; see [[calendar]].",
            ),
            entry("3", "calendar", "bot-c", "Team calendar."),
            entry("4", "hiring", "bot-d", "Unrelated."),
        ];
        let ids = |start: &str| -> Vec<String> {
            related_entries(&entries, start, 10)
                .iter()
                .map(|e| e.id.clone())
                .collect()
        };
        // deploy -> release (1 hop) -> calendar (2 hops); undirected from calendar.
        assert_eq!(ids("Deploy"), vec!["1", "2", "3"]);
        assert_eq!(ids("calendar"), vec!["3", "2", "1"]);
        // An author reaches its topic (1) and that topic's links (2).
        assert_eq!(ids("bot-b"), vec!["2", "1", "3"]);
        assert_eq!(ids("hiring"), vec!["4"]);
        assert!(ids("nothing").is_empty());
        let near = related_of(&build_graph(&entries), "deploy");
        assert!(near.contains(&(Node::Author("bot-b".into()), 2)));
        assert!(!near.iter().any(|(n, _)| *n == Node::Author("bot-c".into())));
    }
}
