//! The workflow tools (#1272, #1316): `run_workflow` starts a job on a
//! workflow (a preset or a saved file) in the room whose seat the call is
//! from, and `define_workflow` saves a definition. Neither is a run Bot's
//! (#1445): both reach past its own Session. The host runs them through
//! `WorkflowAccess`; the tools only turn the model's arguments into the
//! typed calls of `flybot_core::workflow::tools`.

mod access;
#[cfg(test)]
mod tests;

pub use access::{WorkflowAccess, WorkflowCaller};

use super::{Tool, ToolContext, ToolError, ToolResult};
use flybot_core::workflow::tools::{DefineWorkflowArgs, RunWorkflowArgs};
use flybot_protocol::tool_names;
use schemars::JsonSchema;
use serde::Deserialize;
use serde_json::Value;
use std::collections::BTreeMap;
use std::sync::Arc;

/// `run_workflow` arguments.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RunWorkflowToolArgs {
    /// The id of the workflow to run: a preset (`blank`, `repo-dev`) or a
    /// saved workflow's id.
    pub workflow: String,
    /// The job's title, as the board shows it.
    pub title: String,
    /// The facts the job brings in, by artifact spec (`text:topic`): each
    /// value is an object carrying the field its kind is revised by, such as
    /// `{"revision": "t1"}` for a text.
    #[serde(default)]
    pub inputs: BTreeMap<String, Value>,
}

/// `define_workflow` arguments.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DefineWorkflowToolArgs {
    /// The whole definition: `id` (lowercase letters, digits, hyphens),
    /// `name`, optional `description`, `inputs` and `deliverables`, `nodes`
    /// (each with `id`, `role`, `inputs`, `outputs`), `edges`
    /// (`"<node>.<artifact> -> <node>.<artifact>"`) and optional `loops`.
    pub definition: Value,
}

fn access(ctx: &ToolContext) -> Result<&Arc<dyn WorkflowAccess>, ToolError> {
    ctx.env
        .service::<dyn WorkflowAccess>("Workflows are not available here.")
}

fn caller(ctx: &ToolContext) -> WorkflowCaller {
    WorkflowCaller {
        bot_id: ctx.bot_id.clone(),
        session_id: ctx.session_id.clone(),
    }
}

/// The `run_workflow` tool.
pub struct RunWorkflow;

impl Tool for RunWorkflow {
    type Args = RunWorkflowToolArgs;

    fn name(&self) -> &'static str {
        tool_names::RUN_WORKFLOW
    }

    fn description(&self) -> &'static str {
        "Start a job on a workflow in this room: the board opens each node's card for its role as the node's inputs arrive. Call it from the room's seat."
    }

    async fn call(&self, ctx: &ToolContext, args: RunWorkflowToolArgs) -> ToolResult {
        let args = RunWorkflowArgs {
            workflow: args.workflow,
            title: args.title,
            inputs: args.inputs,
        };
        access(ctx)?
            .run(caller(ctx), args)
            .await
            .map_err(ToolError::Refused)
    }
}

/// The `define_workflow` tool.
pub struct DefineWorkflow;

impl Tool for DefineWorkflow {
    type Args = DefineWorkflowToolArgs;

    fn name(&self) -> &'static str {
        tool_names::DEFINE_WORKFLOW
    }

    fn description(&self) -> &'static str {
        "Save a workflow definition (nodes with a role, typed artifacts, edges, declared loops). A preset's id is read-only; the definition must validate against the team's roles."
    }

    async fn call(&self, ctx: &ToolContext, args: DefineWorkflowToolArgs) -> ToolResult {
        let args = DefineWorkflowArgs {
            definition: serde_json::from_value(args.definition).map_err(|error| {
                ToolError::Invalid(format!(
                    "The definition does not read as a workflow: {error}."
                ))
            })?,
        };
        access(ctx)?
            .define(caller(ctx), args)
            .await
            .map_err(ToolError::Refused)
    }
}

/// Both workflow tools.
pub fn workflow_tools() -> Vec<Arc<dyn super::DynTool>> {
    vec![Arc::new(RunWorkflow), Arc::new(DefineWorkflow)]
}
