//! Whether a node's card may start (#1272, #1298): `input_states` reads each
//! declared input by its parsed key, `render_refusal` says which one is
//! missing or stale with both revisions in the node's own wording, guards add
//! their rows, and `enter_node` is the one answer every caller reads. The
//! editor's guard preview is built from the same rows, so the two cannot
//! disagree.

use super::artifact::{Fact, Facts, Freshness, canonical_key, freshness};
use super::definition::{inputs_of, node};
use super::graph::Graph;
use super::guard::{GuardIs, GuardState, fill, guard_rows, shown};
use flybot_protocol::workflow::{WorkflowDefinition, WorkflowNode};
use serde::Serialize;

/// One declared input and how it stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputState {
    /// The canonical key of the input.
    pub spec: String,
    pub freshness: Freshness,
    /// Fed only by a declared loop: absent on the first pass, so missing
    /// does not hold the node back.
    pub loop_feedback: bool,
}

/// Why a node may not start: one sentence per blocking input or guard.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnterRefusal {
    pub node: String,
    pub reasons: Vec<String>,
}

impl EnterRefusal {
    /// The refusal as one text, the reasons joined by a space.
    pub fn sentence(&self) -> String {
        self.reasons.join(" ")
    }
}

/// Each declared input of `node` against `facts`, in the node's order.
pub fn input_states(
    def: &WorkflowDefinition,
    node: &WorkflowNode,
    facts: &Facts,
) -> Vec<InputState> {
    let graph = Graph::new(def);
    match graph.index(&node.id) {
        Some(at) => input_states_in(&graph, at, facts),
        None => Vec::new(),
    }
}

/// `input_states` on a definition already indexed.
pub fn input_states_in(graph: &Graph<'_>, at: usize, facts: &Facts) -> Vec<InputState> {
    inputs_of(graph.node(at))
        .iter()
        .map(|raw| {
            let spec = canonical_key(raw);
            InputState {
                freshness: freshness(facts.get(&spec)),
                loop_feedback: graph.is_loop_input(at, &spec),
                spec,
            }
        })
        .collect()
}

/// The sentence for one input that blocks, or `None` when it does not: the
/// node's own wording when it has one, naming both revisions of a stale one.
pub fn render_refusal(node: &WorkflowNode, input: &InputState) -> Option<String> {
    let (default, read, current, why) = match &input.freshness {
        Freshness::Current { .. } => return None,
        Freshness::Missing if input.loop_feedback => return None,
        Freshness::Missing => ("{node} cannot start: {spec} is not there yet.", "", "", ""),
        Freshness::Stale { read, current } => (
            "{node} cannot start: it read {spec} at {read}, and the source now holds {current}.",
            read.as_str(),
            current.as_str(),
            "",
        ),
        Freshness::Unreadable { why } => (
            "{node} cannot start: {spec} could not be read ({why}).",
            "",
            "",
            why.as_str(),
        ),
    };
    let template = node.refusal.as_deref().unwrap_or(default);
    Some(fill(
        template,
        &[
            ("node", &node.id),
            ("spec", &input.spec),
            ("read", read),
            ("current", current),
            ("why", why),
        ],
    ))
}

/// Whether `node_id` may start on `facts`: every input present and current,
/// every guard holding. A fact nobody could read refuses, never passes.
pub fn enter_node(
    def: &WorkflowDefinition,
    node_id: &str,
    facts: &Facts,
) -> Result<(), EnterRefusal> {
    let graph = Graph::new(def);
    let Some(at) = graph.index(node_id) else {
        return Err(EnterRefusal {
            node: node_id.to_owned(),
            reasons: vec![format!("The workflow {} has no node {node_id}.", def.id)],
        });
    };
    enter_node_in(&graph, at, facts)
}

/// `enter_node` on a definition already indexed (the planner's loop).
pub fn enter_node_in(graph: &Graph<'_>, at: usize, facts: &Facts) -> Result<(), EnterRefusal> {
    let n = graph.node(at);
    let guards = n.guards.as_deref().unwrap_or(&[]);
    // A stale input a `fresh` guard watches is said in that guard's words.
    let fresh_guarded = |spec: &str| {
        guards
            .iter()
            .any(|g| GuardIs::read(&g.is) == GuardIs::Fresh && canonical_key(&g.fact) == spec)
    };
    let mut reasons: Vec<String> = input_states_in(graph, at, facts)
        .iter()
        .filter(|input| {
            !(matches!(input.freshness, Freshness::Stale { .. }) && fresh_guarded(&input.spec))
        })
        .filter_map(|input| render_refusal(n, input))
        .collect();
    for (guard, row) in guards.iter().zip(guard_rows(n, facts)) {
        let sentence = match row {
            GuardState::Holds => continue,
            GuardState::Refuse { sentence } => sentence,
            GuardState::Unreadable { why } => format!(
                "{} cannot start: {} could not be read ({why}).",
                n.id,
                canonical_key(&guard.fact)
            ),
        };
        // Two guards on one missing fact say it once.
        if !reasons.contains(&sentence) {
            reasons.push(sentence);
        }
    }
    if reasons.is_empty() {
        Ok(())
    } else {
        Err(EnterRefusal {
            node: n.id.clone(),
            reasons,
        })
    }
}

/// Who holds a node: its role, which is the card's assignee, and a name
/// when the node reads one from a fact (the gate's Reviewer, from the
/// verdict's Written-by).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Holder {
    pub role: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
}

pub fn holder_of(node: &WorkflowNode, facts: &Facts) -> Holder {
    let name = node
        .holder
        .as_ref()
        .and_then(|source| match facts.get(&source.fact) {
            Some(Fact::Read { artifact, .. }) => artifact
                .value
                .get(&source.field)
                .map(shown)
                .filter(|name| !name.trim().is_empty()),
            Some(Fact::Unreadable { .. }) | None => None,
        });
    Holder {
        role: node.role.clone(),
        name,
    }
}

/// One row of the editor's guard preview.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PreviewRow {
    pub fact: String,
    pub is: String,
    #[serde(flatten)]
    pub state: GuardState,
}

/// The guard preview of `node_id` (#1272 step 3, acceptance 5). `answer` is
/// what the reader got, or why it got nothing; with nothing, every row says
/// it could not read its fact, with the reason, and no row passes.
pub fn preview_node(
    def: &WorkflowDefinition,
    node_id: &str,
    answer: Result<&Facts, &str>,
) -> Vec<PreviewRow> {
    let Some(n) = node(def, node_id) else {
        return Vec::new();
    };
    let guards = n.guards.as_deref().unwrap_or(&[]);
    let states: Vec<GuardState> = match answer {
        Ok(facts) => guard_rows(n, facts),
        Err(why) => guards
            .iter()
            .map(|_| GuardState::Unreadable {
                why: why.to_owned(),
            })
            .collect(),
    };
    guards
        .iter()
        .zip(states)
        .map(|(guard, state)| PreviewRow {
            fact: canonical_key(&guard.fact),
            is: guard.is.clone(),
            state,
        })
        .collect()
}
