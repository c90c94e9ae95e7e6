//! A definition indexed once: edges parsed, producers and consumers keyed
//! on the parsed spec (#1291), forward successors without declared loops,
//! and the dependency order. Validation and the planner read this instead
//! of re-reading the file per question, so a 200-node definition stays cheap.

use super::artifact::canonical_key;
use super::definition::{ResolvedEdge, inputs_of, outputs_of, parse_edge};
use flybot_protocol::workflow::{WorkflowDefinition, WorkflowNode};
use std::collections::{BTreeSet, HashMap, HashSet};

pub struct Graph<'a> {
    pub def: &'a WorkflowDefinition,
    position: HashMap<&'a str, usize>,
    /// The edges that parse and join two known nodes, in row order.
    pub edges: Vec<ResolvedEdge>,
    /// Per edge above: whether a declared loop covers it.
    pub edge_is_loop: Vec<bool>,
    producers: HashMap<String, Vec<usize>>,
    consumers: HashMap<String, Vec<usize>>,
    /// (node index, input key) pairs fed only by declared loop edges.
    loop_inputs: HashSet<(usize, String)>,
    /// Forward successors by node index (declared loops left out).
    pub next: Vec<BTreeSet<usize>>,
    /// Node indexes in dependency order; nodes on an undeclared cycle last.
    pub order: Vec<usize>,
}

impl<'a> Graph<'a> {
    pub fn new(def: &'a WorkflowDefinition) -> Graph<'a> {
        let mut position = HashMap::with_capacity(def.nodes.len());
        for (at, node) in def.nodes.iter().enumerate() {
            position.entry(node.id.as_str()).or_insert(at);
        }
        let loops: HashSet<(&str, &str)> = def
            .loops
            .as_deref()
            .unwrap_or(&[])
            .iter()
            .map(|l| (l.from.as_str(), l.to.as_str()))
            .collect();
        let mut edges = Vec::with_capacity(def.edges.len());
        let mut edge_is_loop = Vec::with_capacity(def.edges.len());
        let mut next = vec![BTreeSet::new(); def.nodes.len()];
        let mut into: HashMap<(usize, String), (usize, usize)> = HashMap::new();
        for (row, raw) in def.edges.iter().enumerate() {
            let Ok(edge) = parse_edge(raw) else { continue };
            let (Some(&from), Some(&to)) = (
                position.get(edge.from_node.as_str()),
                position.get(edge.to_node.as_str()),
            ) else {
                continue;
            };
            let is_loop = loops.contains(&(edge.from_node.as_str(), edge.to_node.as_str()));
            if !is_loop {
                next[from].insert(to);
            }
            let artifact = edge.from_spec.key();
            let counts = into.entry((to, artifact.clone())).or_insert((0, 0));
            counts.0 += 1;
            counts.1 += usize::from(is_loop);
            edges.push(ResolvedEdge {
                row,
                from: edge.from_node,
                to: edge.to_node,
                artifact,
            });
            edge_is_loop.push(is_loop);
        }
        let loop_inputs = into
            .into_iter()
            .filter(|(_, (all, looped))| *all > 0 && all == looped)
            .map(|(key, _)| key)
            .collect();
        let mut producers: HashMap<String, Vec<usize>> = HashMap::new();
        let mut consumers: HashMap<String, Vec<usize>> = HashMap::new();
        for (at, node) in def.nodes.iter().enumerate() {
            for raw in outputs_of(node) {
                push_once(producers.entry(canonical_key(raw)).or_default(), at);
            }
            for raw in inputs_of(node) {
                push_once(consumers.entry(canonical_key(raw)).or_default(), at);
            }
        }
        let order = dependency_order(def.nodes.len(), &next);
        Graph {
            def,
            position,
            edges,
            edge_is_loop,
            producers,
            consumers,
            loop_inputs,
            next,
            order,
        }
    }

    pub fn index(&self, id: &str) -> Option<usize> {
        self.position.get(id).copied()
    }

    pub fn node(&self, at: usize) -> &'a WorkflowNode {
        &self.def.nodes[at]
    }

    /// The nodes handing out the fact with this canonical key.
    pub fn producers(&self, key: &str) -> &[usize] {
        self.producers.get(key).map_or(&[], Vec::as_slice)
    }

    /// The nodes taking in the fact with this canonical key.
    pub fn consumers(&self, key: &str) -> &[usize] {
        self.consumers.get(key).map_or(&[], Vec::as_slice)
    }

    /// Whether every edge bringing `key` into node `at` is a declared loop.
    pub fn is_loop_input(&self, at: usize, key: &str) -> bool {
        self.loop_inputs.contains(&(at, key.to_owned()))
    }

    /// The nodes no forward edge leaves: where a job ends.
    pub fn terminals(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.def.nodes.len()).filter(|at| self.next[*at].is_empty())
    }
}

fn push_once(list: &mut Vec<usize>, at: usize) {
    if !list.contains(&at) {
        list.push(at);
    }
}

/// Kahn's algorithm, always taking the earliest ready node in file order;
/// nodes left on a cycle follow in file order.
fn dependency_order(count: usize, next: &[BTreeSet<usize>]) -> Vec<usize> {
    let mut waiting = vec![0usize; count];
    for targets in next {
        for to in targets {
            waiting[*to] += 1;
        }
    }
    let mut ready: BTreeSet<usize> = (0..count).filter(|at| waiting[*at] == 0).collect();
    let mut placed = vec![false; count];
    let mut order = Vec::with_capacity(count);
    while let Some(at) = ready.pop_first() {
        placed[at] = true;
        order.push(at);
        for to in &next[at] {
            waiting[*to] -= 1;
            if waiting[*to] == 0 {
                ready.insert(*to);
            }
        }
    }
    order.extend((0..count).filter(|at| !placed[*at]));
    order
}
