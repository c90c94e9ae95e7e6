//! The typed task contract (#1720): `taskClass`, `reworkOf`, `handoff`,
//! `evidence` and `lease`, checked by one function that reads every field
//! before it assigns any, so a refusal (`bot/invalid`, or `bot/unknown-role`
//! with the role quoted back) leaves the card exactly as it was.

use super::rework::REASON_MAX;
use super::roles::role_known;
use flybot_protocol::state::{TaskStatus, TeamState};
use flybot_protocol::task::{Evidence, Handoff, Lease, TaskClass, TaskFields};
use flybot_protocol::task_requests::{ContractInput, EvidenceInput, HandoffInput};
use flybot_protocol::{ApiError, ErrorCode};

/// A card keeps at most eight evidence pointers (#1720).
pub const EVIDENCE_MAX: usize = 8;

/// The contract fields a write will set, every one already checked.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Checked {
    task_class: Option<TaskClass>,
    rework_of: Option<String>,
    handoff: Option<Handoff>,
    evidence: Option<Vec<Evidence>>,
    lease: Option<Lease>,
}

impl Checked {
    /// Assigns the checked fields; nothing here can fail.
    pub fn assign(self, fields: &mut TaskFields) {
        if let Some(class) = self.task_class {
            fields.task_class = Some(class);
        }
        if let Some(of) = self.rework_of {
            fields.rework_of = Some(of);
        }
        if let Some(handoff) = self.handoff {
            fields.handoff = Some(handoff);
        }
        if let Some(evidence) = self.evidence {
            fields.evidence = evidence;
        }
        if let Some(lease) = self.lease {
            fields.lease = Some(lease);
        }
    }
}

fn unknown_role(role: &str) -> ApiError {
    ApiError::new(
        ErrorCode::UnknownRole,
        format!("No Bot carries the role \"{role}\"; name a role a Bot carries, or requester."),
    )
    .with("role", role)
}

/// Checks `input` for the card `task_id` (in `status`, `None` when it is being
/// created) and answers what to assign. Reads every field first.
pub fn write_contract(
    state: &TeamState,
    task_id: &str,
    status: Option<TaskStatus>,
    input: &ContractInput,
    now: u64,
) -> Result<Checked, ApiError> {
    let rework_of = checked_rework_of(state, task_id, input.rework_of.as_ref())?;
    let handoff = input
        .handoff
        .as_ref()
        .map(|h| checked_handoff(state, h, now))
        .transpose()?;
    let evidence = input
        .evidence
        .as_deref()
        .map(|list| checked_evidence(list, now))
        .transpose()?;
    let lease = input
        .lease
        .as_ref()
        .map(|lease| checked_lease(state, status, lease))
        .transpose()?;
    Ok(Checked {
        task_class: input.task_class,
        rework_of,
        handoff,
        evidence,
        lease,
    })
}

/// `reworkOf` names another card that exists.
fn checked_rework_of(
    state: &TeamState,
    task_id: &str,
    rework_of: Option<&String>,
) -> Result<Option<String>, ApiError> {
    match rework_of {
        Some(of) if of == task_id => Err(ApiError::invalid(
            "reworkOf",
            "A card cannot rework itself.",
        )),
        Some(of) if !state.tasks.contains_key(of) => Err(ApiError::invalid(
            "reworkOf",
            format!("reworkOf names no card: {of}."),
        )),
        other => Ok(other.cloned()),
    }
}

/// A handoff names two roles a Bot carries (or `requester`), each 1 to 64
/// characters, and a reason of at most `REASON_MAX`.
fn checked_handoff(state: &TeamState, h: &HandoffInput, now: u64) -> Result<Handoff, ApiError> {
    for (field, role) in [("handoff.from", &h.from), ("handoff.to", &h.to)] {
        let role = role.trim();
        if role.is_empty() || role.chars().count() > 64 {
            return Err(ApiError::invalid(
                field,
                "A handoff names both roles, each 1 to 64 characters.",
            ));
        }
        if !role_known(state, role) {
            return Err(unknown_role(role));
        }
    }
    if h.reason.chars().count() > REASON_MAX {
        return Err(ApiError::invalid(
            "handoff.reason",
            format!("A handoff reason is at most {REASON_MAX} characters."),
        ));
    }
    Ok(Handoff {
        from: h.from.trim().to_owned(),
        to: h.to.trim().to_owned(),
        at: h.at.unwrap_or(now),
        reason: h.reason.trim().to_owned(),
    })
}

/// At most `EVIDENCE_MAX` pointers, each checked in turn.
fn checked_evidence(list: &[EvidenceInput], now: u64) -> Result<Vec<Evidence>, ApiError> {
    if list.len() > EVIDENCE_MAX {
        return Err(ApiError::invalid(
            "evidence",
            format!("A card keeps at most {EVIDENCE_MAX} evidence pointers."),
        ));
    }
    list.iter()
        .enumerate()
        .map(|(i, e)| checked_pointer(i, e, now))
        .collect()
}

