//! The audit projection (#1730): one text block rendered from the typed
//! fields already on a card: handoff, each evidence entry, the rework chain
//! oldest → newest, and the current lease. A read: nothing is written, and a
//! card stored before the contract answers the empty string.

use super::rework::chain;
use super::roles::bot_name;
use flybot_protocol::state::{Task, TeamState};
use flybot_protocol::task::TaskFields;

/// The audit block of `task`.
pub fn audit(state: &TeamState, task: &Task) -> String {
    let fields = TaskFields::read(task);
    let mut lines: Vec<String> = Vec::new();
    if let Some(h) = &fields.handoff {
        let reason = if h.reason.is_empty() {
            String::new()
        } else {
            format!(" — {}", h.reason)
        };
        lines.push(format!(
            "handoff: {} → {}{reason} (at {})",
            h.from, h.to, h.at
        ));
    }
    for e in &fields.evidence {
        let mut parts: Vec<String> = Vec::new();
        if let Some(sha) = &e.sha {
            parts.push(format!("sha {sha}"));
        }
        if let Some(pr) = e.pr {
            parts.push(format!("pr #{pr}"));
        }
        if let Some(check) = &e.check {
            parts.push(format!("check {check}"));
        }
        lines.push(format!("evidence: {} (at {})", parts.join(", "), e.at));
    }
    let links = chain(state, &task.id);
    if links.len() > 1 {
        lines.push(format!("rework: {}", links.join(" → ")));
    }
    if let Some(lease) = &fields.lease {
        lines.push(format!(
            "lease: {} {} → {}",
            bot_name(state, &lease.holder),
            lease.taken_at,
            lease.expires_at
        ));
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    use super::super::fixture::{task, team, with_fields};
    use super::*;
    use flybot_protocol::state::TaskStatus;
    use flybot_protocol::task::{Evidence, Handoff, Lease, TaskClass};

    #[test]
    /// Rule #1730.
    fn a_pre_contract_card_audits_to_the_empty_string() {
        let state = team();
        assert_eq!(audit(&state, &task("t", TaskStatus::Open)), "");
    }

    #[test]
    /// Rule #1730.
    fn the_block_renders_handoff_evidence_chain_and_lease_twice_the_same() {
        let mut state = team();
        let original = with_fields(task("task-a", TaskStatus::Working), |f| {
            f.handoff = Some(Handoff {
                from: "requester".into(),
                to: "Dev".into(),
                at: 5,
                reason: "flaky test".into(),
            });
            f.evidence = vec![Evidence {
                sha: Some("abc1234".into()),
                pr: Some(7),
                check: None,
                at: 6,
            }];
            f.lease = Some(Lease {
                holder: "bot-dev1".into(),
                taken_at: 1,
                expires_at: 2,
            });
        });
        let child = with_fields(task("task-b", TaskStatus::Open), |f| {
            f.task_class = Some(TaskClass::Rework);
            f.rework_of = Some("task-a".into());
        });
        state.tasks.insert("task-a".into(), original.clone());
        state.tasks.insert("task-b".into(), child);
        let text = audit(&state, &original);
        assert_eq!(
            text,
            "handoff: requester → Dev — flaky test (at 5)\n\
             evidence: sha abc1234, pr #7 (at 6)\n\
             rework: task-a → task-b\n\
             lease: Name bot-dev1 1 → 2"
        );
        assert_eq!(audit(&state, &original), text);
    }
}
