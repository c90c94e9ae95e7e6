//! The running layer's pure half (#1316, #1272 step 4): `plan_job` answers
//! which node cards a job may open now and decides nothing itself; every
//! decision is `enter_node`'s, its sentence unchanged. The cards a job
//! already has are the record that a node opened, so a replayed tick or a
//! restarted host opens nothing twice. `job_done` and `completions` read
//! current outputs only, never a card that moved.

use super::artifact::{Artifact, Fact, Facts, canonical_key, freshness, parse_spec};
use super::definition::{node, outputs_of, terminal_nodes};
use super::enter::{Holder, enter_node_in, holder_of};
use super::graph::Graph;
use super::guard::{GuardIs, GuardState, guard_state};
use flybot_protocol::workflow::{WorkflowDefinition, WorkflowGuard, WorkflowNode};
use serde::Serialize;
use serde_json::{Value, json};
use std::collections::BTreeSet;

/// A card on the board as the planner reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PlanCard {
    pub id: String,
    /// The job card it hangs under.
    pub parent_id: Option<String>,
    pub workflow: Option<String>,
    pub node: Option<String>,
    /// The card's work was accepted.
    pub done: bool,
}

/// What the planner is asked.
#[derive(Debug, Clone, Copy)]
pub struct PlanRequest<'a> {
    pub definition: &'a WorkflowDefinition,
    /// The job card's id.
    pub job_id: &'a str,
    /// The board, or any part of it holding this job's cards.
    pub cards: &'a [PlanCard],
    pub facts: &'a Facts,
    /// Who holds the job's pull request, as read; blank is no hold (#1337).
    pub hold: Option<&'a str>,
}

/// A card to open: what the board places (parent, workflow, node) and what
/// the pull queue reads (role, queue role, no assignee): the hand-off is the
/// queue's claim (#1247), never an @.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OpenCard {
    pub parent_id: String,
    pub workflow: String,
    pub node: String,
    pub role: String,
    pub queue_role: String,
    pub assignee: Option<String>,
    pub title: String,
}

/// A node that may not open now, in `enter_node`'s words or the
/// definition's no-hold sentence; `refusal: None` with a holder when the
/// definition guards no held pull request (this layer writes no sentence).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RefusedNode {
    pub node: String,
    pub refusal: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub holder: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Plan {
    pub open: Vec<OpenCard>,
    pub refused: Vec<RefusedNode>,
}

/// The cards under this job: a card parented to another job is not its.
pub fn cards_of_job<'a>(cards: &'a [PlanCard], job_id: &str, workflow: &str) -> Vec<&'a PlanCard> {
    cards
        .iter()
        .filter(|c| c.parent_id.as_deref() == Some(job_id))
        .filter(|c| c.workflow.as_deref().is_none_or(|w| w == workflow))
        .filter(|c| c.node.is_some())
        .collect()
}

/// A hold names its holder or is no hold at all (#1337).
pub fn named_hold(hold: Option<&str>) -> Option<&str> {
    hold.map(str::trim).filter(|h| !h.is_empty())
}

/// The guard that refuses a held pull request: `equals` on a `hold` field
/// expecting `"none"`.
fn no_hold_guard(def: &WorkflowDefinition) -> Option<(&WorkflowNode, &WorkflowGuard)> {
    def.nodes.iter().find_map(|n| {
        n.guards.as_deref().unwrap_or(&[]).iter().find_map(|g| {
            let is_no_hold = GuardIs::read(&g.is) == GuardIs::Equals
                && g.field.as_deref() == Some("hold")
                && g.value.as_ref() == Some(&Value::from("none"));
            is_no_hold.then_some((n, g))
        })
    })
}

/// The definition's own no-hold sentence, rendered with the fact it expects
/// (`hold` = the holder), or `None` when it guards no held pull request.
pub fn hold_refusal(def: &WorkflowDefinition, holder: &str) -> Option<String> {
    let (n, guard) = no_hold_guard(def)?;
    let spec = parse_spec(&guard.fact).ok()?;
    let mut facts = Facts::new();
    facts.insert(Fact::Read {
        artifact: Artifact {
            spec,
            revision: "held".to_owned(),
            value: json!({"hold": holder}),
        },
        current: None,
    });
    match guard_state(n, guard, &facts) {
        GuardState::Refuse { sentence } => Some(sentence),
        GuardState::Holds | GuardState::Unreadable { .. } => None,
    }
}

