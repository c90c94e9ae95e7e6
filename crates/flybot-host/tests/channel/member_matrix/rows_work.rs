//! The matrix's rows for the task board, Projects, queues, workflows and
//! schedules. A row marked "a hole issue 29 closed" failed before that
//! issue's owner checks.

use super::Row::{self, Answers, OwnOnly, Refused};
use super::setup::Ada;
use serde_json::{Value, json};

/// Bob, who has his own Bot `bobs`, aims every body at Ada's records.
pub fn rows(a: &Ada, bobs: &str) -> Vec<(&'static str, Row)> {
    let mut rows = workflows(a, bobs);
    rows.extend(projects(a));
    rows.extend(cards(a));
    rows.extend(queues(a));
    rows.extend(schedules(a));
    rows
}

/// The workflow library is one per host: reading it is open to every
/// member (presets and saved flows alike), writing it is the owner's. If
/// issue 29 settles on a library per member instead, the three library
/// writes become `OwnOnly`.
fn workflows(a: &Ada, bobs: &str) -> Vec<(&'static str, Row)> {
    let (flow, room) = (a.workflow.as_str(), a.room.as_str());
    vec![
        ("workflows", Answers(json!({"id": flow}))),
        // A hole issue 29 closed: the library is writable by any member; Bob's save
        // overwrites Ada's flow (answers 200 today).
        (
            "workflow-save",
            Refused(json!({"definition": definition(flow)}), "bot/forbidden"),
        ),
        // A hole issue 29 closed: any member adds to the library (answers 200 today).
        // Customizing into Ada's own id is refused `bot/invalid` (the id is
        // taken) before any owner check, so the copy gets a fresh id.
        (
            "workflow-customize",
            Refused(
                json!({"from": flow, "id": "bob-flow", "name": "Mine"}),
                "bot/forbidden",
            ),
        ),
        // A hole issue 29 closed: any member changes the owner's default (200 today).
        (
            "workflow-set-default",
            Refused(json!({"id": flow}), "bot/forbidden"),
        ),
        (
            "workflow-run",
            Refused(
                json!({"workflow": flow, "roomId": room, "botId": a.lead, "title": "x"}),
                "bot/forbidden",
            ),
        ),
        // A hole issue 29 closed: the refusal names Ada's lead Bot, an id Bob did not
        // send and may not see.
        (
            "workflow-fact",
            Refused(
                json!({"jobId": a.job, "spec": "text:topic", "revision": "9"}),
                "bot/forbidden",
            ),
        ),
        // A hole issue 29 closed: as `workflow-fact`, the refusal names Ada's lead Bot.
        (
            "workflow-hold",
            Refused(json!({"jobId": a.job, "holder": bobs}), "bot/forbidden"),
        ),
    ]
}

/// Projects, narrowed like cards (issue 29): another owner's Project is
/// one Bob cannot see, so its reads answer `bot/not-found`.
fn projects(a: &Ada) -> Vec<(&'static str, Row)> {
    let (room, project) = (a.room.as_str(), a.project.as_str());
    vec![
        // A hole issue 29 closed: the list shows Ada's Project, its name and id.
        ("projects", Answers(json!({}))),
        // A hole issue 29 closed: Bob's new Project shows in Ada's `projects` (the
        // list is not narrowed), which the matrix sees as a change to what
        // Ada reads.
        (
            "project-create",
            OwnOnly(
                "a new Project is the caller's",
                json!({"name": "Bob's site"}),
            ),
        ),
        // A hole issue 29 closed: answers 200 with Ada's Project (its name).
        (
            "project-read",
            Refused(json!({"project": project}), "bot/not-found"),
        ),
        // A hole issue 29 closed: the refusal echoes the name of Ada's Project.
        (
            "project-bind",
            Refused(json!({"roomId": room, "project": null}), "bot/forbidden"),
        ),
        // A hole issue 29 closed: answers 200 with Ada's Project bound to her room.
        (
            "project-of",
            Refused(json!({"roomId": room}), "bot/not-found"),
        ),
        // A hole issue 29 closed: answers 200 (an empty board of Ada's Project).
        (
            "project-board",
            Refused(json!({"project": project}), "bot/not-found"),
        ),
        // A hole issue 29 closed: answers bot/forbidden, echoing the Project's name.
        (
            "project-delete",
            Refused(json!({"project": project}), "bot/not-found"),
        ),
        // The Project Assistant (#1712): its memory and digest are the
        // Project's owner's.
        (
            "project-memory",
            Refused(json!({"project": project}), "bot/not-found"),
        ),
        (
            "project-memory-write",
            Refused(
                json!({"project": project, "kind": "decision", "text": "x"}),
                "bot/not-found",
            ),
        ),
        (
            "project-digest",
            Refused(json!({"project": project}), "bot/not-found"),
        ),
    ]
}

