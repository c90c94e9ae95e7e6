//! The workflow endpoints' answers (#1272, #1299, #1316): the library's
//! rows, one opened definition, what a save wrote, and a job's plan. The
//! column, layout and preview shapes belong to core's workflow rules and
//! travel as JSON values here.

use crate::workflow::WorkflowDefinition;
use serde::Serialize;
use serde_json::Value;

/// `workflows {}` lists the library; `workflows {id}` opens one definition.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum WorkflowsAnswer {
    List(WorkflowList),
    Opened(Box<WorkflowOpened>),
}

/// `workflows {}` → `{workflows, default}`.
#[derive(Debug, Clone, Serialize)]
pub struct WorkflowList {
    pub workflows: Vec<WorkflowRow>,
    pub default: Option<String>,
}

/// One definition in the library's list.
#[derive(Debug, Clone, Serialize)]
pub struct WorkflowRow {
    pub id: String,
    pub name: String,
    pub preset: bool,
    pub nodes: usize,
    pub default: bool,
}

/// `workflows {id, node?}` → `{workflow}`.
#[derive(Debug, Clone, Serialize)]
pub struct WorkflowOpened {
    pub workflow: WorkflowView,
}

/// An opened definition with its canonical bytes, columns, layout and the
/// guard preview of one node.
#[derive(Debug, Clone, Serialize)]
pub struct WorkflowView {
    pub id: String,
    pub preset: bool,
    pub default: bool,
    pub definition: WorkflowDefinition,
    pub bytes: String,
    pub columns: Value,
    pub layout: Value,
    pub preview: NodePreview,
}

/// The guard preview of one node: `{node, rows}`.
#[derive(Debug, Clone, Serialize)]
pub struct NodePreview {
    pub node: String,
    pub rows: Value,
}

/// `workflow-save` → `{id, changed}`: `changed` is false when the file
/// already held these bytes.
#[derive(Debug, Clone, Serialize)]
pub struct WorkflowSaved {
    pub id: String,
    pub changed: bool,
}

/// `workflow-customize` → `{id, changed, definition}`.
#[derive(Debug, Clone, Serialize)]
pub struct WorkflowCustomized {
    pub id: String,
    pub changed: bool,
    pub definition: WorkflowDefinition,
}

/// `workflow-set-default` → `{default, changed}`.
#[derive(Debug, Clone, Serialize)]
pub struct DefaultSet {
    pub default: String,
    pub changed: bool,
}

/// `workflow-run`, `workflow-fact`, `workflow-hold` →
/// `{jobId, workflow, open, refused, done}`: the cards the planner opened
/// (`O`) and the nodes it refused (`R`), as core's planner writes them.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct JobPlan<O, R> {
    pub job_id: String,
    pub workflow: String,
    pub open: Vec<O>,
    pub refused: Vec<R>,
    pub done: bool,
}
