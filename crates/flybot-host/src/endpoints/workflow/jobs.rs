//! The running layer's endpoints (#1316): `workflow-run` makes the job
//! card, `workflow-fact` and `workflow-hold` edit it; after every write here
//! the planner runs inside the same change (`workflow_job::drive`) and the
//! cards it opened are announced like any board write, so the task drive
//! offers them and the beat re-plans nothing twice.

use crate::workflows::Workflows;
use crate::workflows::job::{HOLD, PlanAnswer, put_fact};
use crate::workflows::start::{edit_job, start};
use flybot_core::access::Actor;
use flybot_core::workflow::artifact::parse_spec;
use flybot_protocol::ApiError;
use flybot_protocol::workflow::{WorkflowFactRecord, WorkflowHold, WorkflowRun};
use serde_json::{Value, json};

/// `workflow-run {workflow, roomId, botId, title, inputs?}` → the job and
/// what opened: `{jobId, workflow, open, refused, done}`.
pub async fn run(wf: &Workflows, actor: &Actor, req: WorkflowRun) -> Result<PlanAnswer, ApiError> {
    start(wf, actor, req, None).await
}

/// `workflow-fact {jobId, spec, ...}` → the plan after recording the fact.
pub async fn record_fact(
    wf: &Workflows,
    actor: &Actor,
    req: WorkflowFactRecord,
) -> Result<PlanAnswer, ApiError> {
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
    edit_job(wf, actor, &req.job_id, |job| {
        put_fact(job, spec.key(), record);
        Ok(())
    })
    .await
}

/// `workflow-hold {jobId, holder?}` → the plan under the hold (#1337).
pub async fn hold(
    wf: &Workflows,
    actor: &Actor,
    req: WorkflowHold,
) -> Result<PlanAnswer, ApiError> {
    edit_job(wf, actor, &req.job_id, |job| {
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
