//! A workflow job on the board (#1316): the job card carries its workflow
//! id, the facts read for it and any hold; `drive` runs the planner inside
//! a change and opens each card it answers as a queue item for the node's
//! role (unassigned until a member claims it, #1247), parented to the job
//! and naming its workflow and node. The cards already under the job are
//! the record, so a replay opens nothing twice.

use super::Workflows;
use super::library::definitions;
use super::run_bot::{RUN_BOT, open_run_bot};
use crate::ids::new_id;
use flybot_core::access::Actor;
use flybot_core::tasks::claim::assign_to_run_bot;
use flybot_core::tasks::queue;
use flybot_core::workflow::artifact::{Artifact, Fact, Facts, parse_spec};
use flybot_core::workflow::definition::node;
use flybot_core::workflow::plan::{
    OpenCard, Plan, PlanCard, PlanRequest, RefusedNode, job_done, plan_job,
};
use flybot_protocol::ApiError;
use flybot_protocol::answers::JobPlan;
use flybot_protocol::state::{Task, TaskStatus, TeamState};
use flybot_protocol::task::TaskFields;
use flybot_protocol::task_requests::TaskEnqueue;
use flybot_protocol::workflow::WorkflowDefinition;
use flybot_store::Change;
use serde_json::{Map, Value};

/// The job card's keys: its workflow, the facts read for it, its hold.
pub const WORKFLOW: &str = flybot_core::tasks::job_card::JOB_WORKFLOW;
pub const NODE: &str = "node";
pub const FACTS: &str = "workflowFacts";
pub const HOLD: &str = "hold";

/// The definition named `id`, a preset or a saved file.
pub fn definition(wf: &Workflows, id: &str) -> Result<WorkflowDefinition, ApiError> {
    definitions(wf)
        .into_iter()
        .map(|(def, _)| def)
        .find(|def| def.id == id)
        .ok_or_else(|| ApiError::not_found("workflow", id))
}

/// The workflow a job card runs: it names one and hangs under no card.
pub fn job_workflow(job: &Task) -> Option<&str> {
    let workflow = job.extra.get(WORKFLOW).and_then(Value::as_str)?;
    TaskFields::read(job)
        .parent_id
        .is_none()
        .then_some(workflow)
}

/// The facts a job card holds, as the engine reads them.
pub fn facts_of(job: &Task) -> Facts {
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

/// Writes one fact record on the job card under its canonical key.
pub fn put_fact(job: &mut Task, key: String, record: Value) {
    let facts = job
        .extra
        .entry(FACTS.to_owned())
        .or_insert_with(|| Value::Object(Map::new()));
    if !facts.is_object() {
        *facts = Value::Object(Map::new());
    }
    if let Value::Object(map) = facts {
        map.insert(key, record);
    }
}

/// The board as the planner reads it.
pub fn plan_cards(state: &TeamState) -> Vec<PlanCard> {
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

/// What a drive did: the plan, and the cards it wrote.
pub struct Driven {
    pub plan: Plan,
    pub written: Vec<String>,
}

/// Plans the job and opens its cards in this change; answers the plan, with
/// a node the queue refused (no member carries its role, the queue is full)
/// moved to `refused` in the queue's own sentence.
pub fn drive(
    change: &mut Change<'_>,
    actor: &Actor,
    def: &WorkflowDefinition,
    job_id: &str,
    model: &str,
) -> Result<Driven, ApiError> {
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
    let mut written = Vec::new();
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
                    // A node that names tools is done by a run Bot (#1373),
                    // which holds the card: the drive wakes it for it.
                    if let Some(n) = node(def, &card.node)
                        && let Some(bot) = open_run_bot(change, &job, n, &task, model)
                    {
                        task = assign_to_run_bot(&task, &bot.id, change.now_ms());
                        task.extra.insert(RUN_BOT.into(), Value::from(bot.id));
                    }
                    change.put_task(&task);
                    written.push(task.id.clone());
                }
                opened.push(card);
            }
            Err(error) => plan.refused.push(RefusedNode {
                node: card.node,
                refusal: Some(error.message),
                holder: None,
            }),
        }
    }
    plan.open = opened;
    Ok(Driven { plan, written })
}

/// A job's plan as `workflow-run`, `-fact` and `-hold` answer it.
pub type PlanAnswer = JobPlan<OpenCard, RefusedNode>;

/// `{jobId, workflow, open, refused, done}`.
pub fn plan_answer(def: &WorkflowDefinition, job: &Task, plan: Plan) -> PlanAnswer {
    JobPlan {
        job_id: job.id.clone(),
        workflow: def.id.clone(),
        open: plan.open,
        refused: plan.refused,
        done: job_done(def, &facts_of(job)),
    }
}
