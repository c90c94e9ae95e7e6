//! What a request's `inputDigest` binds (the contract's field table): the
//! exact canonical task input (requirement, criteria, excerpts) together
//! with the recipient, the task scope and the budget. The requester
//! computes it; the journal recomputes it at enrollment from the
//! authenticated recipient, the bound task and its own limits, so an input
//! digested for another Bot, another task or a larger budget starts no
//! work, and every follow-up carries the enrolled digest.

use crate::budgets::BudgetLimits;
use crate::digest::digest_of;
use serde::Serialize;

use super::Payload;

/// The scope an input is digested with.
#[derive(Debug, Clone, Copy, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InputScope<'a> {
    /// The Bot that is to do the work.
    pub recipient_bot: &'a str,
    pub task_id: &'a str,
    /// The limits the work runs under.
    pub budget: &'a BudgetLimits,
}

#[derive(Serialize)]
struct Bound<'a, I: Serialize> {
    input: I,
    scope: &'a InputScope<'a>,
}

/// The SHA-256 hex (RFC 8785) of a request payload's task input bound to
/// `scope`; `None` when the payload has no requirement.
pub fn input_digest(payload: &Payload, scope: &InputScope<'_>) -> Option<String> {
    let input = payload.task_input()?;
    digest_of(&Bound { input, scope }).ok()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use crate::budgets::PROPOSED;

    #[test]
    fn input_digest_binds_the_recipient_the_task_and_the_budget() {
        let payload = Payload {
            requirement: Some("Fix slug.mjs.".into()),
            criteria: vec!["node --test passes".into()],
            ..Payload::default()
        };
        let scope = InputScope {
            recipient_bot: "bot-b",
            task_id: "task-1",
            budget: &PROPOSED,
        };
        let digest = input_digest(&payload, &scope).unwrap();
        assert!(crate::is_digest(&digest));
        let larger = BudgetLimits {
            turns_per_task: 40,
            ..PROPOSED
        };
        for other in [
            InputScope {
                recipient_bot: "bot-c",
                ..scope
            },
            InputScope {
                task_id: "task-2",
                ..scope
            },
            InputScope {
                budget: &larger,
                ..scope
            },
        ] {
            assert_ne!(input_digest(&payload, &other).unwrap(), digest, "{other:?}");
        }
        let mut edited = payload.clone();
        edited.criteria.push("and push to the remote".into());
        assert_ne!(input_digest(&edited, &scope).unwrap(), digest);
        assert_eq!(input_digest(&Payload::default(), &scope), None);
    }
}