/// One evidence pointer: a 7–64 hex sha, a pull request number or a one-line
/// check, at least one of them.
fn checked_pointer(i: usize, e: &EvidenceInput, now: u64) -> Result<Evidence, ApiError> {
    let sha_ok = e
        .sha
        .as_deref()
        .is_none_or(|s| (7..=64).contains(&s.len()) && s.chars().all(|c| c.is_ascii_hexdigit()));
    let check_ok = e
        .check
        .as_deref()
        .is_none_or(|c| !c.trim().is_empty() && c.chars().count() <= 200 && !c.contains('\n'));
    let any = e.sha.is_some() || e.pr.is_some() || e.check.is_some();
    if !(sha_ok && check_ok && any && e.pr != Some(0)) {
        return Err(ApiError::invalid(
            &format!("evidence[{i}]"),
            "Evidence is {sha?, pr?, check?, at?}: a 7–64 hex sha, a pull request number, or a one-line check of at most 200 characters.",
        ));
    }
    Ok(Evidence {
        sha: e.sha.clone(),
        pr: e.pr,
        check: e.check.as_ref().map(|c| c.trim().to_owned()),
        at: e.at.unwrap_or(now),
    })
}

/// A lease is held by a Bot, expires after it is taken, and sits on a claimed
/// card only.
fn checked_lease(
    state: &TeamState,
    status: Option<TaskStatus>,
    lease: &Lease,
) -> Result<Lease, ApiError> {
    if !state.bots.contains_key(&lease.holder) {
        return Err(ApiError::invalid(
            "lease.holder",
            format!(
                "A lease holder is a Bot; no Bot has the id {}.",
                lease.holder
            ),
        ));
    }
    if lease.expires_at <= lease.taken_at {
        return Err(ApiError::invalid(
            "lease.expiresAt",
            "A lease expires after it is taken.",
        ));
    }
    let claimed = matches!(status, Some(TaskStatus::Claimed | TaskStatus::Working));
    if !claimed {
        return Err(ApiError::invalid(
            "lease",
            "A lease sits on a claimed card only.",
        ));
    }
    Ok(lease.clone())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::super::fixture::{task, team};
    use super::*;
    use flybot_protocol::task_requests::{EvidenceInput, HandoffInput};

    fn input() -> ContractInput {
        ContractInput {
            task_class: Some(TaskClass::Work),
            rework_of: None,
            handoff: Some(HandoffInput {
                from: "requester".into(),
                to: "Dev".into(),
                reason: "needs tests".into(),
                at: None,
            }),
            evidence: Some(vec![EvidenceInput {
                sha: Some("abc1234".into()),
                pr: Some(12),
                check: Some("ci".into()),
                at: None,
            }]),
            lease: None,
        }
    }

    #[test]
    /// Rule #1720.
    fn a_valid_contract_assigns_every_field() {
        let state = team();
        let checked =
            write_contract(&state, "task-1", Some(TaskStatus::Open), &input(), 9).unwrap();
        let mut fields = TaskFields::default();
        checked.assign(&mut fields);
        assert_eq!(fields.task_class, Some(TaskClass::Work));
        assert_eq!(fields.handoff.unwrap().at, 9);
        assert_eq!(fields.evidence.len(), 1);
    }

    #[test]
    /// Rule #1720.
    fn an_unknown_role_is_refused_with_the_role_quoted_back() {
        let state = team();
        let mut bad = input();
        bad.handoff.as_mut().unwrap().to = "Designer".into();
        let err = write_contract(&state, "task-1", None, &bad, 9).unwrap_err();
        assert_eq!(err.code, ErrorCode::UnknownRole);
        assert_eq!(err.details["role"], "Designer");
        assert!(err.message.contains("\"Designer\""));
    }

    #[test]
    /// Rule #1720.
    fn nine_evidence_pointers_a_long_reason_and_a_lease_off_a_claim_are_invalid() {
        let state = team();
        let mut nine = input();
        nine.evidence = Some(vec![
            EvidenceInput {
                sha: None,
                pr: Some(1),
                check: None,
                at: None
            };
            9
        ]);
        assert_eq!(
            write_contract(&state, "t", None, &nine, 1)
                .unwrap_err()
                .code,
            ErrorCode::Invalid
        );
        let mut long = input();
        long.handoff.as_mut().unwrap().reason = "x".repeat(301);
        assert_eq!(
            write_contract(&state, "t", None, &long, 1)
                .unwrap_err()
                .details["field"],
            "handoff.reason"
        );
        let mut lease = input();
        lease.lease = Some(Lease {
            holder: "bot-dev1".into(),
            taken_at: 1,
            expires_at: 2,
        });
        assert!(write_contract(&state, "t", Some(TaskStatus::Open), &lease, 1).is_err());
        assert!(write_contract(&state, "t", Some(TaskStatus::Claimed), &lease, 1).is_ok());
        let _ = task("t", TaskStatus::Open);
    }
}
