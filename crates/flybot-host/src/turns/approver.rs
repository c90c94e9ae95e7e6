//! The host's `Approver` (#540, #754): a tool call that needs approval is
//! answered at once by a standing grant (`standingApprovals` on the Bot, or
//! on the room the ask came from for the Bot's owner) in a turn its owner
//! started (or a no-verdict retry, or the owner's own schedule, in the Bot's
//! own chat; never outside input, core `approvals::origin`; the first grant a
//! turn could not use is logged per Session and kind), rejected at once when
//! nobody can answer it (a hidden run Bot, an owner who is not a member),
//! and otherwise recorded in `state.flybot.approvals` as `waiting` while the
//! turn waits for the owner's `approval-answer`. Past `PENDING_MAX` waiting
//! asks one more is rejected at once, and a new record removes the decided
//! ones past `APPROVALS_KEPT` (#754). The record, the standing grants and
//! the bounds are core `approvals`.

use crate::team::Team;
use flybot_agent::session::Source;
use flybot_agent::tools::BoxFuture;
use flybot_agent::turn::{ApprovalAsk, ApprovalOutcome, Approver};
use flybot_core::approvals::origin::{AskFrom, grant_applies};
use flybot_core::approvals::{Approval, ApprovalRecord, ApprovalStatus, bounds, standing_covers};
use flybot_core::workflow::run_bot::run_bot_may_call;
use flybot_protocol::state::TeamState;
use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};
use tokio::sync::oneshot;

/// A label's longest length, in characters.
const LABEL_MAX: usize = 200;

/// The turns waiting on an answer, by approval id, and the Sessions and
/// kinds whose unused standing grant was already logged (#540).
#[derive(Default)]
pub(crate) struct ApprovalWaits {
    waiting: Mutex<HashMap<String, oneshot::Sender<ApprovalOutcome>>>,
    unused_logged: Mutex<HashSet<(String, String)>>,
}

impl ApprovalWaits {
    /// Whether this is the first unused grant of `session_id` and `kind`:
    /// only that one is logged.
    pub(crate) fn first_unused(&self, session_id: &str, kind: &str) -> bool {
        flybot_core::sync::lock(&self.unused_logged)
            .insert((session_id.to_owned(), kind.to_owned()))
    }

    fn add(&self, id: &str) -> oneshot::Receiver<ApprovalOutcome> {
        let (sender, receiver) = oneshot::channel();
        self.lock().insert(id.to_owned(), sender);
        receiver
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, oneshot::Sender<ApprovalOutcome>>> {
        flybot_core::sync::lock(&self.waiting)
    }

    /// Hands `outcome` to the turn waiting on `id`, if one still waits.
    pub(crate) fn release(&self, id: &str, outcome: ApprovalOutcome) {
        if let Some(sender) = self.lock().remove(id) {
            // The turn may have ended meanwhile; then nobody needs it.
            let _ = sender.send(outcome);
        }
    }
}

/// The room whose group Session is `session_id`, if any.
pub(crate) fn room_of_session(state: &TeamState, session_id: &str) -> Option<String> {
    state
        .rooms
        .values()
        .find(|room| room.sessions.values().any(|s| s == session_id))
        .map(|room| room.id.clone())
}

/// What to do with an ask.
enum Plan {
    Reject(&'static str),
    Allow,
    /// The ask waits for the owner; with the verdict of a standing grant
    /// that covered it but could not be used for this turn (#540).
    Wait(Box<ApprovalRecord>, Option<&'static str>),
}

fn plan(state: &TeamState, ask: &ApprovalAsk, now: u64) -> Plan {
    let Some(bot) = state.bots.get(&ask.bot_id) else {
        return Plan::Reject("the Bot is gone");
    };
    // A hidden run Bot cannot show an approval card: a tool its node names
    // (the shell) was granted by the workflow, anything else is rejected
    // now, never left hanging (#1445). An owner who is not a member cannot
    // answer one either.
    if bot.run {
        let step = crate::workflows::run_bot::step_tools(bot);
        return match run_bot_may_call(&ask.tool, &step) {
            Ok(()) => Plan::Allow,
            Err(_) => Plan::Reject("a run Bot cannot show an approval"),
        };
    }
    if !state.members.contains_key(&bot.owner_id) {
        return Plan::Reject("the Bot's owner is not a member");
    }
    let room_id = if ask.session_id == bot.session_id {
        None
    } else {
        room_of_session(state, &ask.session_id)
    };
    let mut unused = None;
    if standing_covers(state, bot, room_id.as_deref(), &ask.tool) {
        let from: Vec<AskFrom> = ask.sources.iter().map(Source::ask_from).collect();
        match grant_applies(state, bot, room_id.is_none(), &from) {
            Ok(()) => return Plan::Allow,
            Err(verdict) => unused = Some(verdict),
        }
    }
    // #754: past PENDING_MAX asks waiting on the owner, one more is
    // rejected at once instead of joining a queue nobody will read.
    if !bounds::may_ask(state, &bot.id) {
        return Plan::Reject("too many approvals already wait for the owner");
    }
    Plan::Wait(
        Box::new(ApprovalRecord {
            id: crate::ids::new_id("approval"),
            bot_id: bot.id.clone(),
            session_id: ask.session_id.clone(),
            tool: ask.tool.clone(),
            label: ask.summary.chars().take(LABEL_MAX).collect(),
            status: ApprovalStatus::Waiting,
            request_id: crate::ids::new_id("request"),
            owner_id: bot.owner_id.clone(),
            created_at: now,
            tool_call_id: ask.tool_call_id.clone(),
            room_id,
            decided_at: None,
            answer: None,
            extra: Default::default(),
        }),
        unused,
    )
}

/// Marks a record still waiting as cancelled when its turn stops waiting
/// without an answer (the turn was stopped or the host is stopping).
struct WaitGuard {
    team: Team,
    id: String,
    answered: bool,
}

impl Drop for WaitGuard {
    fn drop(&mut self) {
        if self.answered {
            return;
        }
        let team = self.team.clone();
        let id = std::mem::take(&mut self.id);
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let _ = team
                    .mutate("host", |change| {
                        let Some(mut record) = change
                            .state()
                            .flybot
                            .approvals
                            .get(&id)
                            .and_then(Approval::as_tool)
                            .cloned()
                        else {
                            return Ok(());
                        };
                        if record.status == ApprovalStatus::Waiting {
                            record.status = ApprovalStatus::Cancelled;
                            record.decided_at = Some(change.now_ms());
                            put(change, &record);
                        }
                        Ok(())
                    })
                    .await;
            });
        }
    }
}

