//! The pure half of the two Bot tools on workflows: `run_workflow` starts a
//! job on a definition with the facts the job brings in, `define_workflow`
//! saves a definition. Arguments are typed and checked here; wiring them to
//! a turn waits for the agent runtime.

use super::artifact::Fact;
use super::artifact::{Facts, artifact_from_value, canonical_key, parse_spec};
use super::canonical::is_writable_id;
use super::definition::{is_workflow_id, lists};
use super::presets::is_preset;
use super::validate::validate;
use flybot_protocol::workflow::WorkflowDefinition;
use serde::Deserialize;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

/// `run_workflow {workflow, title, inputs?}`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RunWorkflowArgs {
    /// The id of the workflow to run (a preset or a saved file).
    pub workflow: String,
    /// The job's title, as the board shows it.
    pub title: String,
    /// The facts the job brings in, by artifact spec: each value carries the
    /// field its kind's revision rule reads (a text's `revision`, ...).
    #[serde(default)]
    pub inputs: BTreeMap<String, Value>,
}

/// `define_workflow {definition}`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DefineWorkflowArgs {
    pub definition: WorkflowDefinition,
}

/// A checked `run_workflow` call: the workflow, the title, the input facts.
#[derive(Debug, Clone, PartialEq)]
pub struct RunWorkflowCall {
    pub workflow: String,
    pub title: String,
    pub facts: Facts,
}

/// Checks a `run_workflow` call against the definitions the host has.
pub fn check_run_workflow(
    args: &RunWorkflowArgs,
    definitions: &[WorkflowDefinition],
) -> Result<RunWorkflowCall, String> {
    let Some(def) = definitions.iter().find(|d| d.id == args.workflow) else {
        return Err(format!(
            "There is no workflow named {:?}; list the workflows and pick one of their ids.",
            args.workflow
        ));
    };
    let title = args.title.trim();
    if title.is_empty() {
        return Err("Give the job a title; it cannot be empty.".to_owned());
    }
    let mut facts = Facts::new();
    for (raw, value) in &args.inputs {
        let spec = parse_spec(raw).map_err(|error| error.sentence(raw))?;
        if !lists(def.inputs.as_ref(), raw) {
            return Err(format!(
                "The workflow {} takes no input {}; its inputs are {}.",
                def.id,
                canonical_key(raw),
                def.inputs.as_deref().unwrap_or(&[]).join(", ")
            ));
        }
        let Some(artifact) = artifact_from_value(spec, value.clone()) else {
            return Err(format!(
                "The input {} has no revision; give it the field its kind is revised by.",
                canonical_key(raw)
            ));
        };
        facts.insert(Fact::Read {
            artifact,
            current: None,
        });
    }
    Ok(RunWorkflowCall {
        workflow: def.id.clone(),
        title: title.to_owned(),
        facts,
    })
}

/// Checks a `define_workflow` call: a preset id is read-only, and the
/// definition must validate against the team's roles.
pub fn check_define_workflow(
    args: &DefineWorkflowArgs,
    team_roles: Option<&BTreeSet<String>>,
) -> Result<(), Vec<String>> {
    let def = &args.definition;
    if is_preset(&def.id) {
        return Err(vec![read_only_sentence(&def.id)]);
    }
    if !is_writable_id(&def.id) && is_workflow_id(&def.id) {
        return Err(vec![format!(
            "The id {} is reserved for the project's default; choose another id.",
            def.id
        )]);
    }
    validate(def, team_roles).map_err(|problems| problems.iter().map(|p| p.sentence()).collect())
}

/// The refusal for writing a preset (`workflow/preset-read-only`).
pub fn read_only_sentence(id: &str) -> String {
    format!(
        "The workflow {id} is a preset and is never written; Customize it to save a copy under a new id."
    )
}
