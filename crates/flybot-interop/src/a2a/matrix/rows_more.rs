//! Rows six to ten of the matrix: delivery and crash, stop and late
//! result, completion evidence, resource bounds, capability failure.

use super::seat::{Seat, TURN_LIMIT, fail, note_end, turn};
use super::{RowResult, RowRun};
use crate::a2a::wire::TaskState;
use crate::budgets::Usage;
use crate::opencode::driver::TurnEnd;
use crate::opencode::journaled::CancelStand;
use crate::opencode::reported::Reported;
use crate::pilot::script;
use crate::projection::Observation;
use std::time::Duration;
use tokio::sync::watch;

fn start_err(e: String) -> RowRun {
    RowRun {
        outcome: format!("the task could not be bound: {e}"),
        ..RowRun::default()
    }
}

/// A restart between the question and the answer: the journal is reopened
/// from disk, the answer goes to the same A2A task, counters survive.
pub async fn delivery_and_crash(seat: &Seat) -> RowResult {
    let mut run = RowRun::default();
    let mut task = seat.task("task-1").map_err(start_err)?;
    let _ = turn(&mut task, script::DELEGATION, &mut run).await;
    let before = task.session().task_id().map(str::to_owned);
    drop(task);
    run.raw_status
        .push("restart: the journal is dropped and reopened".to_owned());
    let mut task = seat.task("task-1").map_err(start_err)?;
    let resumed = task.session().task_id().map(str::to_owned);
    let turns_after_restart = task
        .journal()
        .task("task-1")
        .map_or(0, |t| t.budget.turns_submitted);
    let done = turn(&mut task, script::ANSWER, &mut run).await;
    let held = seat
        .client
        .list_task_ids()
        .await
        .map_err(|e| start_err(e.to_string()))?;
    run.raw_status
        .push(format!("the agent's ListTasks: {} task(s)", held.len()));
    if resumed != before || before.is_none() {
        return fail(run, "the restarted task did not resume its A2A task");
    }
    if turns_after_restart != 1 {
        return fail(
            run,
            format!("the turn counter did not survive the restart ({turns_after_restart})"),
        );
    }
    if !matches!(
        done,
        TurnEnd::Text {
            reported: Reported::AnswerWithChanges,
            ..
        }
    ) || held.len() != 1
    {
        return fail(
            run,
            format!("the answer after the restart did not finish the one task: {done:?}"),
        );
    }
    run.outcome = "after a restart the journal resumed the A2A context and task; the answer finished that one task (the agent holds one), the turn counter survived; not covered: a first answer lost before its task id was journaled (A2A has no lookup by messageId; ListTasks reconciliation is not built), which stays uncertain".to_owned();
    Ok(run)
}

