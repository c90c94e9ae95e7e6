//! Reading a definition's structure: its edges parsed, who produces and who
//! consumes a fact (keyed on the parsed spec, #1291), declared loops and the
//! dependency order. No node id is special here or anywhere in the engine.

use super::artifact::{ArtifactSpec, canonical_key, is_name, parse_spec};
use super::graph::Graph;
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
    Graph::new(def).edges
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
    let graph = Graph::new(def);
    graph
        .index(node_id)
        .is_some_and(|at| graph.is_loop_input(at, key))
}

/// Successors over the edges that are not declared loops.
pub fn forward_successors(def: &WorkflowDefinition) -> BTreeMap<&str, BTreeSet<&str>> {
    let graph = Graph::new(def);
    let mut next: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for (from, targets) in graph.next.iter().enumerate() {
        if targets.is_empty() {
            continue;
        }
        next.insert(
            def.nodes[from].id.as_str(),
            targets
                .iter()
                .map(|to| def.nodes[*to].id.as_str())
                .collect(),
        );
    }
    next
}

/// The node ids in dependency order: a node after every node it depends on,
/// ties in the definition's own order. Nodes on an undeclared cycle (which
/// validation refuses) come last, in the definition's order.
pub fn dependency_order(def: &WorkflowDefinition) -> Vec<&str> {
    Graph::new(def)
        .order
        .iter()
        .map(|at| def.nodes[*at].id.as_str())
        .collect()
}

/// The nodes no forward edge leaves: where a job ends.
pub fn terminal_nodes(def: &WorkflowDefinition) -> Vec<&str> {
    Graph::new(def)
        .terminals()
        .map(|at| def.nodes[at].id.as_str())
        .collect()
}

/// The id rule for a workflow file name and a node (#1299).
pub fn is_workflow_id(id: &str) -> bool {
    is_name(id) && id.len() <= 64
}
