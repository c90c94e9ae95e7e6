//! The workflow endpoints (#1272 step 3, #1299): `workflows` lists the
//! presets and the home's `workflows/<id>.json` files or opens one
//! (definition, bytes, columns, layout, guard preview); `workflow-save`
//! validates against the roster's roles and writes canonical bytes only when
//! they changed; `workflow-customize` copies a preset; `workflow-set-default`
//! names the project's default. The files are not the team's state, so these
//! writes do not go through `Team::mutate` (the store's workflow files are
//! their one writer).

use crate::workflows::Workflows;
use crate::workflows::job::{facts_of, job_workflow};
use crate::workflows::library::{check_writable, definitions, files, save_by, write_failed};
use flybot_core::access::Actor;
use flybot_core::tasks::read::Viewer;
use flybot_core::workflow::artifact::Facts;
use flybot_core::workflow::canonical::{copy_of_preset, workflow_bytes};
use flybot_core::workflow::columns::workflow_columns;
use flybot_core::workflow::enter::preview_node;
use flybot_core::workflow::layout::layout_workflow;
use flybot_core::workflow::library::may_change_library;
use flybot_core::workflow::presets::preset;
use flybot_protocol::ApiError;
use flybot_protocol::answers::{
    DefaultSet, NodePreview, WorkflowCustomized, WorkflowList, WorkflowOpened, WorkflowRow,
    WorkflowSaved, WorkflowView, WorkflowsAnswer,
};
use flybot_protocol::workflow::{
    WorkflowCustomize, WorkflowSave, WorkflowSetDefault, WorkflowsRequest,
};
use serde_json::Value;

/// `workflows {}` → `{workflows, default}`; `workflows {id, node?}` →
/// `{workflow}` with definition, bytes, columns, layout and preview.
pub fn list_or_open(
    wf: &Workflows,
    actor: &Actor,
    req: WorkflowsRequest,
) -> Result<WorkflowsAnswer, ApiError> {
    let store = files(wf);
    let default = store.default_id();
    let Some(id) = req.id else {
        let workflows = definitions(wf)
            .iter()
            .map(|(def, is_preset)| WorkflowRow {
                id: def.id.clone(),
                name: def.name.clone(),
                preset: *is_preset,
                nodes: def.nodes.len(),
                default: default.as_deref() == Some(def.id.as_str()),
            })
            .collect();
        return Ok(WorkflowsAnswer::List(WorkflowList { workflows, default }));
    };
    let (definition, bytes, is_preset) = match preset(&id) {
        Some(def) => {
            let bytes = workflow_bytes(&def);
            (def, bytes, true)
        }
        None => match store.read(&id) {
            Ok(Some(stored)) => (stored.definition, stored.bytes, false),
            Ok(None) => return Err(ApiError::not_found("workflow", &id)),
            Err(error) => {
                tracing::warn!("{error}");
                return Err(ApiError::invalid(
                    "id",
                    format!("The workflow file {id}.json does not parse; fix or remove it."),
                ));
            }
        },
    };
    let node = match req.node {
        Some(node) if definition.nodes.iter().any(|n| n.id == node) => node,
        Some(node) => return Err(ApiError::not_found("node", &node)),
        None => definition
            .nodes
            .iter()
            .find(|n| n.guards.as_ref().is_some_and(|g| !g.is_empty()))
            .or(definition.nodes.first())
            .map(|n| n.id.clone())
            .unwrap_or_default(),
    };
    // The facts a job of this workflow holds, read as `enter_node` reads
    // them: the preview and the planner cannot disagree.
    let facts = preview_facts(wf, actor, &definition.id, req.job_id.as_deref());
    let preview = preview_node(&definition, &node, Ok(&facts));
    Ok(WorkflowsAnswer::Opened(Box::new(WorkflowOpened {
        workflow: WorkflowView {
            id: definition.id.clone(),
            preset: is_preset,
            default: default.as_deref() == Some(definition.id.as_str()),
            bytes: String::from_utf8_lossy(&bytes).into_owned(),
            columns: json_of(&workflow_columns(&definition)),
            layout: json_of(&layout_workflow(&definition)),
            preview: NodePreview {
                node,
                rows: json_of(&preview),
            },
            definition,
        },
    })))
}

