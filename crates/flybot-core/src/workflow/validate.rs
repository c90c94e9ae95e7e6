//! `validate`: every way a definition cannot run, each with its own sentence
//! (#1272). A definition that passes here runs through the same columns,
//! layout and input check as any other: nothing below knows a node id.

use super::artifact::{canonical_key, parse_spec};
use super::definition::{
    SYSTEM_ROLE, consumers_of, forward_successors, inputs_of, is_workflow_id, lists, node,
    outputs_of, parse_edge, producers_of,
};
use super::guard::GuardIs;
use flybot_protocol::workflow::{NodeColumn, WorkflowDefinition};
use std::collections::{BTreeMap, BTreeSet};

/// The task board's columns (#1363): a card sits in one by its status.
pub const BOARD_COLUMNS: [&str; 3] = ["not-started", "in-progress", "done"];

/// One reason a definition cannot run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Problem {
    BadWorkflowId {
        id: String,
    },
    NoNodes,
    BadNodeId {
        node: String,
    },
    DuplicateNode {
        node: String,
    },
    UnknownKind {
        node: Option<String>,
        sentence: String,
    },
    InputNotProduced {
        node: String,
        spec: String,
    },
    OutputNotConsumed {
        node: String,
        spec: String,
    },
    TwoProducers {
        spec: String,
        first: String,
        second: String,
    },
    UndeclaredCycle {
        nodes: Vec<String>,
    },
    NoRole {
        node: String,
    },
    RoleNotOnTeam {
        node: String,
        role: String,
    },
    MisalignedEdge {
        row: usize,
        edge: String,
        why: String,
    },
    UnknownGuard {
        node: String,
        fact: String,
        is: String,
    },
    GuardWithoutValue {
        node: String,
        fact: String,
    },
    UnknownColumn {
        node: String,
        column: String,
    },
    UnknownLoopNode {
        from: String,
        to: String,
    },
}

impl Problem {
    /// The sentence a person reads; each problem has its own.
    pub fn sentence(&self) -> String {
        match self {
            Problem::BadWorkflowId { id } => format!(
                "The workflow id {id:?} is not a file name this host writes; use lowercase letters, digits and hyphens."
            ),
            Problem::NoNodes => "The workflow has no nodes; add the first step.".to_owned(),
            Problem::BadNodeId { node } => {
                format!("The node id {node:?} is not lowercase letters, digits and hyphens.")
            }
            Problem::DuplicateNode { node } => {
                format!("Two nodes have the id {node}; a node id names one step.")
            }
            Problem::UnknownKind { sentence, .. } => sentence.clone(),
            Problem::InputNotProduced { node, spec } => format!(
                "The node {node} takes in {spec}, but no node hands it out and the workflow does not list it as an input."
            ),
            Problem::OutputNotConsumed { node, spec } => format!(
                "The node {node} hands out {spec}, but no node takes it in and it is not a deliverable."
            ),
            Problem::TwoProducers {
                spec,
                first,
                second,
            } => format!("Both {first} and {second} hand out {spec}; one fact has one producer."),
            Problem::UndeclaredCycle { nodes } => format!(
                "The nodes {} form a cycle that no loop declares; declare it in loops or remove an edge.",
                nodes.join(" → ")
            ),
            Problem::NoRole { node } => {
                format!("The node {node} has no role; every node names the role that holds it.")
            }
            Problem::RoleNotOnTeam { node, role } => {
                format!("The node {node} is held by the role {role}, which no Bot on the team has.")
            }
            Problem::MisalignedEdge { row, edge, why } => {
                format!(
                    "The edge {edge:?} (row {}) does not line up: {why}",
                    row + 1
                )
            }
            Problem::UnknownGuard { node, fact, is } => format!(
                "The node {node} guards {fact} with is: {is:?}, which is not one of present, fresh or equals."
            ),
            Problem::GuardWithoutValue { node, fact } => format!(
                "The node {node} guards {fact} with is: equals but names no value to compare."
            ),
            Problem::UnknownColumn { node, column } => format!(
                "The node {node} sits in the column {column}, which the board does not have ({}).",
                BOARD_COLUMNS.join(", ")
            ),
            Problem::UnknownLoopNode { from, to } => {
                format!("The loop from {from} to {to} names a node the workflow does not have.")
            }
        }
    }
}

