//! The Project Assistant's endpoints (#1712, Stage 2.5): `project-memory`
//! (whoever may see the Project), `project-memory-write` (its owner) and
//! `project-digest` (its owner): today's digest built from the Project's
//! board, stored once in its memory and delivered once through the
//! out-of-app notifier when one is on. The day is Asia/Shanghai's, read on
//! the host's injected clock; a second run that day answers `skipped`. The
//! digest posts as the GitHub connector's account (`GITHUB_LOGIN` of the
//! ready `github` connector): with none, or on a shared host for a Project
//! the host's own user does not own, it refuses and escalates to the
//! caller with nothing written.

use crate::actor::{acting_member, journal_actor};
use crate::board::Board;
use crate::notify::OutOfApp;
use crate::schedules::ScheduleClock;
use flybot_core::access::Actor;
use flybot_core::tasks::project_digest::{DigestBuild, build_digest, digest_identity};
use flybot_core::tasks::project_memory::{memory_of, write_memory};
use flybot_core::tasks::projects::{self, can_manage, find_visible};
use flybot_protocol::project_memory::{DigestAnswer, ProjectMemoryAnswer, ProjectMemoryWrite};
use flybot_protocol::task_requests::ProjectById;
use flybot_protocol::{ApiError, ErrorCode};
use serde_json::Value;

/// The plain variable of the `github` connector naming its account.
pub const GITHUB_LOGIN: &str = "GITHUB_LOGIN";

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
    pub clock: &'a ScheduleClock,
}

/// `project-digest {project}` → `{digest, skipped}`.
pub async fn digest(
    board: &Board,
    actor: &Actor,
    parts: DigestParts<'_>,
    req: ProjectById,
) -> Result<DigestAnswer, ApiError> {
    let now = (parts.clock.0)();
    let team = board.team();
    let built = team
        .mutate(journal_actor(actor), |change| {
            let state = change.state();
            let project = find_visible(state, actor, &req.project)?.clone();
            if !can_manage(actor, &project) {
                return Err(ApiError::forbidden(
                    "That project belongs to another member; only its owner runs its digest.",
                ));
            }
            let login =
                digest_identity(state, &project, parts.account.as_deref()).map_err(|e| {
                    ApiError::new(ErrorCode::Forbidden, e.sentence()).with("escalated", true)
                })?;
            let rows = projects::board(state, actor, &req.project)?;
            let mut memory = state
                .project_memory
                .get(&req.project)
                .cloned()
                .unwrap_or_default();
            let name = project
                .get("name")
                .and_then(Value::as_str)
                .unwrap_or("Project")
                .to_owned();
            let build = build_digest(
                &project,
                &rows,
                &[],
                memory.digest.as_ref(),
                (&name, &login),
                now,
            );
            match build {
                DigestBuild::Skipped => Ok((memory.digest, true)),
                DigestBuild::Built(note) => {
                    memory.digest = Some(note.clone());
                    change.put_project_memory(&req.project, &memory);
                    Ok((Some(note), false))
                }
            }
        })
        .await;
    let (digest, skipped) = built.inspect_err(|e| {
        if e.details.get("escalated").is_some() {
            tracing::warn!("the digest of {} escalated: {}", req.project, e.message);
        }
    })?;
    if let (Some(note), false) = (&digest, skipped) {
        let key = format!("digest:{}:{}", req.project, note.day);
        parts.out_of_app.announce(team, &key, &note.text).await;
    }
    Ok(DigestAnswer { digest, skipped })
}
