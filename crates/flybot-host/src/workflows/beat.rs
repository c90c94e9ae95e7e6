//! The planning beat (#1316): after every board write (`tasks.written`) the
//! planner runs again for each open workflow job whose cards were written,
//! all of them in one change. A node card that moved to accepted is the
//! `task.progress` fact of the node's declared outputs (a fact a reader
//! already recorded wins), so the next node opens without a workflow call.
//! A terminal node's outputs are never taken from its card (pin 6): only
//! their readers record them, and the job card closes once they are
//! present and current (`job_done`), never because a card moved.
//! The planner is pure and the cards under a job are its record, so a
//! replayed event opens nothing twice; the cards it opened are announced
//! like any board write, and the task drive offers them.

use super::Workflows;
use super::job::{NODE, definition, drive, facts_of, job_workflow, plan_cards, put_fact};
use crate::events::{Written, follow_written};
use flybot_core::access::{Actor, enforced};
use flybot_core::tasks::job_card::close_job_card;
use flybot_core::workflow::artifact::Fact;
use flybot_core::workflow::definition::{node, outputs_of, terminal_nodes};
use flybot_core::workflow::facts::{FactArgs, task_progress};
use flybot_core::workflow::plan::{cards_of_job, job_done};
use flybot_protocol::state::{Task, TeamState};
use flybot_protocol::task::TaskFields;
use flybot_protocol::workflow::WorkflowDefinition;
use flybot_store::Change;
use serde_json::json;
use std::collections::BTreeMap;

/// The open jobs a write touched (`None`: every open job), with their
/// workflow ids.
fn jobs_written(state: &TeamState, written: Option<&[String]>) -> BTreeMap<String, String> {
    let open_job = |task: &Task| {
        job_workflow(task)
            .filter(|_| !task.status.is_terminal())
            .map(|w| (task.id.clone(), w.to_owned()))
    };
    let Some(written) = written else {
        return state.tasks.values().filter_map(open_job).collect();
    };
    written
        .iter()
        .filter_map(|id| state.tasks.get(id))
        .filter_map(|task| {
            if task.extra.contains_key(NODE) {
                let parent = TaskFields::read(task).parent_id?;
                state.tasks.get(&parent).and_then(open_job)
            } else {
                open_job(task)
            }
        })
        .collect()
}

/// The job's Bot acts as its owner would.
fn job_actor(state: &TeamState, job: &Task) -> Actor {
    match state.bots.get(&job.bot_id) {
        Some(bot) if enforced(state) => Actor::Member {
            member_id: bot.owner_id.clone(),
            session_id: String::new(),
        },
        Some(_) | None => Actor::SingleOwner,
    }
}

/// Records, on the job card, the outputs of each accepted node card that no
/// reader recorded yet; answers whether the card was written.
fn record_accepted_outputs(
    change: &mut Change<'_>,
    def: &WorkflowDefinition,
    job_id: &str,
) -> bool {
    let Some(mut job) = change.state().tasks.get(job_id).cloned() else {
        return false;
    };
    let facts = facts_of(&job);
    let cards = plan_cards(change.state());
    let terminal = terminal_nodes(def);
    let mut wrote = false;
    for card in cards_of_job(&cards, job_id, &def.id) {
        let Some(n) = card.node.as_deref().and_then(|id| node(def, id)) else {
            continue;
        };
        // A terminal node's outputs come from their readers only (pin 6).
        if !card.done || terminal.contains(&n.id.as_str()) {
            continue;
        }
        for raw in outputs_of(n) {
            if facts.get(raw).is_some() {
                continue;
            }
            let args = FactArgs {
                token: false,
                spec: Some(raw.clone()),
            };
            let answer = json!({"status": "accepted", "revision": card.id});
            if let Some(Fact::Read { artifact, .. }) = task_progress(&args, Some(&answer)) {
                let record = json!({"revision": artifact.revision, "value": artifact.value});
                put_fact(&mut job, artifact.spec.key(), record);
                wrote = true;
            }
        }
    }
    if wrote {
        job.updated_at = change.now_ms().max(job.updated_at + 1);
        change.put_task(&job);
    }
    wrote
}

/// Closes the job card once its job is done (pin 6); answers whether it
/// was written.
fn close_done_job(change: &mut Change<'_>, def: &WorkflowDefinition, job_id: &str) -> bool {
    let Some(job) = change.state().tasks.get(job_id) else {
        return false;
    };
    if !job_done(def, &facts_of(job)) {
        return false;
    }
    match close_job_card(job, change.now_ms()) {
        Some(closed) => {
            change.put_task(&closed);
            true
        }
        None => false,
    }
}

/// Plans every open job the write touched, in one change, and announces
/// the cards it wrote. Answers their ids.
pub async fn replan(wf: &Workflows, written: Option<&[String]>) -> Vec<String> {
    let jobs = wf.team().read(|state| jobs_written(state, written));
    let defs: Vec<(String, WorkflowDefinition)> = jobs
        .iter()
        .filter_map(|(job, workflow)| Some((job.clone(), definition(wf, workflow).ok()?)))
        .collect();
    if defs.is_empty() {
        return Vec::new();
    }
    let model = wf.models.default_model();
    let wrote = wf
        .team()
        .mutate("workflow", |change| {
            let mut wrote = Vec::new();
            for (job_id, def) in &defs {
                if record_accepted_outputs(change, def, job_id) {
                    wrote.push(job_id.clone());
                }
                let Some(job) = change.state().tasks.get(job_id) else {
                    continue;
                };
                let actor = job_actor(change.state(), job);
                // Only a vanished job fails, and it writes nothing.
                if let Ok(driven) = drive(change, &actor, def, job_id, &model) {
                    wrote.extend(driven.written);
                }
                if close_done_job(change, def, job_id) {
                    wrote.push(job_id.clone());
                }
            }
            Ok(wrote)
        })
        .await;
    match wrote {
        Ok(wrote) => {
            wf.board.announce_ids(wrote.clone());
            wrote
        }
        Err(error) => {
            tracing::warn!("the workflow beat could not plan: {}", error.message);
            Vec::new()
        }
    }
}

/// Runs the beat after every board write while the wf lives; a beat that
/// fell behind re-plans every open job.
pub(crate) fn follow(wf: &Workflows) {
    let wf = wf.clone();
    follow_written(&wf.team().bus().clone(), move |written| {
        let wf = wf.clone();
        async move {
            let written = match written {
                Written::Cards(ids) => Some(ids),
                Written::Lagged => None,
            };
            replan(&wf, written.as_deref()).await;
        }
    });
}