/// Moves of Ada's cards, each card in a status the move accepts, so only
/// the owner check stands between Bob and the move. A move of a card Bob
/// cannot manage answers `bot/forbidden`.
///
/// A hole issue 29 closed: every move but `task-post-result` refuses with the card's
/// title in its message ("Only the person who asked for \"…\" can move
/// it.", `flybot_core::tasks::machine::forbidden`), a title Bob may not see.
fn cards(a: &Ada) -> Vec<(&'static str, Row)> {
    let forbidden = |body: Value| Refused(body, "bot/forbidden");
    vec![
        ("tasks", Answers(json!({"archive": true, "botId": a.bot}))),
        (
            "task-create",
            forbidden(json!({"botId": a.bot, "title": "Planted"})),
        ),
        (
            "task-update",
            forbidden(json!({"id": a.card("task-update"), "note": "Changed."})),
        ),
        (
            "task-accept",
            forbidden(json!({"id": a.card("task-accept")})),
        ),
        ("task-start", forbidden(json!({"id": a.card("task-start")}))),
        (
            "task-return",
            forbidden(json!({"id": a.card("task-return"), "summary": "Done."})),
        ),
        (
            "task-accept-result",
            forbidden(json!({"id": a.card("task-accept-result")})),
        ),
        (
            "task-cancel",
            forbidden(json!({"id": a.card("task-cancel")})),
        ),
        (
            "task-archive",
            forbidden(json!({"id": a.card("task-archive")})),
        ),
        (
            "task-recovery-decide",
            forbidden(json!({"taskId": a.card("task-recovery-decide"), "decision": "cancel"})),
        ),
        (
            "task-wait-input",
            forbidden(json!({"id": a.card("task-wait-input"), "question": "Which?"})),
        ),
        (
            "task-answer-input",
            forbidden(
                json!({"id": a.card("task-answer-input"), "questionId": a.question, "answer": "This."}),
            ),
        ),
        (
            "task-send-back",
            forbidden(json!({"id": a.card("task-send-back"), "note": "Again."})),
        ),
        (
            "task-post-result",
            forbidden(json!({"id": a.card("task-post-result"), "ok": true})),
        ),
    ]
}

/// Pull queues and leases on Ada's room and cards. The reads of one card
/// answer `bot/not-found` for a card Bob cannot see.
fn queues(a: &Ada) -> Vec<(&'static str, Row)> {
    let (room, claimed) = (a.room.as_str(), a.card("task-lease"));
    vec![
        (
            "task-enqueue",
            Refused(
                json!({"botId": a.lead, "roomId": room, "role": "Writer", "title": "x"}),
                "bot/forbidden",
            ),
        ),
        (
            "task-claim",
            Refused(
                json!({"botId": a.writer, "roomId": room, "id": a.queued}),
                "bot/forbidden",
            ),
        ),
        (
            "task-release",
            Refused(json!({"botId": a.writer, "id": a.held}), "bot/forbidden"),
        ),
        (
            "task-expire-leases",
            OwnOnly("expires only leases the caller manages", json!({})),
        ),
        (
            "task-lease",
            Refused(json!({"id": claimed}), "bot/not-found"),
        ),
        (
            "task-audit",
            Refused(json!({"id": claimed}), "bot/not-found"),
        ),
        (
            "task-counters",
            Answers(json!({"role": "Writer", "run": a.job})),
        ),
    ]
}

/// Ada's schedule on her Bot's chat; a schedule Bob cannot see answers
/// `bot/not-found`, and so does a new one on a Bot he cannot see.
fn schedules(a: &Ada) -> Vec<(&'static str, Row)> {
    let one = json!({"sessionId": a.bot_session, "id": a.schedule});
    let mut update = one.clone();
    update["title"] = json!("Mine");
    let when = json!({"kind": "every", "minutes": 5});
    vec![
        ("schedules", Answers(json!({"botId": a.bot}))),
        (
            "schedule-create",
            Refused(
                json!({"botId": a.bot, "title": "t", "prompt": "p", "when": when}),
                "bot/not-found",
            ),
        ),
        ("schedule-update", Refused(update, "bot/not-found")),
        ("schedule-pause", Refused(one.clone(), "bot/not-found")),
        ("schedule-resume", Refused(one.clone(), "bot/not-found")),
        ("schedule-delete", Refused(one.clone(), "bot/not-found")),
        ("schedule-retry", Refused(one, "bot/not-found")),
    ]
}

/// The blank preset saved over Ada's workflow `id`.
fn definition(id: &str) -> Value {
    let bytes = include_str!("../../../../flybot-core/presets/blank.json");
    let mut def: Value = serde_json::from_str(bytes).unwrap();
    def["id"] = json!(id);
    def["name"] = json!("Bob's now");
    def
}
