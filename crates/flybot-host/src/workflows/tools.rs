//! `HostWorkflows`: `run_workflow` and `define_workflow` as the wf runs
//! them (`WorkflowAccess`). A run starts in the room whose seat the calling
//! Session is, under the room's task lead, through the same `start` as the
//! `workflow-run` endpoint, with the calling Bot among the job's caps
//! (#1544, #1582). A definition is checked by the pure
//! `check_define_workflow` and saved with the calling Bot as its author.

use super::Workflows;
use super::job::PlanAnswer;
use super::library::{save_by, team_roles};
use super::start::start;
use crate::board::track::{bot_actor, room_of_seat};
use flybot_agent::tools::BoxFuture;
use flybot_agent::tools::workflow::{WorkflowAccess, WorkflowCaller};
use flybot_core::tasks::roles::task_lead;
use flybot_core::workflow::tools::{DefineWorkflowArgs, RunWorkflowArgs, check_define_workflow};
use flybot_protocol::workflow::WorkflowRun;

/// The wf's side of the workflow tools.
pub(crate) struct HostWorkflows {
    pub workflows: Workflows,
}

/// One line for the model: the job, what opened, what waits and why.
fn run_line(answer: &PlanAnswer) -> String {
    let mut line = format!("Started job {} on {}.", answer.job_id, answer.workflow);
    let opened: Vec<&str> = answer.open.iter().map(|c| c.node.as_str()).collect();
    if !opened.is_empty() {
        line.push_str(&format!(" Opened: {}.", opened.join(", ")));
    }
    for sentence in answer.refused.iter().filter_map(|r| r.refusal.as_deref()) {
        line.push(' ');
        line.push_str(sentence);
    }
    line
}

async fn run(
    wf: &Workflows,
    caller: WorkflowCaller,
    args: RunWorkflowArgs,
) -> Result<String, String> {
    let (actor, room_id, lead) = wf
        .team()
        .read(|state| {
            let room_id = room_of_seat(state, &caller.bot_id, &caller.session_id)?;
            let lead = state
                .rooms
                .get(&room_id)
                .and_then(task_lead)
                .unwrap_or(&caller.bot_id)
                .to_owned();
            Some((bot_actor(state, &caller.bot_id), room_id, lead))
        })
        .ok_or_else(|| {
            "Run a workflow from a room's seat: its cards open on that room's board.".to_owned()
        })?;
    let req = WorkflowRun {
        workflow: args.workflow,
        room_id,
        bot_id: lead,
        title: args.title,
        inputs: args.inputs,
    };
    let answer = start(wf, &actor, req, Some(&caller.bot_id))
        .await
        .map_err(|error| error.message)?;
    Ok(run_line(&answer))
}

fn define(
    wf: &Workflows,
    caller: &WorkflowCaller,
    args: DefineWorkflowArgs,
) -> Result<String, String> {
    // A Bot writes the library for its owner (issue 29: the host owner's).
    wf.team()
        .read(|state| {
            let owner = state
                .bots
                .get(&caller.bot_id)
                .map(|bot| bot.owner_id.as_str());
            flybot_core::workflow::library::may_change_library(state, owner)
        })
        .map_err(|e| e.message)?;
    let roles = wf.team().read(team_roles);
    check_define_workflow(&args, roles.as_ref()).map_err(|sentences| sentences.join(" "))?;
    let id = args.definition.id.clone();
    let answer = save_by(wf, args.definition, Some(&caller.bot_id)).map_err(|e| e.message)?;
    Ok(if answer.changed {
        format!("Saved the workflow {id}.")
    } else {
        format!("The workflow {id} was already saved as given; nothing changed.")
    })
}

impl WorkflowAccess for HostWorkflows {
    fn run<'a>(
        &'a self,
        caller: WorkflowCaller,
        args: RunWorkflowArgs,
    ) -> BoxFuture<'a, Result<String, String>> {
        Box::pin(async move { run(&self.workflows, caller, args).await })
    }

    fn define<'a>(
        &'a self,
        caller: WorkflowCaller,
        args: DefineWorkflowArgs,
    ) -> BoxFuture<'a, Result<String, String>> {
        Box::pin(async move { define(&self.workflows, &caller, args) })
    }
}
