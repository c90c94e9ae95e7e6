//! The Project Assistant's endpoints (#1712, Stage 2.5): `project-memory`
//! (whoever may see the Project), `project-memory-write` (its owner) and
//! `project-digest` (its owner): today's digest built from the Project's
//! board, stored once in its memory and delivered once through the
//! out-of-app notifier when one is on. The day is Asia/Shanghai's, read on
//! the host's injected clock; a second run that day answers `skipped`. The
//! digest posts as the GitHub connector's account (`GITHUB_LOGIN` of the
//! ready `github` connector): with none, or on a shared host for a Project
//! the host's own user does not own, it refuses with nothing written and
//! escalates to the Project's owner as a notice of its own: the failure in
//! the assistant's ended turns (the owner's work view) and, when one is on,
//! out of the app, once a day. The digest lists the Project State files:
//! the files the assistant keeps in its working folder. The daily 09:00
//! task on the assistant's Session runs the same `run_digest` as the
//! Project's owner (`crate::schedules::digest`).

use crate::actor::{acting_member, journal_actor};
use crate::board::Board;
use crate::notify::OutOfApp;
use flybot_agent::session::Sessions;
use flybot_core::access::Actor;
use flybot_core::tasks::project_assistant::assistant_of;
use flybot_core::tasks::project_digest::{DigestBuild, build_digest, digest_day, digest_identity};
use flybot_core::tasks::project_memory::{memory_of, write_memory};
use flybot_core::tasks::projects::{self, can_manage, find_visible};
use flybot_protocol::project_memory::{DigestAnswer, ProjectMemoryAnswer, ProjectMemoryWrite};
use flybot_protocol::task_requests::ProjectById;
use flybot_protocol::{ApiError, ErrorCode};
use std::path::Path;

/// The plain variable of the `github` connector naming its account.
pub const GITHUB_LOGIN: &str = "GITHUB_LOGIN";
/// The most Project State files a digest names.
const STATE_FILES_MAX: usize = 50;

/// `project-memory {project}` → `{memory}`.
pub fn memory(
    board: &Board,
    actor: &Actor,
    req: ProjectById,
) -> Result<ProjectMemoryAnswer, ApiError> {
    board
        .team()
        .read(|state| memory_of(state, actor, &req.project))
        .map(|memory| ProjectMemoryAnswer { memory })
}

/// `project-memory-write {project, kind, text}` → `{memory}`.
pub async fn memory_write(
    board: &Board,
    actor: &Actor,
    req: ProjectMemoryWrite,
) -> Result<ProjectMemoryAnswer, ApiError> {
    let memory = board
        .team()
        .mutate(journal_actor(actor), |change| {
            let by = Some(acting_member(change, actor));
            let memory = write_memory(change.state(), actor, &req, by, change.now_ms())?;
            change.put_project_memory(&req.project, &memory);
            Ok(memory)
        })
        .await?;
    Ok(ProjectMemoryAnswer { memory })
}

/// What the digest runs with besides the board.
pub struct DigestParts<'a> {
    pub account: Option<String>,
    pub out_of_app: &'a OutOfApp,
    /// Now, on the host's injected clock (the schedules').
    pub now: u64,
    /// Where the escalation's in-app notice goes (the ended turns).
    pub sessions: &'a Sessions,
    /// The home, whose assistant's working folder holds the Project State.
    pub home: &'a Path,
}

/// `project-digest {project}` → `{digest, skipped}`.
pub async fn digest(
    board: &Board,
    actor: &Actor,
    parts: DigestParts<'_>,
    req: ProjectById,
) -> Result<DigestAnswer, ApiError> {
    run_digest(board, actor, &parts, &req.project).await
}

/// Today's digest of `project` as `actor`: stored once and delivered once,
/// or `skipped`; an escalation refuses with nothing written and notifies
/// the owner.
pub async fn run_digest(
    board: &Board,
    actor: &Actor,
    parts: &DigestParts<'_>,
    project: &str,
) -> Result<DigestAnswer, ApiError> {
    let now = parts.now;
    let team = board.team();
    let files = team
        .read(|state| assistant_of(state, project).map(|bot| bot.id.clone()))
        .map(|bot| {
            flybot_store::workspaces::workspace_files(parts.home, &bot, STATE_FILES_MAX)
                .map_err(|e| tracing::warn!("the Project State of {project} is unreadable: {e}"))
                .unwrap_or_default()
        })
        .unwrap_or_default();
    let built = team
        .mutate(journal_actor(actor), |change| {
            let state = change.state();
            let record = find_visible(state, actor, project)?.clone();
            if !can_manage(actor, &record) {
                return Err(ApiError::forbidden(
                    "That project belongs to another member; only its owner runs its digest.",
                ));
            }
            let login = digest_identity(state, &record, parts.account.as_deref()).map_err(|e| {
                ApiError::new(ErrorCode::Forbidden, e.sentence()).with("escalated", true)
            })?;
            let rows = projects::board(state, actor, project)?;
            let mut memory = state
                .project_memory
                .get(project)
                .cloned()
                .unwrap_or_default();
            // Signed `Written-by: Project Assistant (<Project name>)`.
            let name = record
                .get("name")
                .and_then(serde_json::Value::as_str)
                .unwrap_or("Project")
                .to_owned();
            let previous = memory.digest.as_ref();
            match build_digest(&record, &rows, &files, previous, (&name, &login), now) {
                DigestBuild::Skipped => Ok((memory.digest, true)),
                DigestBuild::Built(note) => {
                    memory.digest = Some(note.clone());
                    change.put_project_memory(project, &memory);
                    Ok((Some(note), false))
                }
            }
        })
        .await;
    let (digest, skipped) = match built {
        Ok(built) => built,
        Err(e) => {
            if e.details.get("escalated").is_some() {
                escalate(board, parts, project, &e.message, now).await;
            }
            return Err(e);
        }
    };
    if let (Some(note), false) = (&digest, skipped) {
        let key = format!("digest:{project}:{}", note.day);
        parts.out_of_app.announce(team, &key, &note.text).await;
    }
    Ok(DigestAnswer { digest, skipped })
}

/// The escalation's notice to the Project's owner, apart from the refusal:
/// a failure in the assistant's ended turns, which the owner's work view
/// lists, and one out-of-app message a day when one is on.
async fn escalate(board: &Board, parts: &DigestParts<'_>, project: &str, why: &str, now: u64) {
    tracing::warn!("the digest of {project} escalated: {why}");
    let team = board.team();
    let session = team.read(|state| assistant_of(state, project).map(|b| b.session_id.clone()));
    let text = format!("The Project Assistant did not post today's digest: {why}");
    if let Some(session) = session {
        parts
            .sessions
            .note_failure(&session, &format!("digest-{project}"), now, &text);
    }
    let key = format!("digest-escalated:{project}:{}", digest_day(now));
    parts.out_of_app.announce(team, &key, &text).await;
}
