//! Starting a workflow job and editing it (#1316): the job card is made or
//! changed, then the planner runs inside the same change (`job::drive`) and
//! the cards it opened are announced like any board write, so the task
//! drive offers them and the beat re-plans nothing twice.

use super::Workflows;
use super::authors::author_of;
use super::job::{FACTS, PlanAnswer, WORKFLOW, definition, drive, job_workflow, plan_answer};
use super::library::definitions;
use super::run_bot::{CAPPED_BY, job_caps};
use crate::actor::acting_member;
use crate::actor::journal_actor;
use crate::ids::new_id;
use flybot_core::access::Actor;
use flybot_core::tasks::queue;
use flybot_core::workflow::artifact::{Fact, parse_spec};
use flybot_core::workflow::tools::{RunWorkflowArgs, check_run_workflow};
use flybot_protocol::ApiError;
use flybot_protocol::state::{Task, TaskStatus};
use flybot_protocol::workflow::{WorkflowDefinition, WorkflowRun};
use serde_json::{Map, Value, json};

/// Starts a job; `caller_bot` is the Bot whose `run_workflow` call started
/// it. The job records its caps (#1544, #1582): that Bot and the Bot that
/// saved the workflow, for the run Bots its nodes open.
pub async fn start(
    wf: &Workflows,
    actor: &Actor,
    req: WorkflowRun,
    caller_bot: Option<&str>,
) -> Result<PlanAnswer, ApiError> {
    let all: Vec<WorkflowDefinition> = definitions(wf).into_iter().map(|(d, _)| d).collect();
    let args = RunWorkflowArgs {
        workflow: req.workflow.clone(),
        title: req.title.clone(),
        inputs: req.inputs.clone(),
    };
    let call = check_run_workflow(&args, &all).map_err(|why| ApiError::invalid("workflow", why))?;
    let def = definition(wf, &call.workflow)?;
    let job_id = new_id("task");
    let caps = job_caps(caller_bot, author_of(wf, &def.id).as_deref());
    let model = wf.models.default_model();
    let (job, driven) = wf
        .team()
        .mutate(journal_actor(actor), |change| {
            let lead = queue::acting_bot(change.state(), actor, &req.bot_id)?.clone();
            if !change.state().rooms.contains_key(&req.room_id) {
                return Err(ApiError::not_found("room", &req.room_id));
            }
            let requester = acting_member(change, actor);
            let now = change.now_ms();
            let mut facts = Map::new();
            for (raw, value) in &req.inputs {
                if let Ok(spec) = parse_spec(raw)
                    && let Some(fact) = call.facts.get(raw)
                    && let Fact::Read { artifact, .. } = fact
                {
                    facts.insert(
                        spec.key(),
                        json!({"revision": artifact.revision, "value": value}),
                    );
                }
            }
            let mut job = Task {
                id: job_id.clone(),
                bot_id: lead.id.clone(),
                title: call.title.clone(),
                status: TaskStatus::Open,
                requester_id: Some(requester),
                room_id: Some(req.room_id.clone()),
                created_at: now,
                updated_at: now,
                extra: Default::default(),
            };
            job.extra
                .insert(WORKFLOW.into(), Value::from(def.id.clone()));
            job.extra.insert(FACTS.into(), Value::Object(facts));
            job.extra.insert(CAPPED_BY.into(), caps);
            change.put_task(&job);
            let driven = drive(change, actor, &def, &job_id, &model)?;
            Ok((job, driven))
        })
        .await?;
    let mut written = vec![job.id.clone()];
    written.extend(driven.written);
    wf.board.announce_ids(written);
    Ok(plan_answer(&def, &job, driven.plan))
}

/// Changes the job card with `edit`, then plans it again in the same change.
pub async fn edit_job(
    wf: &Workflows,
    actor: &Actor,
    job_id: &str,
    edit: impl FnOnce(&mut Task) -> Result<(), ApiError>,
) -> Result<PlanAnswer, ApiError> {
    // A job card names a workflow and hangs under no other card.
    let workflow = wf.team().read(|state| {
        state
            .tasks
            .get(job_id)
            .and_then(job_workflow)
            .map(str::to_owned)
    });
    let Some(workflow) = workflow else {
        return Err(ApiError::not_found("workflow job", job_id));
    };
    let def = definition(wf, &workflow)?;
    let model = wf.models.default_model();
    let (job, changed, driven) = wf
        .team()
        .mutate(journal_actor(actor), |change| {
            let mut job = change
                .state()
                .tasks
                .get(job_id)
                .cloned()
                .ok_or_else(|| ApiError::not_found("workflow job", job_id))?;
            // The refusal names the job the caller sent, never the Bot
            // behind it (issue 29).
            queue::acting_bot(change.state(), actor, &job.bot_id).map_err(|_| {
                ApiError::forbidden("Only the owner of this workflow job's Bot can change it.")
                    .with("jobId", job_id)
            })?;
            let before = job.clone();
            edit(&mut job)?;
            let changed = job != before;
            if changed {
                job.updated_at = change.now_ms().max(job.updated_at + 1);
                change.put_task(&job);
            }
            let driven = drive(change, actor, &def, job_id, &model)?;
            Ok((job, changed, driven))
        })
        .await?;
    let mut written: Vec<String> = changed.then(|| job.id.clone()).into_iter().collect();
    written.extend(driven.written);
    wf.board.announce_ids(written);
    Ok(plan_answer(&def, &job, driven.plan))
}
