//! A workflow definition as its file holds it (`workflows/<id>.json`, #1272
//! step 3): nodes with a role and typed artifacts, edges, declared loops.
//!
//! The field order of every struct here is the file's canonical key order
//! (the canonical bytes are written by `flybot-core`'s `workflow::canonical`),
//! and a field a definition does not state is `None` and left out, so a
//! load → save round trip is byte-identical. Unknown fields are refused:
//! a node names a `role` and there is no second spelling for it (#1291).

use serde::de::{self, Deserializer};
use serde::ser::Serializer;
use serde::{Deserialize, Serialize};
use serde_json::Value;

/// A whole definition.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WorkflowDefinition {
    /// The file name's stem: lowercase letters, digits and hyphens.
    pub id: String,
    /// What a person reads in the list.
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// Facts a job brings in from outside: no node has to produce them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inputs: Option<Vec<String>>,
    /// Facts the workflow hands out: no node has to consume them.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub deliverables: Option<Vec<String>>,
    pub nodes: Vec<WorkflowNode>,
    /// `<node>.<artifact> -> <node>.<artifact>`, one row per edge.
    #[serde(default)]
    pub edges: Vec<String>,
    /// The cycles the definition means to have; any other cycle is refused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loops: Option<Vec<WorkflowLoop>>,
}

/// One node: a step a role holds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WorkflowNode {
    pub id: String,
    /// The role that holds the node; its cards queue for this role (#1247).
    #[serde(default)]
    pub role: String,
    /// The board column; `false` draws none, absent keeps the node id (#1265).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub column: Option<NodeColumn>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub inputs: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub outputs: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub guards: Option<Vec<WorkflowGuard>>,
    /// The node's own wording for a missing or stale input (#1298); it may
    /// name `{node}`, `{spec}`, `{read}`, `{current}` and `{why}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refusal: Option<String>,
    /// Where the holder's name is read when it is not the role (a field of
    /// a fact, such as the verdict's Written-by).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub holder: Option<HolderSource>,
    /// The tools a run Bot on this node may use (connectors, the shell).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tools: Option<Vec<String>>,
}

/// A node's column: a named board column, or `false` for none (#1265).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NodeColumn {
    Named(String),
    Hidden,
}

impl Serialize for NodeColumn {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        match self {
            NodeColumn::Named(name) => serializer.serialize_str(name),
            NodeColumn::Hidden => serializer.serialize_bool(false),
        }
    }
}

impl<'de> Deserialize<'de> for NodeColumn {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        match Value::deserialize(deserializer)? {
            Value::String(name) => Ok(NodeColumn::Named(name)),
            Value::Bool(false) => Ok(NodeColumn::Hidden),
            other => Err(de::Error::custom(format!(
                "a column is a column name or false, not {other}"
            ))),
        }
    }
}

/// A check a node makes on a fact before it may start.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WorkflowGuard {
    /// The artifact spec the guard reads.
    pub fact: String,
    /// `present`, `fresh` or `equals`, kept as written (#1291).
    pub is: String,
    /// For `equals`: the field of the fact's value compared.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub field: Option<String>,
    /// For `equals`: the value the fact must have.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub value: Option<Value>,
    /// The guard's own wording when it refuses; it may name `{node}`,
    /// `{spec}`, `{field}`, `{expected}`, `{value}`, `{read}` and `{current}`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refusal: Option<String>,
}

/// Reads a holder's name from one field of one fact.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct HolderSource {
    pub fact: String,
    pub field: String,
}

/// A declared cycle: edges from `from` back to `to` are meant.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WorkflowLoop {
    pub from: String,
    pub to: String,
}

/// `workflows {id?}`: the list, or one definition opened.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WorkflowsRequest {
    pub id: Option<String>,
    /// With `id`: the node whose guard preview to show (the first guarded
    /// node when absent).
    pub node: Option<String>,
    /// With `id`: the job whose facts the preview reads (the newest job of
    /// this workflow the caller may open when absent).
    pub job_id: Option<String>,
}

/// `workflow-save {definition}`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WorkflowSave {
    pub definition: WorkflowDefinition,
}

/// `workflow-customize {from, id, name}`: copies a preset or a file.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WorkflowCustomize {
    pub from: String,
    pub id: String,
    pub name: String,
}

/// `workflow-set-default {id}`: the project's default workflow.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WorkflowSetDefault {
    pub id: String,
}

/// `workflow-run {workflow, roomId, botId, title, inputs?}`: starts a job on
/// a workflow in a room whose task lead is `botId` (#1316).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WorkflowRun {
    pub workflow: String,
    pub room_id: String,
    pub bot_id: String,
    pub title: String,
    /// The facts the job brings in, by artifact spec.
    #[serde(default)]
    pub inputs: std::collections::BTreeMap<String, Value>,
}

/// `workflow-fact {jobId, spec, revision?, current?, value?, unreadable?}`:
/// records one fact a reader got for a job, then plans the job again.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WorkflowFactRecord {
    pub job_id: String,
    pub spec: String,
    pub revision: Option<String>,
    /// The revision the source holds now, when it moved past `revision`.
    pub current: Option<String>,
    pub value: Option<Value>,
    /// Why nobody could read it; a fact with this is never a match.
    pub unreadable: Option<String>,
}

/// `workflow-hold {jobId, holder?}`: who holds the job's pull request;
/// none or blank lifts the hold (#1337).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct WorkflowHold {
    pub job_id: String,
    pub holder: Option<String>,
}