/// Which node cards the job may open now.
pub fn plan_job(request: PlanRequest<'_>) -> Plan {
    let def = request.definition;
    let opened: BTreeSet<&str> = cards_of_job(request.cards, request.job_id, &def.id)
        .into_iter()
        .filter_map(|c| c.node.as_deref())
        .collect();
    let hold = named_hold(request.hold);
    let held_sentence = hold.map(|holder| hold_refusal(def, holder));
    let graph = Graph::new(def);
    let mut plan = Plan::default();
    for &at in &graph.order {
        let n = graph.node(at);
        if opened.contains(n.id.as_str()) {
            continue;
        }
        if let (Some(holder), Some(sentence)) = (hold, &held_sentence) {
            plan.refused.push(RefusedNode {
                node: n.id.clone(),
                refusal: sentence.clone(),
                holder: sentence.is_none().then(|| holder.to_owned()),
            });
            continue;
        }
        match enter_node_in(&graph, at, request.facts) {
            Ok(()) => plan.open.push(open_card(def, n, request)),
            Err(refusal) => plan.refused.push(RefusedNode {
                node: n.id.clone(),
                refusal: Some(refusal.sentence()),
                holder: None,
            }),
        }
    }
    plan
}

fn open_card(def: &WorkflowDefinition, n: &WorkflowNode, request: PlanRequest<'_>) -> OpenCard {
    let Holder { role, .. } = holder_of(n, request.facts);
    OpenCard {
        parent_id: request.job_id.to_owned(),
        workflow: def.id.clone(),
        node: n.id.clone(),
        queue_role: role.clone(),
        role,
        assignee: None,
        title: format!("{}: {}", def.name, n.id),
    }
}

fn outputs_current(n: &WorkflowNode, facts: &Facts) -> bool {
    outputs_of(n)
        .iter()
        .all(|raw| freshness(facts.get(raw)).is_current())
}

/// A job is done when its terminal nodes' outputs are present and current,
/// never because a card moved or a merge was claimed.
pub fn job_done(def: &WorkflowDefinition, facts: &Facts) -> bool {
    let terminals = terminal_nodes(def);
    let with_outputs: Vec<&WorkflowNode> = terminals
        .iter()
        .filter_map(|id| node(def, id))
        .filter(|n| !outputs_of(n).is_empty())
        .collect();
    !with_outputs.is_empty() && with_outputs.iter().all(|n| outputs_current(n, facts))
}

/// One finished node card: its declared outputs at their revisions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Completion {
    pub card_id: String,
    pub node: String,
    pub outputs: Vec<(String, String)>,
}

/// The done cards of this job whose declared outputs are current, minus
/// those already in `history`: append-only, an entry never returned twice.
pub fn completions(
    def: &WorkflowDefinition,
    job_id: &str,
    cards: &[PlanCard],
    facts: &Facts,
    history: &[Completion],
) -> Vec<Completion> {
    let seen: BTreeSet<&str> = history.iter().map(|c| c.card_id.as_str()).collect();
    cards_of_job(cards, job_id, &def.id)
        .into_iter()
        .filter(|card| card.done && !seen.contains(card.id.as_str()))
        .filter_map(|card| {
            let n = node(def, card.node.as_deref()?)?;
            if !outputs_current(n, facts) {
                return None;
            }
            let outputs = outputs_of(n)
                .iter()
                .filter_map(|raw| match facts.get(raw)? {
                    Fact::Read { artifact, .. } => {
                        Some((canonical_key(raw), artifact.revision.clone()))
                    }
                    Fact::Unreadable { .. } => None,
                })
                .collect();
            Some(Completion {
                card_id: card.id.clone(),
                node: n.id.clone(),
                outputs,
            })
        })
        .collect()
}
