//! A Project's memory (#1712): `state.projectMemory[<id>]`, read by whoever
//! may see the Project and written by its owner only. Keyed by Project id,
//! so one Project never reads another's entries; deleting the Project
//! deletes it (the host removes it with the record, `project-delete`).

use super::projects::{can_manage, find_visible, forbidden};
use crate::access::Actor;
use flybot_protocol::ApiError;
use flybot_protocol::project_memory::{MemoryKind, MemoryNote, ProjectMemory, ProjectMemoryWrite};
use flybot_protocol::state::TeamState;

/// The longest entry, in characters.
pub const NOTE_MAX: usize = 2_000;
/// Entries one kind keeps; the oldest go first.
pub const NOTES_KEPT: usize = 200;

/// `project-memory {project}`: the memory, empty when nothing is written.
pub fn memory_of(state: &TeamState, actor: &Actor, id: &str) -> Result<ProjectMemory, ApiError> {
    find_visible(state, actor, id)?;
    Ok(state.project_memory.get(id).cloned().unwrap_or_default())
}

/// `project-memory-write`: the memory with the entry appended, by `by` at
/// `now`; the owner only, and a blank or too long entry is refused.
pub fn write_memory(
    state: &TeamState,
    actor: &Actor,
    req: &ProjectMemoryWrite,
    by: Option<String>,
    now: u64,
) -> Result<ProjectMemory, ApiError> {
    let project = find_visible(state, actor, &req.project)?;
    if !can_manage(actor, project) {
        return Err(forbidden(project));
    }
    let text = req.text.trim();
    if text.is_empty() || text.chars().count() > NOTE_MAX {
        return Err(ApiError::invalid(
            "text",
            format!("An entry is 1 to {NOTE_MAX} characters."),
        ));
    }
    let mut memory = state
        .project_memory
        .get(&req.project)
        .cloned()
        .unwrap_or_default();
    let notes = match req.kind {
        MemoryKind::Decision => &mut memory.decisions,
        MemoryKind::Question => &mut memory.questions,
    };
    notes.push(MemoryNote {
        text: text.to_owned(),
        at: now,
        by,
    });
    let over = notes.len().saturating_sub(NOTES_KEPT);
    notes.drain(..over);
    Ok(memory)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::super::fixture::member;
    use super::super::projects::tests::with_project;
    use super::*;
    use flybot_protocol::ErrorCode;

    fn req(project: &str, kind: MemoryKind, text: &str) -> ProjectMemoryWrite {
        ProjectMemoryWrite {
            project: project.into(),
            kind,
            text: text.into(),
        }
    }

    #[test]
    /// Rule #1712.
    fn the_owner_writes_the_projects_memory_and_no_one_reads_another_projects() {
        let mut state = with_project(Some("member-a"));
        let a = member("member-a");
        let written = write_memory(
            &state,
            &a,
            &req("project-1", MemoryKind::Decision, " Use SQLite "),
            None,
            9,
        )
        .unwrap();
        assert_eq!(written.decisions[0].text, "Use SQLite");
        assert!(written.questions.is_empty());
        state.project_memory.insert("project-1".into(), written);
        assert_eq!(
            memory_of(&state, &a, "project-1").unwrap().decisions.len(),
            1
        );
        // Another member: not found to read, and a write is refused the same way.
        let b = member("member-b");
        let code = |r: Result<ProjectMemory, ApiError>| r.unwrap_err().code;
        assert_eq!(
            code(memory_of(&state, &b, "project-1")),
            ErrorCode::NotFound
        );
        assert_eq!(
            code(write_memory(
                &state,
                &b,
                &req("project-1", MemoryKind::Question, "x"),
                None,
                9
            )),
            ErrorCode::NotFound
        );
        assert_eq!(
            code(write_memory(
                &state,
                &a,
                &req("project-1", MemoryKind::Question, "  "),
                None,
                9
            )),
            ErrorCode::Invalid
        );
        assert_eq!(
            code(memory_of(&state, &a, "project-2")),
            ErrorCode::NotFound
        );
        // Bounded: the oldest entries go first.
        let mut memory = ProjectMemory::default();
        for n in 0..NOTES_KEPT + 3 {
            state
                .project_memory
                .insert("project-1".into(), memory.clone());
            memory = write_memory(
                &state,
                &a,
                &req("project-1", MemoryKind::Question, &format!("q{n}")),
                None,
                n as u64,
            )
            .unwrap();
        }
        assert_eq!(memory.questions.len(), NOTES_KEPT);
        assert_eq!(memory.questions[0].text, "q3");
    }
}