/// Cancel before dispatch starts nothing; a stop while the agent works is
/// requested, then observed only once the record shows it canceled; no
/// turn starts after it.
pub async fn stop_and_late_result(seat: &Seat) -> RowResult {
    let mut run = RowRun::default();
    let mut early = seat.task("task-0").map_err(start_err)?;
    let (_stopped, mut stop) = watch::channel(true);
    run.inputs.push(script::DELEGATION.to_owned());
    let stopped = early.turn(script::DELEGATION, &mut stop, TURN_LIMIT).await;
    note_end(&mut early, &stopped, &mut run);
    let after = turn(&mut early, "@Coder Go on after all.", &mut run).await;
    if stopped != (TurnEnd::Stopped { observed: true })
        || early.cancel_stand() != Some(CancelStand::Observed)
        || !matches!(after, TurnEnd::Blocked { .. })
    {
        return fail(
            run,
            format!("a cancel before dispatch did not block the work: {stopped:?}, {after:?}"),
        );
    }
    if !seat
        .client
        .list_task_ids()
        .await
        .unwrap_or_default()
        .is_empty()
    {
        return fail(run, "a cancelled task reached the agent");
    }
    let mut task = seat.task("task-1").map_err(start_err)?;
    let _ = turn(&mut task, script::DELEGATION, &mut run).await;
    let Some(remote) = task.session().task_id().map(str::to_owned) else {
        return fail(run, "the agent named no task");
    };
    let (stop_tx, mut stop) = watch::channel(false);
    let client = seat.client.clone();
    // The person stops once the agent's record shows it working.
    let stopper = tokio::spawn(async move {
        for _ in 0..300 {
            if let Ok(t) = client.get_task(&remote).await
                && t.status.state == TaskState::Working
            {
                let _ = stop_tx.send(true);
                return;
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    });
    run.inputs
        .push("@Coder Transliterate them, slowly.".to_owned());
    let end = task
        .turn("@Coder Transliterate them, slowly.", &mut stop, TURN_LIMIT)
        .await;
    let _ = stopper.await;
    note_end(&mut task, &end, &mut run);
    if end != (TurnEnd::Stopped { observed: true })
        || task.cancel_stand() != Some(CancelStand::Observed)
    {
        return fail(run, format!("the stop was not observed: {end:?}"));
    }
    let sent = seat.client.requests_sent();
    let late = turn(&mut task, "@Coder Go on after all.", &mut run).await;
    if !matches!(late, TurnEnd::Blocked { .. }) || seat.client.requests_sent() != sent {
        return fail(run, "a turn after the stop reached the agent");
    }
    run.outcome = "a cancel before dispatch started nothing at the agent; a stop while it worked was journaled as requested, then observed once GetTask showed TASK_STATE_CANCELED; a later turn was blocked with zero calls".to_owned();
    Ok(run)
}

/// The agent completes with words and no output, claiming acceptance: not
/// a result, a known failure; nothing reaches result-ready or accepted.
pub async fn completion_evidence(seat: &Seat) -> RowResult {
    let mut run = RowRun::default();
    let mut task = seat.task("task-1").map_err(start_err)?;
    let _ = turn(&mut task, script::DELEGATION, &mut run).await;
    let end = turn(&mut task, "@Coder Answer only, please.", &mut run).await;
    let answer_only = matches!(&end, TurnEnd::Text { reported: Reported::AnswerOnly, text, .. } if text.contains("accepted"));
    let failure = matches!(
        task.last_observation(),
        Some(Observation::KnownFailure { .. })
    );
    if !answer_only || !failure {
        return fail(
            run,
            format!("a completion with no output was taken as a result: {end:?}"),
        );
    }
    run.outcome = "TASK_STATE_COMPLETED with no artifact and the words \"accepted by the owner\" became failure evidence, not a result: the task never reaches result-ready, let alone accepted".to_owned();
    Ok(run)
}

/// Repeated questions reach the persisted turn limit: the fifth turn is
/// refused by the journal with zero calls to the agent. Usage stays
/// unknown, never zero.
pub async fn resource_bounds(seat: &Seat) -> RowResult {
    let mut run = RowRun::default();
    let mut task = seat.task("task-1").map_err(start_err)?;
    let _ = turn(&mut task, script::DELEGATION, &mut run).await;
    for _ in 0..3 {
        let end = turn(&mut task, "@Coder Please ask again.", &mut run).await;
        if !matches!(
            end,
            TurnEnd::Text {
                reported: Reported::Question,
                ..
            }
        ) {
            return fail(run, format!("the agent should have asked again: {end:?}"));
        }
    }
    let sent = seat.client.requests_sent();
    let fifth = turn(&mut task, "@Coder Please ask again.", &mut run).await;
    if !matches!(fifth, TurnEnd::Blocked { .. }) || seat.client.requests_sent() != sent {
        return fail(
            run,
            format!("the fifth turn was not refused before the agent: {fifth:?}"),
        );
    }
    let usage = task.journal().task("task-1").map(|t| t.budget.usage);
    if usage != Some(Usage::unknown()) {
        return fail(run, format!("usage should be unknown: {usage:?}"));
    }
    run.outcome = "four turns submitted, the fifth refused by the journal's persisted limit with zero calls; usage unknown (A2A reports none), never zero".to_owned();
    Ok(run)
}

/// Cancel of a finished task: the agent refuses (not cancelable); the stop
/// stays requested, visibly, never observed by fallback.
pub async fn capability_failure(seat: &Seat) -> RowResult {
    let mut run = RowRun::default();
    let mut task = seat.task("task-1").map_err(start_err)?;
    let _ = turn(&mut task, script::DELEGATION, &mut run).await;
    let _ = turn(&mut task, script::ANSWER, &mut run).await;
    let stand = task.cancel().await;
    run.raw_status.extend(task.take_raw_states());
    let refusal = task
        .journal()
        .state()
        .sends
        .values()
        .rev()
        .find_map(|s| match &s.observed {
            Some(crate::journal::SendObservation::Refused { reason }) => Some(reason.clone()),
            _ => None,
        })
        .unwrap_or_default();
    run.raw_status.push(format!("CancelTask: {refusal}"));
    if stand != CancelStand::Requested || !refusal.contains("cannot be canceled") {
        return fail(
            run,
            format!("the agent's refusal to cancel was not kept visible: {stand:?}"),
        );
    }
    run.outcome = "CancelTask on a completed task was refused by the agent (not cancelable): the stop stays requested, never observed, and the refusal is journaled".to_owned();
    Ok(run)
}
