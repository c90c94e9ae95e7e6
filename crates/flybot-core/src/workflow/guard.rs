//! A node's guards read against the facts: one row each, holds / refuse /
//! unreadable (#1272). An `is` the engine does not know refuses with its own
//! sentence instead of being read as present (#1291), and a refusal is the
//! guard's own wording when it carries one.

use super::artifact::{Fact, Facts, Freshness, canonical_key, freshness};
use flybot_protocol::workflow::{WorkflowGuard, WorkflowNode};
use serde::Serialize;
use serde_json::Value;

/// A guard's `is`, read from what the file says and kept as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GuardIs {
    Present,
    Fresh,
    Equals,
    Unknown(String),
}

impl GuardIs {
    pub fn read(raw: &str) -> GuardIs {
        match raw {
            "present" => GuardIs::Present,
            "fresh" => GuardIs::Fresh,
            "equals" => GuardIs::Equals,
            other => GuardIs::Unknown(other.to_owned()),
        }
    }
}

/// How one guard stands.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "state", rename_all = "lowercase")]
pub enum GuardState {
    Holds,
    Refuse { sentence: String },
    Unreadable { why: String },
}

/// Fills `{name}` placeholders in a template; unknown ones stay as written.
pub fn fill(template: &str, values: &[(&str, &str)]) -> String {
    let mut out = template.to_owned();
    for (name, value) in values {
        out = out.replace(&format!("{{{name}}}"), value);
    }
    out
}

/// A JSON value as a sentence shows it: a string bare, anything else as JSON.
pub fn shown(value: &Value) -> String {
    match value {
        Value::String(text) => text.clone(),
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::Array(_) | Value::Object(_) => {
            value.to_string()
        }
    }
}

/// The guard's wording if it has one, else the engine's default.
fn refuse(
    node: &WorkflowNode,
    guard: &WorkflowGuard,
    default: &str,
    values: &[(&str, &str)],
) -> GuardState {
    let spec = canonical_key(&guard.fact);
    let mut all: Vec<(&str, &str)> = vec![("node", &node.id), ("spec", &spec)];
    all.extend_from_slice(values);
    let template = guard.refusal.as_deref().unwrap_or(default);
    GuardState::Refuse {
        sentence: fill(template, &all),
    }
}

/// One guard of `node` against `facts`.
pub fn guard_state(node: &WorkflowNode, guard: &WorkflowGuard, facts: &Facts) -> GuardState {
    let is = GuardIs::read(&guard.is);
    if let GuardIs::Unknown(raw) = &is {
        return unknown_is(node, guard, raw);
    }
    let fact = facts.get(&guard.fact);
    let state = freshness(fact);
    match state {
        Freshness::Unreadable { why } => return GuardState::Unreadable { why },
        Freshness::Missing => {
            // The guard's own wording is for the condition it checks; a
            // fact that is not there is said the way an input says it.
            return GuardState::Refuse {
                sentence: format!(
                    "{} cannot start: {} is not there yet.",
                    node.id,
                    canonical_key(&guard.fact)
                ),
            };
        }
        Freshness::Stale { .. } | Freshness::Current { .. } => {}
    }
    match is {
        GuardIs::Present => GuardState::Holds,
        GuardIs::Fresh => match state {
            Freshness::Stale { read, current } => refuse(
                node,
                guard,
                "{node} cannot start: it read {spec} at {read}, and the source now holds {current}.",
                &[("read", &read), ("current", &current)],
            ),
            Freshness::Current { .. } | Freshness::Missing | Freshness::Unreadable { .. } => {
                GuardState::Holds
            }
        },
        GuardIs::Equals => {
            let Some(Fact::Read { artifact, .. }) = fact else {
                return GuardState::Holds;
            };
            let actual = match &guard.field {
                Some(field) => match artifact.value.get(field) {
                    Some(value) => value,
                    None => {
                        return GuardState::Unreadable {
                            why: format!("{} has no field {field}", artifact.spec),
                        };
                    }
                },
                None => &artifact.value,
            };
            let expected = guard.value.clone().unwrap_or(Value::Null);
            if *actual == expected {
                GuardState::Holds
            } else {
                let field = guard.field.clone().unwrap_or_default();
                refuse(
                    node,
                    guard,
                    "{node} cannot start: {spec} {field} is {value}, not {expected}.",
                    &[
                        ("field", &field),
                        ("value", &shown(actual)),
                        ("expected", &shown(&expected)),
                    ],
                )
            }
        }
        GuardIs::Unknown(raw) => unknown_is(node, guard, &raw),
    }
}

/// Never read as present: a check that can never refuse looks like one (#1291).
fn unknown_is(node: &WorkflowNode, guard: &WorkflowGuard, raw: &str) -> GuardState {
    GuardState::Refuse {
        sentence: format!(
            "{} cannot start: its guard on {} says is: {raw:?}, which no reader checks.",
            node.id,
            canonical_key(&guard.fact)
        ),
    }
}

/// One row per guard of `node`, in the definition's order.
pub fn guard_rows(node: &WorkflowNode, facts: &Facts) -> Vec<GuardState> {
    node.guards
        .as_deref()
        .unwrap_or(&[])
        .iter()
        .map(|guard| guard_state(node, guard, facts))
        .collect()
}
