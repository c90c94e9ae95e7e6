//! The workflow endpoints (#1272 step 3, #1299): `workflows` lists the
//! presets and the home's `workflows/<id>.json` files or opens one
//! (definition, bytes, columns, layout, guard preview); `workflow-save`
//! validates against the roster's roles and writes canonical bytes only when
//! they changed; `workflow-customize` copies a preset; `workflow-set-default`
//! names the project's default. The files are not the team's state, so these
//! writes do not go through `Host::mutate` (the store's workflow files are
//! their one writer).

use crate::host::Host;
use flybot_core::access::Actor;
use flybot_core::tasks::roles::bot_role;
use flybot_core::workflow::canonical::{copy_of_preset, is_writable_id, workflow_bytes};
use flybot_core::workflow::columns::workflow_columns;
use flybot_core::workflow::definition::is_workflow_id;
use flybot_core::workflow::enter::preview_node;
use flybot_core::workflow::layout::layout_workflow;
use flybot_core::workflow::presets::{is_preset, preset, presets};
use flybot_core::workflow::tools::read_only_sentence;
use flybot_core::workflow::validate::validate;
use flybot_protocol::state::TeamState;
use flybot_protocol::workflow::{
    WorkflowCustomize, WorkflowDefinition, WorkflowSave, WorkflowSetDefault, WorkflowsRequest,
};
use flybot_protocol::{ApiError, ErrorCode};
use flybot_store::workflows::WorkflowFiles;
use serde_json::{Value, json};
use std::collections::BTreeSet;

/// Why the open view's preview has no readings: this host has no fact
/// reader wired yet, and a reader that answered nothing passes no row.
const NO_READER: &str = "no reader has answered for this workflow yet";

fn files(host: &Host) -> WorkflowFiles {
    WorkflowFiles::new(&host.config().home)
}

/// The roster's roles: the role each Bot carries (the task model's
/// `bot_role`, #1720). A roster where no Bot carries a role is no team to
/// check, as an empty roster is (#1272).
pub fn team_roles(state: &TeamState) -> Option<BTreeSet<String>> {
    let roles: BTreeSet<String> = state
        .bots
        .values()
        .filter(|bot| !bot.run)
        .filter_map(bot_role)
        .map(str::to_owned)
        .collect();
    (!roles.is_empty()).then_some(roles)
}

fn write_failed(what: &str, error: &std::io::Error) -> ApiError {
    tracing::warn!("could not write {what}: {error}");
    ApiError::new(
        ErrorCode::ReadOnly,
        format!("This host could not write {what}; check that the home folder is writable."),
    )
}

/// Every definition the host knows: the presets, then the home's files.
pub fn definitions(host: &Host) -> Vec<(WorkflowDefinition, bool)> {
    let mut all: Vec<(WorkflowDefinition, bool)> =
        presets().into_iter().map(|def| (def, true)).collect();
    all.extend(
        files(host)
            .list()
            .into_iter()
            .filter(|stored| !is_preset(&stored.definition.id))
            .map(|stored| (stored.definition, false)),
    );
    all
}