/// Writes `record` into `state.flybot.approvals`.
pub(crate) fn put(change: &mut flybot_store::Change<'_>, record: &ApprovalRecord) {
    change.put_approval(&record.id, record);
}

async fn decide(team: Team, waits: Waits, ask: ApprovalAsk) -> ApprovalOutcome {
    let now = flybot_store::system_now_ms();
    let record = match team.read(|state| plan(state, &ask, now)) {
        Plan::Reject(why) => {
            tracing::info!(bot = %ask.bot_id, tool = %ask.tool, "approval rejected at once: {why}");
            return ApprovalOutcome::Rejected;
        }
        Plan::Allow => return ApprovalOutcome::AllowedOnce,
        Plan::Wait(record, unused) => {
            if let Some(verdict) = unused
                && waits.first_unused(&ask.session_id, &ask.tool)
            {
                tracing::info!(
                    session = %ask.session_id,
                    "the standing approval for {} was not used: the turn is \"{verdict}\"",
                    ask.tool
                );
            }
            *record
        }
    };
    let answer = waits.add(&record.id);
    let mut guard = WaitGuard {
        team: team.clone(),
        id: record.id.clone(),
        answered: false,
    };
    let written = team
        .mutate(&format!("bot:{}", record.bot_id), |change| {
            put(change, &record);
            for old in bounds::past_kept(change.state()) {
                change.remove_approval(&old);
            }
            Ok(())
        })
        .await;
    if let Err(e) = written {
        tracing::warn!("an approval request could not be recorded: {e}");
        waits.release(&record.id, ApprovalOutcome::Rejected);
        guard.answered = true;
        return ApprovalOutcome::Rejected;
    }
    let outcome = answer.await.unwrap_or(ApprovalOutcome::Rejected);
    guard.answered = true;
    outcome
}

/// The `Approver` every turn of this host runs with.
pub(crate) struct HostApprover {
    pub team: Team,
    pub waits: Waits,
}

impl Approver for HostApprover {
    fn ask(&self, ask: ApprovalAsk) -> BoxFuture<'static, ApprovalOutcome> {
        Box::pin(decide(self.team.clone(), self.waits.clone(), ask))
    }
}

/// Shared by the approval endpoints: `Arc` so the host can hand it out.
pub(crate) type Waits = Arc<ApprovalWaits>;

#[cfg(test)]
mod tests {
    use super::ApprovalWaits;

    #[test]
    /// Rule #540.
    fn an_unused_standing_grant_is_logged_once_per_session_and_kind() {
        let waits = ApprovalWaits::default();
        assert!(waits.first_unused("s1", "run_command"));
        assert!(!waits.first_unused("s1", "run_command"));
        assert!(waits.first_unused("s1", "write_file"));
        assert!(waits.first_unused("s2", "run_command"));
    }
}