/// The facts of job `job_id`, or of the newest job running `workflow`, as
/// far as `actor` may open the job card (#1723); none when there is no job.
fn preview_facts(wf: &Workflows, actor: &Actor, workflow: &str, job_id: Option<&str>) -> Facts {
    wf.team().read(|state| {
        let viewer = Viewer::new(state, actor);
        state
            .tasks
            .values()
            .filter(|t| job_workflow(t) == Some(workflow))
            .filter(|t| job_id.is_none_or(|id| t.id == id))
            .filter(|t| viewer.may_open(state, actor, t))
            .max_by_key(|t| (t.updated_at, t.created_at))
            .map(facts_of)
            .unwrap_or_default()
    })
}

/// A core rule's record as the answer carries it; these records are plain
/// data that always serialize.
fn json_of<T: serde::Serialize>(record: &T) -> Value {
    serde_json::to_value(record).unwrap_or(Value::Null)
}

/// The library's writes are the host owner's (issue 29, core
/// `workflow::library`).
fn owner_only(wf: &Workflows, actor: &Actor) -> Result<(), ApiError> {
    wf.team()
        .read(|state| may_change_library(state, actor.member_id(state).as_deref()))
}

/// `workflow-save {definition}` → `{id, changed}` (acceptance 7).
pub fn save(wf: &Workflows, actor: &Actor, req: WorkflowSave) -> Result<WorkflowSaved, ApiError> {
    owner_only(wf, actor)?;
    save_by(wf, req.definition, None)
}

/// `workflow-customize {from, id, name}` → `{id, changed, definition}`: the
/// source with a new id and name and nothing else (acceptance 6).
pub fn customize(
    wf: &Workflows,
    actor: &Actor,
    req: WorkflowCustomize,
) -> Result<WorkflowCustomized, ApiError> {
    owner_only(wf, actor)?;
    let source = match preset(&req.from) {
        Some(def) => def,
        None => match files(wf).read(&req.from) {
            Ok(Some(stored)) => stored.definition,
            Ok(None) | Err(_) => return Err(ApiError::not_found("workflow", &req.from)),
        },
    };
    let name = flybot_core::names::clean_name("name", &req.name)?;
    let copy = copy_of_preset(&source, req.id.trim(), &name);
    if matches!(files(wf).read(&copy.id), Ok(Some(_))) {
        return Err(ApiError::invalid(
            "id",
            format!(
                "A workflow with the id {} already exists; choose another id.",
                copy.id
            ),
        ));
    }
    check_writable(wf, &copy)?;
    let changed = files(wf)
        .write(&copy.id, &workflow_bytes(&copy))
        .map_err(|error| write_failed(&format!("workflows/{}.json", copy.id), &error))?;
    crate::workflows::authors::record_author(wf, &copy.id, None);
    Ok(WorkflowCustomized {
        id: copy.id.clone(),
        changed,
        definition: copy,
    })
}

/// `workflow-set-default {id}` → `{default, changed}`.
pub fn set_default(
    wf: &Workflows,
    actor: &Actor,
    req: WorkflowSetDefault,
) -> Result<DefaultSet, ApiError> {
    owner_only(wf, actor)?;
    let known = definitions(wf).iter().any(|(def, _)| def.id == req.id);
    if !known {
        return Err(ApiError::not_found("workflow", &req.id));
    }
    let changed = files(wf)
        .set_default(&req.id)
        .map_err(|error| write_failed("workflows/project.json", &error))?;
    Ok(DefaultSet {
        default: req.id,
        changed,
    })
}
