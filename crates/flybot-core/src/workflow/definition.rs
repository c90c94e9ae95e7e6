//! Reading a definition's structure: its edges parsed, who produces and who
//! consumes a fact (keyed on the parsed spec, #1291), declared loops and the
//! dependency order. No node id is special here or anywhere in the engine.

use super::artifact::{ArtifactSpec, canonical_key, is_name, parse_spec};
use flybot_protocol::workflow::{WorkflowDefinition, WorkflowNode};
use std::collections::{BTreeMap, BTreeSet};

/// The role the host itself holds (a merge the gate allows): always on the
/// team, because no Bot is it.
pub const SYSTEM_ROLE: &str = "system";

/// One `edges[]` row read: `<node>.<artifact> -> <node>.<artifact>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedEdge {
    pub from_node: String,
    pub from_spec: ArtifactSpec,
    pub to_node: String,
    pub to_spec: ArtifactSpec,
}

/// An edge the rest of the engine uses: the artifact it carries, once (#1291).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ResolvedEdge {
    /// Its row in `edges[]`.
    pub row: usize,
    pub from: String,
    pub to: String,
    /// The canonical key of the fact the edge carries.
    pub artifact: String,
}

/// Reads one edge row, or says in a sentence why it cannot be read.
pub fn parse_edge(raw: &str) -> Result<ParsedEdge, String> {
    let Some((left, right)) = raw.split_once("->") else {
        return Err(format!(
            "The edge {raw:?} has no arrow; write <node>.<artifact> -> <node>.<artifact>."
        ));
    };
    let side = |text: &str| -> Result<(String, ArtifactSpec), String> {
        let text = text.trim();
        let Some((node, spec)) = text.split_once('.') else {
            return Err(format!(
                "The edge {raw:?} names {text:?}, which is not <node>.<artifact>."
            ));
        };
        let spec = parse_spec(spec).map_err(|error| error.sentence(spec.trim()))?;
        Ok((node.trim().to_owned(), spec))
    };
    let (from_node, from_spec) = side(left)?;
    let (to_node, to_spec) = side(right)?;
    Ok(ParsedEdge {
        from_node,
        from_spec,
        to_node,
        to_spec,
    })
}

/// The node `id`, if the definition has it.
pub fn node<'a>(def: &'a WorkflowDefinition, id: &str) -> Option<&'a WorkflowNode> {
    def.nodes.iter().find(|node| node.id == id)
}

/// A node's declared inputs as written.
pub fn inputs_of(node: &WorkflowNode) -> &[String] {
    node.inputs.as_deref().unwrap_or(&[])
}

/// A node's declared outputs as written.
pub fn outputs_of(node: &WorkflowNode) -> &[String] {
    node.outputs.as_deref().unwrap_or(&[])
}

/// The nodes that hand out the fact `raw`, however it is spaced.
pub fn producers_of<'a>(def: &'a WorkflowDefinition, raw: &str) -> Vec<&'a str> {
    let key = canonical_key(raw);
    def.nodes
        .iter()
        .filter(|node| outputs_of(node).iter().any(|o| canonical_key(o) == key))
        .map(|node| node.id.as_str())
        .collect()
}

/// The nodes that take in the fact `raw`, however it is spaced.
pub fn consumers_of<'a>(def: &'a WorkflowDefinition, raw: &str) -> Vec<&'a str> {
    let key = canonical_key(raw);
    def.nodes
        .iter()
        .filter(|node| inputs_of(node).iter().any(|i| canonical_key(i) == key))
        .map(|node| node.id.as_str())
        .collect()
}

/// Whether `list` (declared job inputs or deliverables) names the fact.
pub fn lists(list: Option<&Vec<String>>, raw: &str) -> bool {
    let key = canonical_key(raw);
    list.is_some_and(|list| list.iter().any(|item| canonical_key(item) == key))
}