/// `workflows {}` → `{workflows, default}`; `workflows {id, node?}` →
/// `{workflow}` with definition, bytes, columns, layout and preview.
pub fn list_or_open(host: &Host, _actor: &Actor, req: WorkflowsRequest) -> Result<Value, ApiError> {
    let store = files(host);
    let default = store.default_id();
    let Some(id) = req.id else {
        let rows: Vec<Value> = definitions(host)
            .iter()
            .map(|(def, is_preset)| {
                json!({
                    "id": def.id,
                    "name": def.name,
                    "preset": is_preset,
                    "nodes": def.nodes.len(),
                    "default": default.as_deref() == Some(def.id.as_str()),
                })
            })
            .collect();
        return Ok(json!({"workflows": rows, "default": default}));
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
    let preview = preview_node(&definition, &node, Err(NO_READER));
    Ok(json!({"workflow": {
        "id": definition.id,
        "preset": is_preset,
        "default": default.as_deref() == Some(definition.id.as_str()),
        "definition": definition,
        "bytes": String::from_utf8_lossy(&bytes),
        "columns": workflow_columns(&definition),
        "layout": layout_workflow(&definition),
        "preview": {"node": node, "rows": preview},
    }}))
}

/// Refuses a definition that cannot be written under its id or cannot run.
fn check_writable(host: &Host, def: &WorkflowDefinition) -> Result<(), ApiError> {
    if is_preset(&def.id) {
        return Err(
            ApiError::new(ErrorCode::PresetReadOnly, read_only_sentence(&def.id))
                .with("id", def.id.as_str()),
        );
    }
    if !is_writable_id(&def.id) {
        let why = if is_workflow_id(&def.id) {
            format!("The id {} is reserved; choose another id.", def.id)
        } else {
            format!(
                "The workflow id {:?} is not a file name this host writes; use lowercase letters, digits and hyphens.",
                def.id
            )
        };
        return Err(ApiError::invalid("definition.id", why));
    }
    let roles = host.store().read(team_roles);
    validate(def, roles.as_ref()).map_err(|problems| {
        let sentences: Vec<String> = problems.iter().map(|p| p.sentence()).collect();
        ApiError::invalid("definition", sentences[0].clone()).with("problems", sentences)
    })
}

/// `workflow-save {definition}` → `{id, changed}` (acceptance 7).
pub fn save(host: &Host, _actor: &Actor, req: WorkflowSave) -> Result<Value, ApiError> {
    save_by(host, req.definition, None)
}

/// Saves `def` with `author` as the Bot that saved it (`None`: the owner's
/// own edit, which records no author, #1544).
pub fn save_by(
    host: &Host,
    def: WorkflowDefinition,
    author: Option<&str>,
) -> Result<Value, ApiError> {
    check_writable(host, &def)?;
    let changed = files(host)
        .write(&def.id, &workflow_bytes(&def))
        .map_err(|error| write_failed(&format!("workflows/{}.json", def.id), &error))?;
    super::workflow_authors::record_author(host, &def.id, author);
    Ok(json!({"id": def.id, "changed": changed}))
}

/// `workflow-customize {from, id, name}` → `{id, changed, definition}`: the
/// source with a new id and name and nothing else (acceptance 6).
pub fn customize(host: &Host, _actor: &Actor, req: WorkflowCustomize) -> Result<Value, ApiError> {
    let source = match preset(&req.from) {
        Some(def) => def,
        None => match files(host).read(&req.from) {
            Ok(Some(stored)) => stored.definition,
            Ok(None) | Err(_) => return Err(ApiError::not_found("workflow", &req.from)),
        },
    };
    let name = flybot_core::names::clean_name("name", &req.name)?;
    let copy = copy_of_preset(&source, req.id.trim(), &name);
    if matches!(files(host).read(&copy.id), Ok(Some(_))) {
        return Err(ApiError::invalid(
            "id",
            format!(
                "A workflow with the id {} already exists; choose another id.",
                copy.id
            ),
        ));
    }
    check_writable(host, &copy)?;
    let changed = files(host)
        .write(&copy.id, &workflow_bytes(&copy))
        .map_err(|error| write_failed(&format!("workflows/{}.json", copy.id), &error))?;
    super::workflow_authors::record_author(host, &copy.id, None);
    Ok(json!({"id": copy.id, "changed": changed, "definition": copy}))
}

/// `workflow-set-default {id}` → `{default, changed}`.
pub fn set_default(
    host: &Host,
    _actor: &Actor,
    req: WorkflowSetDefault,
) -> Result<Value, ApiError> {
    let known = definitions(host).iter().any(|(def, _)| def.id == req.id);
    if !known {
        return Err(ApiError::not_found("workflow", &req.id));
    }
    let changed = files(host)
        .set_default(&req.id)
        .map_err(|error| write_failed("workflows/project.json", &error))?;
    Ok(json!({"default": req.id, "changed": changed}))
}