/// Refuses each way `def` cannot run. `team_roles` is the roster's roles;
/// `None` (an empty roster) is no team to check.
pub fn validate(
    def: &WorkflowDefinition,
    team_roles: Option<&BTreeSet<String>>,
) -> Result<(), Vec<Problem>> {
    let mut problems = Vec::new();
    if !is_workflow_id(&def.id) {
        problems.push(Problem::BadWorkflowId { id: def.id.clone() });
    }
    if def.nodes.is_empty() {
        problems.push(Problem::NoNodes);
    }
    check_nodes(def, team_roles, &mut problems);
    check_specs(def, &mut problems);
    check_facts(def, &mut problems);
    check_edges(def, &mut problems);
    check_loops(def, &mut problems);
    if let Some(nodes) = undeclared_cycle(def) {
        problems.push(Problem::UndeclaredCycle { nodes });
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}

fn check_nodes(
    def: &WorkflowDefinition,
    team_roles: Option<&BTreeSet<String>>,
    problems: &mut Vec<Problem>,
) {
    let mut seen = BTreeSet::new();
    for n in &def.nodes {
        if !is_workflow_id(&n.id) {
            problems.push(Problem::BadNodeId { node: n.id.clone() });
        }
        if !seen.insert(n.id.as_str()) {
            problems.push(Problem::DuplicateNode { node: n.id.clone() });
        }
        let role = n.role.trim();
        if role.is_empty() {
            problems.push(Problem::NoRole { node: n.id.clone() });
        } else if let Some(roles) = team_roles
            && role != SYSTEM_ROLE
            && !roles.contains(role)
        {
            problems.push(Problem::RoleNotOnTeam {
                node: n.id.clone(),
                role: role.to_owned(),
            });
        }
        if let Some(NodeColumn::Named(column)) = &n.column
            && !BOARD_COLUMNS.contains(&column.as_str())
        {
            problems.push(Problem::UnknownColumn {
                node: n.id.clone(),
                column: column.clone(),
            });
        }
        for guard in n.guards.as_deref().unwrap_or(&[]) {
            match GuardIs::read(&guard.is) {
                GuardIs::Unknown(is) => problems.push(Problem::UnknownGuard {
                    node: n.id.clone(),
                    fact: guard.fact.clone(),
                    is,
                }),
                GuardIs::Equals if guard.value.is_none() => {
                    problems.push(Problem::GuardWithoutValue {
                        node: n.id.clone(),
                        fact: guard.fact.clone(),
                    })
                }
                GuardIs::Equals | GuardIs::Present | GuardIs::Fresh => {}
            }
        }
    }
}

/// Every spelled spec must parse: the vocabulary refuses unknown kinds.
fn check_specs(def: &WorkflowDefinition, problems: &mut Vec<Problem>) {
    let mut bad = |owner: Option<&str>, raw: &str| {
        if let Err(error) = parse_spec(raw) {
            problems.push(Problem::UnknownKind {
                node: owner.map(str::to_owned),
                sentence: error.sentence(raw.trim()),
            });
        }
    };
    for raw in def.inputs.iter().chain(def.deliverables.iter()).flatten() {
        bad(None, raw);
    }
    for n in &def.nodes {
        for raw in inputs_of(n).iter().chain(outputs_of(n)) {
            bad(Some(&n.id), raw);
        }
        for guard in n.guards.as_deref().unwrap_or(&[]) {
            bad(Some(&n.id), &guard.fact);
        }
    }
}

/// Producers and consumers line up, keyed on the parsed spec (#1291).
fn check_facts(def: &WorkflowDefinition, problems: &mut Vec<Problem>) {
    let mut producer: BTreeMap<String, &str> = BTreeMap::new();
    for n in &def.nodes {
        for raw in outputs_of(n) {
            let key = canonical_key(raw);
            match producer.get(&key) {
                Some(first) if *first != n.id => problems.push(Problem::TwoProducers {
                    spec: key.clone(),
                    first: (*first).to_owned(),
                    second: n.id.clone(),
                }),
                Some(_) => {}
                None => {
                    producer.insert(key.clone(), &n.id);
                }
            }
            if consumers_of(def, raw).is_empty() && !lists(def.deliverables.as_ref(), raw) {
                problems.push(Problem::OutputNotConsumed {
                    node: n.id.clone(),
                    spec: key,
                });
            }
        }
        for raw in inputs_of(n) {
            if producers_of(def, raw).is_empty() && !lists(def.inputs.as_ref(), raw) {
                problems.push(Problem::InputNotProduced {
                    node: n.id.clone(),
                    spec: canonical_key(raw),
                });
            }
        }
    }
}

fn check_edges(def: &WorkflowDefinition, problems: &mut Vec<Problem>) {
    for (row, raw) in def.edges.iter().enumerate() {
        let misaligned = |why: String| Problem::MisalignedEdge {
            row,
            edge: raw.clone(),
            why,
        };
        let edge = match parse_edge(raw) {
            Ok(edge) => edge,
            Err(why) => {
                problems.push(misaligned(why));
                continue;
            }
        };
        let why = if node(def, &edge.from_node).is_none() {
            Some(format!("there is no node {}.", edge.from_node))
        } else if node(def, &edge.to_node).is_none() {
            Some(format!("there is no node {}.", edge.to_node))
        } else if edge.from_spec != edge.to_spec {
            Some(format!(
                "it leaves as {} and arrives as {}; an edge carries one artifact.",
                edge.from_spec, edge.to_spec
            ))
        } else if !producers_of(def, &edge.from_spec.key()).contains(&edge.from_node.as_str()) {
            Some(format!(
                "{} does not hand out {}.",
                edge.from_node, edge.from_spec
            ))
        } else if !consumers_of(def, &edge.to_spec.key()).contains(&edge.to_node.as_str()) {
            Some(format!(
                "{} does not take in {}.",
                edge.to_node, edge.to_spec
            ))
        } else {
            None
        };
        if let Some(why) = why {
            problems.push(misaligned(why));
        }
    }
}

fn check_loops(def: &WorkflowDefinition, problems: &mut Vec<Problem>) {
    for l in def.loops.as_deref().unwrap_or(&[]) {
        if node(def, &l.from).is_none() || node(def, &l.to).is_none() {
            problems.push(Problem::UnknownLoopNode {
                from: l.from.clone(),
                to: l.to.clone(),
            });
        }
    }
}

/// One cycle over the edges no loop declares, in edge direction, or none.
pub fn undeclared_cycle(def: &WorkflowDefinition) -> Option<Vec<String>> {
    let next = forward_successors(def);
    // Peel nodes with no remaining predecessor; what stays has a cycle
    // behind it, and walking predecessors from there must repeat.
    let mut before: BTreeMap<&str, BTreeSet<&str>> = BTreeMap::new();
    for (from, targets) in &next {
        for to in targets {
            before.entry(to).or_default().insert(from);
        }
    }
    let mut left: BTreeSet<&str> = def.nodes.iter().map(|n| n.id.as_str()).collect();
    loop {
        let free: Vec<&str> = left
            .iter()
            .copied()
            .filter(|id| {
                before
                    .get(id)
                    .is_none_or(|p| p.iter().all(|p| !left.contains(p)))
            })
            .collect();
        if free.is_empty() {
            break;
        }
        for id in free {
            left.remove(id);
        }
    }
    let start = *left.first()?;
    let mut path = vec![start];
    let mut at = start;
    loop {
        let previous = before
            .get(at)
            .and_then(|p| p.iter().copied().find(|p| left.contains(p)))?;
        if let Some(from) = path.iter().position(|seen| *seen == previous) {
            let mut cycle: Vec<String> =
                path[from..].iter().rev().map(|s| (*s).to_owned()).collect();
            // Start where the file does, so the sentence reads in its order.
            let position = |id: &String| def.nodes.iter().position(|n| &n.id == id);
            let first = (0..cycle.len())
                .min_by_key(|at| position(&cycle[*at]))
                .unwrap_or(0);
            cycle.rotate_left(first);
            cycle.push(cycle[0].clone());
            return Some(cycle);
        }
        path.push(previous);
        at = previous;
    }
}
