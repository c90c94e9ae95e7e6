//! The matrix's rows for the task board, Projects, queues, workflows and
//! schedules.

use super::Row::{self, Answers, OwnOnly, Refused};
use super::setup::Ada;
use serde_json::json;

/// Bob, who has his own Bot `bobs`, aims every body at Ada's records.
pub fn rows(a: &Ada, bobs: &str) -> Vec<(&'static str, Row)> {
    let (bot, room, project) = (a.bot.as_str(), a.room.as_str(), a.project.as_str());
    let open = a.card("open");
    vec![
        // Workflows: the library is one per host, so reading it is open to
        // every member; writing it is the owner's.
        ("workflows", Answers(json!({"id": a.workflow}))),
        // known_hole: the library is writable by any member.
        (
            "workflow-save",
            Refused(
                json!({"definition": definition(&a.workflow)}),
                "bot/forbidden",
            ),
        ),
        (
            "workflow-customize",
            Refused(
                json!({"from": "blank", "id": a.workflow, "name": "Mine"}),
                "bot/forbidden",
            ),
        ),
        // known_hole: any member changes the owner's default.
        (
            "workflow-set-default",
            Refused(json!({"id": a.workflow}), "bot/forbidden"),
        ),
        (
            "workflow-run",
            Refused(
                json!({"workflow": a.workflow, "roomId": room, "botId": a.lead, "title": "x"}),
                "bot/forbidden",
            ),
        ),
        (
            "workflow-fact",
            Refused(
                json!({"jobId": a.job, "spec": "text:topic", "revision": "9"}),
                "bot/not-found",
            ),
        ),
        (
            "workflow-hold",
            Refused(json!({"jobId": a.job, "holder": bobs}), "bot/not-found"),
        ),
        // Projects.
        ("projects", Answers(json!({}))),
        (
            "project-create",
            OwnOnly(
                "a new Project is the caller's",
                json!({"name": "Bob's site"}),
            ),
        ),
        (
            "project-read",
            Refused(json!({"project": project}), "bot/not-found"),
        ),
        (
            "project-bind",
            Refused(json!({"roomId": room, "project": null}), "bot/forbidden"),
        ),
        (
            "project-of",
            Refused(json!({"roomId": room}), "bot/not-found"),
        ),
        (
            "project-board",
            Refused(json!({"project": project}), "bot/not-found"),
        ),
        (
            "project-delete",
            Refused(json!({"project": project}), "bot/not-found"),
        ),
        // Cards.
        ("tasks", Answers(json!({"archive": true, "botId": bot}))),
        (
            "task-create",
            Refused(json!({"botId": bot, "title": "Planted"}), "bot/forbidden"),
        ),
        (
            "task-update",
            Refused(json!({"id": open, "note": "Changed."}), "bot/not-found"),
        ),
        ("task-accept", Refused(json!({"id": open}), "bot/not-found")),
        (
            "task-start",
            Refused(json!({"id": a.card("claimed")}), "bot/not-found"),
        ),
        (
            "task-return",
            Refused(
                json!({"id": a.card("working"), "summary": "Done."}),
                "bot/not-found",
            ),
        ),
        (
            "task-accept-result",
            Refused(json!({"id": a.card("result-ready")}), "bot/not-found"),
        ),
        ("task-cancel", Refused(json!({"id": open}), "bot/not-found")),
        (
            "task-recovery-decide",
            Refused(
                json!({"taskId": a.card("working"), "decision": "cancel"}),
                "bot/not-found",
            ),
        ),
        (
            "task-wait-input",
            Refused(
                json!({"id": a.card("working"), "question": "Which?"}),
                "bot/not-found",
            ),
        ),
        (
            "task-answer-input",
            Refused(
                json!({"id": a.card("blocked"), "questionId": a.question, "answer": "This."}),
                "bot/not-found",
            ),
        ),
        (
            "task-send-back",
            Refused(
                json!({"id": a.card("result-ready"), "note": "Again."}),
                "bot/not-found",
            ),
        ),
        (
            "task-post-result",
            Refused(
                json!({"id": a.card("accepted"), "ok": true}),
                "bot/not-found",
            ),
        ),
        // Queues and leases.
        (
            "task-enqueue",
            Refused(
                json!({"botId": a.lead, "roomId": room, "role": "Writer", "title": "x"}),
                "bot/forbidden",
            ),
        ),
        (
            "task-claim",
            Refused(json!({"botId": bot, "roomId": room}), "bot/forbidden"),
        ),
        (
            "task-release",
            Refused(json!({"botId": bot, "id": a.queued}), "bot/forbidden"),
        ),
        (
            "task-expire-leases",
            OwnOnly("expires only leases the caller manages", json!({})),
        ),
        (
            "task-lease",
            Refused(json!({"id": a.card("claimed")}), "bot/not-found"),
        ),
        (
            "task-audit",
            Refused(json!({"id": a.card("claimed")}), "bot/not-found"),
        ),
        (
            "task-counters",
            Answers(json!({"role": "Writer", "run": a.job})),
        ),
        // Schedules.
        ("schedules", Answers(json!({"botId": bot}))),
        (
            "schedule-create",
            Refused(
                json!({"botId": bot, "title": "t", "prompt": "p", "when": {"kind": "every", "minutes": 5}}),
                "bot/forbidden",
            ),
        ),
        (
            "schedule-update",
            Refused(
                json!({"sessionId": a.bot_session, "id": a.schedule, "title": "Mine"}),
                "bot/not-found",
            ),
        ),
        (
            "schedule-pause",
            Refused(
                json!({"sessionId": a.bot_session, "id": a.schedule}),
                "bot/not-found",
            ),
        ),
        (
            "schedule-resume",
            Refused(
                json!({"sessionId": a.bot_session, "id": a.schedule}),
                "bot/not-found",
            ),
        ),
        (
            "schedule-delete",
            Refused(
                json!({"sessionId": a.bot_session, "id": a.schedule}),
                "bot/not-found",
            ),
        ),
        (
            "schedule-retry",
            Refused(
                json!({"sessionId": a.bot_session, "id": a.schedule}),
                "bot/not-found",
            ),
        ),
    ]
}

/// The blank preset saved over Ada's workflow `id`.
fn definition(id: &str) -> serde_json::Value {
    let bytes = include_str!("../../../../flybot-core/presets/blank.json");
    let mut def: serde_json::Value = serde_json::from_str(bytes).unwrap();
    def["id"] = json!(id);
    def["name"] = json!("Bob's now");
    def
}
