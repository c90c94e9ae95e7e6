//! The workflow library: the presets and the home's saved definitions
//! (#1272, #1299), their checks before a write, and who saved them.

use super::Workflows;
use flybot_core::tasks::roles::bot_role;
use flybot_core::workflow::canonical::{is_writable_id, workflow_bytes};
use flybot_core::workflow::definition::is_workflow_id;
use flybot_core::workflow::presets::{is_preset, presets};
use flybot_core::workflow::tools::read_only_sentence;
use flybot_core::workflow::validate::validate;
use flybot_protocol::answers::WorkflowSaved;
use flybot_protocol::state::TeamState;
use flybot_protocol::workflow::WorkflowDefinition;
use flybot_protocol::{ApiError, ErrorCode};
use flybot_store::workflows::WorkflowFiles;
use std::collections::BTreeSet;

pub fn files(wf: &Workflows) -> WorkflowFiles {
    WorkflowFiles::new(&wf.home)
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

pub fn write_failed(what: &str, error: &std::io::Error) -> ApiError {
    tracing::warn!("could not write {what}: {error}");
    ApiError::new(
        ErrorCode::ReadOnly,
        format!("This wf could not write {what}; check that the home folder is writable."),
    )
}

/// Every definition the wf knows: the presets, then the home's files.
pub fn definitions(wf: &Workflows) -> Vec<(WorkflowDefinition, bool)> {
    let mut all: Vec<(WorkflowDefinition, bool)> =
        presets().into_iter().map(|def| (def, true)).collect();
    all.extend(
        files(wf)
            .list()
            .into_iter()
            .filter(|stored| !is_preset(&stored.definition.id))
            .map(|stored| (stored.definition, false)),
    );
    all
}

/// Refuses a definition that cannot be written under its id or cannot run.
pub fn check_writable(wf: &Workflows, def: &WorkflowDefinition) -> Result<(), ApiError> {
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
                "The workflow id {:?} is not a file name this wf writes; use lowercase letters, digits and hyphens.",
                def.id
            )
        };
        return Err(ApiError::invalid("definition.id", why));
    }
    let roles = wf.team().read(team_roles);
    validate(def, roles.as_ref()).map_err(|problems| {
        let sentences: Vec<String> = problems.iter().map(|p| p.sentence()).collect();
        ApiError::invalid("definition", sentences[0].clone()).with("problems", sentences)
    })
}

/// Saves `def` with `author` as the Bot that saved it (`None`: the owner's
/// own edit, which records no author, #1544).
pub fn save_by(
    wf: &Workflows,
    def: WorkflowDefinition,
    author: Option<&str>,
) -> Result<WorkflowSaved, ApiError> {
    check_writable(wf, &def)?;
    let changed = files(wf)
        .write(&def.id, &workflow_bytes(&def))
        .map_err(|error| write_failed(&format!("workflows/{}.json", def.id), &error))?;
    super::authors::record_author(wf, &def.id, author);
    Ok(WorkflowSaved {
        id: def.id,
        changed,
    })
}