/// The edges that parse and join two nodes the definition has; validation
/// refuses the others, so a valid definition loses none here.
pub fn resolved_edges(def: &WorkflowDefinition) -> Vec<ResolvedEdge> {
    def.edges
        .iter()
        .enumerate()
        .filter_map(|(row, raw)| {
            let edge = parse_edge(raw).ok()?;
            node(def, &edge.from_node)?;
            node(def, &edge.to_node)?;
            Some(ResolvedEdge {
                row,
                from: edge.from_node,
                to: edge.to_node,
                artifact: edge.from_spec.key(),
            })
        })
        .collect()
}

/// Whether an edge from `from` to `to` is one the definition declared as a loop.
pub fn is_loop_edge(def: &WorkflowDefinition, from: &str, to: &str) -> bool {
    def.loops
        .as_deref()
        .unwrap_or(&[])
        .iter()
        .any(|l| l.from == from && l.to == to)
}

/// Whether every edge bringing `key` into `node_id` is a declared loop edge
/// (and there is one): such an input is the loop's feedback, absent on the
/// first pass, so it does not hold the node back.
pub fn is_loop_input(def: &WorkflowDefinition, node_id: &str, key: &str) -> bool {
    let into: Vec<ResolvedEdge> = resolved_edges(def)
        .into_iter()
        .filter(|e| e.to == node_id && e.artifact == key)
        .collect();
    !into.is_empty() && into.iter().all(|e| is_loop_edge(def, &e.from, &e.to))
}

/// Successors over the edges that are not declared loops.
pub fn forward_successors(def: &WorkflowDefinition) -> BTreeMap<&str, BTreeSet<&str>> {
    let mut next: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for edge in resolved_edges(def) {
        if is_loop_edge(def, &edge.from, &edge.to) {
            continue;
        }
        if let (Some(from), Some(to)) = (node(def, &edge.from), node(def, &edge.to)) {
            next.entry(from.id.as_str())
                .or_default()
                .insert(to.id.as_str());
        }
    }
    next
}

/// The node ids in dependency order: a node after every node it depends on,
/// ties in the definition's own order. Nodes on an undeclared cycle (which
/// validation refuses) come last, in the definition's order.
pub fn dependency_order(def: &WorkflowDefinition) -> Vec<&str> {
    let next = forward_successors(def);
    let mut waiting: BTreeMap<&str, usize> = def.nodes.iter().map(|n| (n.id.as_str(), 0)).collect();
    for targets in next.values() {
        for to in targets {
            if let Some(count) = waiting.get_mut(to) {
                *count += 1;
            }
        }
    }
    let mut order: Vec<&str> = Vec::with_capacity(def.nodes.len());
    let mut placed: BTreeSet<&str> = BTreeSet::new();
    // Kahn's algorithm, always taking the earliest ready node in file order.
    let mut ready: BTreeSet<usize> = def
        .nodes
        .iter()
        .enumerate()
        .filter(|(_, n)| waiting.get(n.id.as_str()) == Some(&0))
        .map(|(at, _)| at)
        .collect();
    let position: BTreeMap<&str, usize> = def
        .nodes
        .iter()
        .enumerate()
        .map(|(at, n)| (n.id.as_str(), at))
        .collect();
    while let Some(at) = ready.pop_first() {
        let id = def.nodes[at].id.as_str();
        if !placed.insert(id) {
            continue;
        }
        order.push(id);
        for to in next.get(id).into_iter().flatten() {
            if let Some(count) = waiting.get_mut(to) {
                *count = count.saturating_sub(1);
                if *count == 0
                    && let Some(at) = position.get(to)
                {
                    ready.insert(*at);
                }
            }
        }
    }
    for node in &def.nodes {
        if !placed.contains(node.id.as_str()) {
            placed.insert(node.id.as_str());
            order.push(node.id.as_str());
        }
    }
    order
}

/// The nodes no forward edge leaves: where a job ends.
pub fn terminal_nodes(def: &WorkflowDefinition) -> Vec<&str> {
    let next = forward_successors(def);
    def.nodes
        .iter()
        .map(|n| n.id.as_str())
        .filter(|id| next.get(id).is_none_or(BTreeSet::is_empty))
        .collect()
}

/// The id rule for a workflow file name and a node (#1299).
pub fn is_workflow_id(id: &str) -> bool {
    is_name(id) && id.len() <= 64
}
