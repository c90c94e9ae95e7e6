//! The running layer's host half (#1316): a job is a card carrying its
//! workflow id, the facts read for it and any hold; after every write here
//! the planner runs inside the same change, and each card it opens is a
//! queue item for the node's role (unassigned until a member claims it,
//! #1247), parented to the job and naming its workflow and node. The cards
//! already under the job are the record, so a replay opens nothing twice.

use super::owner::{acting_member, journal_actor};
use super::workflows::definitions;
use crate::host::Host;
use crate::ids::new_id;
use flybot_core::access::Actor;
use flybot_core::tasks::queue;
use flybot_core::workflow::artifact::{Artifact, Fact, Facts, parse_spec};
use flybot_core::workflow::plan::{Plan, PlanCard, PlanRequest, job_done, plan_job};
use flybot_core::workflow::tools::{RunWorkflowArgs, check_run_workflow};
use flybot_protocol::ApiError;
use flybot_protocol::state::{Task, TaskStatus, TeamState};
use flybot_protocol::task::TaskFields;
use flybot_protocol::task_requests::TaskEnqueue;
use flybot_protocol::workflow::{
    WorkflowDefinition, WorkflowFactRecord, WorkflowHold, WorkflowRun,
};
use flybot_store::Change;
use serde_json::{Map, Value, json};

/// The job card's keys: its workflow, the facts read for it, its hold.
const WORKFLOW: &str = "workflow";
const NODE: &str = "node";
const FACTS: &str = "workflowFacts";
const HOLD: &str = "hold";

fn definition(host: &Host, id: &str) -> Result<WorkflowDefinition, ApiError> {
    definitions(host)
        .into_iter()
        .map(|(def, _)| def)
        .find(|def| def.id == id)
        .ok_or_else(|| ApiError::not_found("workflow", id))
}

/// The facts a job card holds, as the engine reads them.
fn facts_of(job: &Task) -> Facts {
    let mut facts = Facts::new();
    let Some(Value::Object(map)) = job.extra.get(FACTS) else {
        return facts;
    };
    for (key, record) in map {
        let Ok(spec) = parse_spec(key) else { continue };
        let fact = match record.get("unreadable").and_then(Value::as_str) {
            Some(why) => Fact::Unreadable {
                spec,
                why: why.to_owned(),
            },
            None => {
                let Some(revision) = record.get("revision").and_then(Value::as_str) else {
                    continue;
                };
                Fact::Read {
                    artifact: Artifact {
                        spec,
                        revision: revision.to_owned(),
                        value: record.get("value").cloned().unwrap_or(Value::Null),
                    },
                    current: record
                        .get("current")
                        .and_then(Value::as_str)
                        .map(str::to_owned),
                }
            }
        };
        facts.insert(fact);
    }
    facts
}

fn plan_cards(state: &TeamState) -> Vec<PlanCard> {
    state
        .tasks
        .values()
        .map(|task| PlanCard {
            id: task.id.clone(),
            parent_id: TaskFields::read(task).parent_id,
            workflow: task
                .extra
                .get(WORKFLOW)
                .and_then(Value::as_str)
                .map(str::to_owned),
            node: task
                .extra
                .get(NODE)
                .and_then(Value::as_str)
                .map(str::to_owned),
            done: task.status == TaskStatus::Accepted,
        })
        .collect()
}

/// Plans the job and opens its cards in this change; answers the plan, with
/// a node the queue refused (no member carries its role, the queue is full)
/// moved to `refused` in the queue's own sentence.
fn drive(
    change: &mut Change<'_>,
    actor: &Actor,
    def: &WorkflowDefinition,
    job_id: &str,
) -> Result<Plan, ApiError> {
    let job = change
        .state()
        .tasks
        .get(job_id)
        .cloned()
        .ok_or_else(|| ApiError::not_found("task", job_id))?;
    let room_id = job.room_id.clone().unwrap_or_default();
    let facts = facts_of(&job);
    let cards = plan_cards(change.state());
    let hold = job.extra.get(HOLD).and_then(Value::as_str);
    let mut plan = plan_job(PlanRequest {
        definition: def,
        job_id,
        cards: &cards,
        facts: &facts,
        hold,
    });
    let mut opened = Vec::new();
    for card in std::mem::take(&mut plan.open) {
        let request = TaskEnqueue {
            bot_id: job.bot_id.clone(),
            room_id: room_id.clone(),
            role: card.queue_role.clone(),
            title: card.title.clone(),
            priority: None,
            note: None,
            cap: None,
            id: None,
            run: Some(job_id.to_owned()),
            actor_id: None,
        };
        let id = new_id("task");
        let now = change.now_ms();
        match queue::enqueue(change.state(), actor, &request, &id, now) {
            Ok(out) => {
                for mut task in out.writes {
                    let mut fields = TaskFields::read(&task);
                    fields.parent_id = Some(job_id.to_owned());
                    fields.write(&mut task);
                    task.extra
                        .insert(WORKFLOW.into(), Value::from(card.workflow.clone()));
                    task.extra
                        .insert(NODE.into(), Value::from(card.node.clone()));
                    change.put_task(&task);
                }
                opened.push(card);
            }
            Err(error) => plan.refused.push(flybot_core::workflow::plan::RefusedNode {
                node: card.node,
                refusal: Some(error.message),
                holder: None,
            }),
        }
    }
    plan.open = opened;
    Ok(plan)
}

