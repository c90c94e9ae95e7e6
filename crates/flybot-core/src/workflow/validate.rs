//! `validate`: every way a definition cannot run, each with its own sentence
//! (#1272). A definition that passes here runs through the same columns,
//! layout and input check as any other: nothing below knows a node id.

use super::artifact::{canonical_key, parse_spec};
use super::definition::{
    SYSTEM_ROLE, inputs_of, is_workflow_id, lists, node, outputs_of, parse_edge,
};
use super::graph::Graph;
use super::guard::GuardIs;
use flybot_protocol::workflow::{NodeColumn, WorkflowDefinition};
use std::collections::BTreeSet;

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
    let graph = Graph::new(def);
    check_nodes(def, team_roles, &mut problems);
    check_specs(def, &mut problems);
    check_facts(&graph, &mut problems);
    check_edges(&graph, &mut problems);
    check_loops(def, &mut problems);
    if let Some(nodes) = cycle_in(&graph) {
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
fn check_facts(graph: &Graph<'_>, problems: &mut Vec<Problem>) {
    let def = graph.def;
    for (at, n) in def.nodes.iter().enumerate() {
        for raw in outputs_of(n) {
            let key = canonical_key(raw);
            if let Some(&first) = graph.producers(&key).first()
                && first != at
            {
                problems.push(Problem::TwoProducers {
                    spec: key.clone(),
                    first: def.nodes[first].id.clone(),
                    second: n.id.clone(),
                });
            }
            if graph.consumers(&key).is_empty() && !lists(def.deliverables.as_ref(), raw) {
                problems.push(Problem::OutputNotConsumed {
                    node: n.id.clone(),
                    spec: key,
                });
            }
        }
        for raw in inputs_of(n) {
            let key = canonical_key(raw);
            if graph.producers(&key).is_empty() && !lists(def.inputs.as_ref(), raw) {
                problems.push(Problem::InputNotProduced {
                    node: n.id.clone(),
                    spec: key,
                });
            }
        }
    }
}

fn check_edges(graph: &Graph<'_>, problems: &mut Vec<Problem>) {
    let def = graph.def;
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
        let from = graph.index(&edge.from_node);
        let to = graph.index(&edge.to_node);
        let why = match (from, to) {
            (None, _) => Some(format!("there is no node {}.", edge.from_node)),
            (_, None) => Some(format!("there is no node {}.", edge.to_node)),
            (Some(_), Some(_)) if edge.from_spec != edge.to_spec => Some(format!(
                "it leaves as {} and arrives as {}; an edge carries one artifact.",
                edge.from_spec, edge.to_spec
            )),
            (Some(from), Some(_)) if !graph.producers(&edge.from_spec.key()).contains(&from) => {
                Some(format!(
                    "{} does not hand out {}.",
                    edge.from_node, edge.from_spec
                ))
            }
            (Some(_), Some(to)) if !graph.consumers(&edge.to_spec.key()).contains(&to) => Some(
                format!("{} does not take in {}.", edge.to_node, edge.to_spec),
            ),
            (Some(_), Some(_)) => None,
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
    cycle_in(&Graph::new(def))
}

fn cycle_in(graph: &Graph<'_>) -> Option<Vec<String>> {
    let def = graph.def;
    let count = def.nodes.len();
    // Peel nodes with no remaining predecessor; what stays has a cycle
    // behind it, and walking predecessors from there must repeat.
    let mut before: Vec<Vec<usize>> = vec![Vec::new(); count];
    let mut waiting = vec![0usize; count];
    for (from, targets) in graph.next.iter().enumerate() {
        for to in targets {
            before[*to].push(from);
            waiting[*to] += 1;
        }
    }
    let mut left = vec![true; count];
    let mut free: Vec<usize> = (0..count).filter(|at| waiting[*at] == 0).collect();
    while let Some(at) = free.pop() {
        left[at] = false;
        for to in &graph.next[at] {
            waiting[*to] -= 1;
            if waiting[*to] == 0 {
                free.push(*to);
            }
        }
    }
    let start = (0..count).find(|at| left[*at])?;
    let mut path = vec![start];
    let mut at = start;
    loop {
        let previous = before[at].iter().copied().find(|p| left[*p])?;
        if let Some(from) = path.iter().position(|seen| *seen == previous) {
            let mut cycle: Vec<usize> = path[from..].iter().rev().copied().collect();
            // Start where the file does, so the sentence reads in its order.
            let first = (0..cycle.len()).min_by_key(|i| cycle[*i]).unwrap_or(0);
            cycle.rotate_left(first);
            cycle.push(cycle[0]);
            return Some(cycle.into_iter().map(|i| def.nodes[i].id.clone()).collect());
        }
        path.push(previous);
        at = previous;
    }
}
