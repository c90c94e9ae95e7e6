//! `WorkflowAccess`: what `run_workflow` and `define_workflow` may reach of
//! the running host. The host checks the call with the pure rules of
//! `flybot_core::workflow::tools`, starts the job (the planner opens its
//! first cards) or writes the definition's canonical bytes, and answers one
//! line for the model; a refusal is one sentence the model can act on.

use crate::tools::BoxFuture;
use flybot_core::workflow::tools::{DefineWorkflowArgs, RunWorkflowArgs};

/// Who is calling: the Bot and the Session its turn runs in (its own chat,
/// or its seat in a room).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkflowCaller {
    pub bot_id: String,
    pub session_id: String,
}

/// The host as the workflow tools see it.
pub trait WorkflowAccess: Send + Sync {
    /// Starts a job on a workflow in the caller's room; answers what opened.
    fn run<'a>(
        &'a self,
        caller: WorkflowCaller,
        args: RunWorkflowArgs,
    ) -> BoxFuture<'a, Result<String, String>>;

    /// Saves a definition with the caller as the Bot that saved it.
    fn define<'a>(
        &'a self,
        caller: WorkflowCaller,
        args: DefineWorkflowArgs,
    ) -> BoxFuture<'a, Result<String, String>>;
}
