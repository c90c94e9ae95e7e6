//! Approvals through the channel (#540, #754): `approvals` lists the
//! actor's own waiting approvals; `approval-answer {id, answer}` answers one.
//! Only the Bot's owner (the `ownerId` the server derived) answers
//! (`bot/forbidden`); an approval already decided is `bot/stale`.
//! `always-bot` keeps a standing grant on the Bot, `always-room` on the room
//! the ask came from (refused for an own-chat ask); both answer this ask
//! allowed-once and release the other waiting asks the grant covers. Held
//! sends (#52, #754, `rooms::hold`) are listed and answered here too:
//! allowed-once releases one after revalidating it, rejected drops it. The
//! rule is core `approvals::answer_approval`; this side wakes the waiting
//! turns and delivers a released send. `standing-approval-remove` revokes
//! a standing grant (core `approvals::revoke`).

use crate::actor::journal_actor;
use crate::approvals::Approvals;
use crate::events::HostEvent;
use crate::rooms::hold::deliver_released;
use flybot_agent::turn::ApprovalOutcome;
use flybot_core::access::Actor;
use flybot_core::approvals::revoke::{Revoked, Scope, revoke_standing};
use flybot_core::approvals::{Answer, Answered, ApprovalStatus, answer_approval, tool_approvals};
use flybot_core::rooms::hold::{held_sends, is_waiting};
use flybot_protocol::ApiError;
use flybot_protocol::answers::{ApprovalAnswered, ApprovalsAnswer, StandingApprovalRemoved};
use flybot_protocol::approval::Approval;
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ListApprovals {
    #[serde(default)]
    pub bot_id: Option<String>,
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RemoveStanding {
    pub scope: Scope,
    pub id: String,
    pub kind: String,
}

/// `standing-approval-remove {scope: bot|room, id, kind}` →
/// `{scope, id, kind, removed}` (#540): the rule is core
/// `approvals::revoke`; one change, nothing on refusal.
pub async fn remove_standing(
    approvals: &Approvals,
    actor: &Actor,
    req: RemoveStanding,
) -> Result<StandingApprovalRemoved, ApiError> {
    approvals
        .team
        .mutate(journal_actor(actor), |change| {
            match revoke_standing(change.state(), actor, req.scope, &req.id, &req.kind)? {
                Revoked::Bot(bot) => change.put_bot(&bot),
                Revoked::Room(room) => change.put_room(&room),
            }
            Ok(())
        })
        .await?;
    Ok(StandingApprovalRemoved {
        scope: match req.scope {
            Scope::Bot => "bot",
            Scope::Room => "room",
        }
        .to_owned(),
        id: req.id,
        kind: req.kind,
        removed: true,
    })
}

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AnswerApproval {
    pub id: String,
    pub answer: Answer,
}

/// `approvals {botId?}` → `{approvals}`: the actor's own waiting ones, tool
/// approvals and held sends (#52, #754) together, oldest first.
pub fn list(
    approvals: &Approvals,
    actor: &Actor,
    req: ListApprovals,
) -> Result<ApprovalsAnswer, ApiError> {
    approvals.team.store().read(|state| {
        let me = actor.member_id(state);
        let tools = tool_approvals(state)
            .filter(|r| r.status == ApprovalStatus::Waiting)
            .map(|r| Waiting {
                at: r.created_at,
                id: r.id.clone(),
                owner: r.owner_id.clone(),
                bot: r.bot_id.clone(),
                record: Approval::Tool(r),
            });
        let holds = held_sends(state)
            .filter(|h| is_waiting(h.held.status))
            .map(|h| Waiting {
                at: h.held.created_at,
                id: h.id.clone(),
                owner: h.held.owner_id.clone(),
                bot: h.held.from_bot.clone(),
                record: Approval::HeldSend(h),
            });
        let mut mine: Vec<Waiting> = tools
            .chain(holds)
            .filter(|w| Some(&w.owner) == me.as_ref())
            .filter(|w| req.bot_id.as_ref().is_none_or(|b| *b == w.bot))
            .collect();
        mine.sort_by(|a, b| (a.at, &a.id).cmp(&(b.at, &b.id)));
        // Sends to friends' homes held for this owner (#52, issue 33).
        let friend_holds = crate::social::friend_holds(state, actor)
            .into_iter()
            .filter(|h| req.bot_id.as_ref().is_none_or(|b| *b == h.bot_id))
            .collect();
        Ok(ApprovalsAnswer {
            approvals: mine.into_iter().map(|w| w.record).collect(),
            friend_holds,
        })
    })
}

/// A waiting record with what the list filters and sorts it by.
struct Waiting {
    at: u64,
    id: String,
    owner: String,
    bot: String,
    record: Approval,
}

/// `approval-answer {id, answer}` → `{approval, released}` for a tool
/// approval, `{approval, delivered}` for a held send.
pub async fn answer(
    approvals: &Approvals,
    actor: &Actor,
    req: AnswerApproval,
) -> Result<ApprovalAnswered, ApiError> {
    let answered = approvals
        .team
        .mutate(journal_actor(actor), |change| {
            let answered =
                answer_approval(change.state(), actor, &req.id, req.answer, change.now_ms())?;
            match &answered {
                Answered::Tool { writes, .. } | Answered::HeldSend { writes, .. } => {
                    change.apply_roster(writes);
                }
            }
            Ok(answered)
        })
        .await?;
    match answered {
        Answered::Tool {
            record, released, ..
        } => {
            let outcome = match record.status {
                ApprovalStatus::Rejected => ApprovalOutcome::Rejected,
                ApprovalStatus::AllowedOnce
                | ApprovalStatus::Waiting
                | ApprovalStatus::Cancelled => ApprovalOutcome::AllowedOnce,
            };
            approvals.waits.release(&record.id, outcome);
            for id in &released {
                approvals.waits.release(id, ApprovalOutcome::AllowedOnce);
            }
            Ok(ApprovalAnswered::Tool {
                approval: record,
                released,
            })
        }
        Answered::HeldSend { record, writes } => {
            // The card the send blocked moved with it (#54, #207).
            let moved = writes.task_ids();
            if !moved.is_empty() {
                approvals
                    .team
                    .emit(HostEvent::TasksWritten { task_ids: moved });
            }
            let delivered = deliver_released(approvals, &record);
            Ok(ApprovalAnswered::HeldSend {
                approval: record,
                delivered,
            })
        }
    }
}