fn plan_answer(def: &WorkflowDefinition, job: &Task, plan: &Plan) -> Value {
    json!({
        "jobId": job.id,
        "workflow": def.id,
        "open": plan.open,
        "refused": plan.refused,
        "done": job_done(def, &facts_of(job)),
    })
}

/// `workflow-run {workflow, roomId, botId, title, inputs?}` → the job and
/// what opened: `{jobId, workflow, open, refused, done}`.
pub async fn run(host: &Host, actor: &Actor, req: WorkflowRun) -> Result<Value, ApiError> {
    let all: Vec<WorkflowDefinition> = definitions(host).into_iter().map(|(d, _)| d).collect();
    let args = RunWorkflowArgs {
        workflow: req.workflow.clone(),
        title: req.title.clone(),
        inputs: req.inputs.clone(),
    };
    let call = check_run_workflow(&args, &all).map_err(|why| ApiError::invalid("workflow", why))?;
    let def = definition(host, &call.workflow)?;
    let job_id = new_id("task");
    let (job, plan) = host
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
            change.put_task(&job);
            let plan = drive(change, actor, &def, &job_id)?;
            Ok((job, plan))
        })
        .await?;
    Ok(plan_answer(&def, &job, &plan))
}

/// Changes the job card with `edit`, then plans it again in the same change.
async fn edit_job(
    host: &Host,
    actor: &Actor,
    job_id: &str,
    edit: impl FnOnce(&mut Task) -> Result<(), ApiError>,
) -> Result<Value, ApiError> {
    // A job card names a workflow and hangs under no other card.
    let workflow = host.store().read(|state| {
        let job = state.tasks.get(job_id)?;
        let workflow = job.extra.get(WORKFLOW).and_then(Value::as_str)?;
        TaskFields::read(job)
            .parent_id
            .is_none()
            .then(|| workflow.to_owned())
    });
    let Some(workflow) = workflow else {
        return Err(ApiError::not_found("workflow job", job_id));
    };
    let def = definition(host, &workflow)?;
    let (job, plan) = host
        .mutate(journal_actor(actor), |change| {
            let mut job = change
                .state()
                .tasks
                .get(job_id)
                .cloned()
                .ok_or_else(|| ApiError::not_found("workflow job", job_id))?;
            queue::acting_bot(change.state(), actor, &job.bot_id)?;
            let before = job.clone();
            edit(&mut job)?;
            if job != before {
                job.updated_at = change.now_ms().max(job.updated_at + 1);
                change.put_task(&job);
            }
            let plan = drive(change, actor, &def, job_id)?;
            Ok((job, plan))
        })
        .await?;
    Ok(plan_answer(&def, &job, &plan))
}

/// `workflow-fact {jobId, spec, ...}` → the plan after recording the fact.
pub async fn record_fact(
    host: &Host,
    actor: &Actor,
    req: WorkflowFactRecord,
) -> Result<Value, ApiError> {
    let spec = parse_spec(&req.spec)
        .map_err(|error| ApiError::invalid("spec", error.sentence(&req.spec)))?;
    let record = match (&req.unreadable, &req.revision) {
        (Some(why), _) => json!({"unreadable": why}),
        (None, Some(revision)) => {
            let mut record =
                json!({"revision": revision, "value": req.value.clone().unwrap_or(Value::Null)});
            if let Some(current) = &req.current {
                record["current"] = Value::from(current.clone());
            }
            record
        }
        (None, None) => {
            return Err(ApiError::invalid(
                "revision",
                "A fact read carries its revision; one nobody could read says why in unreadable.",
            ));
        }
    };
    edit_job(host, actor, &req.job_id, |job| {
        let facts = job
            .extra
            .entry(FACTS.to_owned())
            .or_insert_with(|| Value::Object(Map::new()));
        if !facts.is_object() {
            *facts = Value::Object(Map::new());
        }
        if let Value::Object(map) = facts {
            map.insert(spec.key(), record);
        }
        Ok(())
    })
    .await
}

/// `workflow-hold {jobId, holder?}` → the plan under the hold (#1337).
pub async fn hold(host: &Host, actor: &Actor, req: WorkflowHold) -> Result<Value, ApiError> {
    edit_job(host, actor, &req.job_id, |job| {
        match req
            .holder
            .as_deref()
            .map(str::trim)
            .filter(|h| !h.is_empty())
        {
            Some(holder) => {
                job.extra.insert(HOLD.into(), Value::from(holder));
            }
            None => {
                job.extra.remove(HOLD);
            }
        }
        Ok(())
    })
    .await
}
