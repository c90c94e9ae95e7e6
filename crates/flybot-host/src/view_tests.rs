//! The state answer written straight to bytes (issue 38) against the shape
//! it was built in before: the typed view turned into a `serde_json::Value`,
//! `automation` and `sandboxWarning` set on it, and the envelope's `ok` put
//! first. Same keys, same order, same values, for a team with every kind of
//! record the view carries.
#![allow(clippy::unwrap_used)]

use super::*;
use serde_json::json;

/// A team with a record of every kind the view shows: members, Bots (one
/// run Bot, hidden from it), a room, open and finished cards with extra
/// fields, grants, preferences, a Project, an invitation, a waiting
/// question, a signed-in session, a Main Bot and a chief.
fn full_team() -> TeamState {
    let task = |id: &str, status: &str, extra: serde_json::Value| {
        let mut task = json!({
            "id": id, "botId": "bot-a", "title": format!("card {id}"), "status": status,
            "requesterId": "member-1", "createdAt": 5, "updatedAt": 6,
        });
        if let (Some(task), Some(extra)) = (task.as_object_mut(), extra.as_object()) {
            task.extend(extra.clone());
        }
        task
    };
    serde_json::from_value(json!({
        "version": 1,
        "journalSeq": 9,
        "members": {
            "member-1": {"id": "member-1", "name": "Ada", "createdAt": 1},
            "member-2": {"id": "member-2", "name": "Bo", "createdAt": 2},
        },
        "bots": {
            "bot-a": {"id": "bot-a", "name": "A", "ownerId": "member-1", "model": "mock",
                "instructions": "Be brief.", "sessionId": "session-a", "createdAt": 3,
                "updatedAt": 3, "role": "chief", "projectId": "project-1"},
            "bot-b": {"id": "bot-b", "name": "B", "ownerId": "member-2", "model": "mock",
                "instructions": "", "sessionId": "session-b", "createdAt": 4, "updatedAt": 4,
                "createdBy": "bot-a", "hidden": true},
            "bot-run": {"id": "bot-run", "name": "Run", "ownerId": "member-1", "model": "mock",
                "instructions": "", "sessionId": "session-run", "createdAt": 5, "updatedAt": 5,
                "run": true},
        },
        "designatedChiefId": "bot-a",
        "mainBotIds": ["bot-a", "bot-run"],
        "rooms": {
            "room-1": {"id": "room-1", "name": "Six", "ownerId": "member-1",
                "members": ["bot-a", "bot-b"], "admin": "bot-a",
                "sessions": {"bot-a": "session-r"}, "createdAt": 7, "updatedAt": 8,
                "topic": "plans"},
        },
        "tasks": {
            "task-1": task("task-1", "open", json!({})),
            "task-2": task("task-2", "working", json!({"roomId": "room-1", "notes": ["a"], "claimCue": "x"})),
            "task-3": task("task-3", "blocked", json!({"waitingFor": "input", "question": "which?"})),
            "task-4": task("task-4", "accepted", json!({})),
        },
        "grants": {
            "bot-a": [{"grantee": "member-2"}, {"grantee": "bot-b", "roomId": "room-1"}],
        },
        "prefs": {"theme": "dark", "nested": {"a": [1, 2]}},
        "projects": {"project-1": {"id": "project-1", "name": "Launch", "ownerId": "member-1"}},
        "invitations": {
            "inv-1": {"id": "inv-1", "codeHash": "secret-digest", "name": "Cy",
                "invitedBy": "member-1", "status": "open", "createdAt": 9},
        },
        "authSessions": {
            "auth-1": {"id": "auth-1", "memberId": "member-1", "tokenHash": "digest",
                "createdAt": 10},
        },
        "questions": {
            "room-1": {"header": "Pick", "botId": "bot-a", "question": "Which one?",
                "replyTo": {"botId": "bot-b", "hop": 1}, "allowCustom": true, "askedAt": 11},
        },
    }))
    .unwrap()
}

/// The answer as it was built before issue 38, envelope included.
fn old_shape(view: StateView<'_>, automation: Value, warning: Option<String>) -> String {
    let mut value = serde_json::to_value(view).unwrap();
    value["automation"] = automation;
    if let Some(warning) = warning {
        value["sandboxWarning"] = Value::String(warning);
    }
    let mut answer = serde_json::Map::new();
    answer.insert("ok".into(), Value::Bool(true));
    answer.extend(value.as_object().unwrap().clone());
    serde_json::to_string(&Value::Object(answer)).unwrap()
}

fn check(actor: &Actor, warning: Option<&str>) {
    let state = full_team();
    let models = flybot_agent::model::config::ProviderRegistry::default();
    let automation = json!({"tasks": true, "active": 1, "suppressed": 0});
    let view = || {
        let mut view = narrowed(&state, actor, "mock", &models);
        view.revision = 9;
        view.work =
            json!({"bots": {"bot-a": {"turnId": "t1"}}, "ended": [], "handed": {}, "rooms": {}});
        view.read_only = Some(ReadOnlyNote {
            message: "only reads".into(),
        });
        view
    };
    let old = old_shape(view(), automation.clone(), warning.map(str::to_owned));
    let answer = |ok| StateAnswer {
        ok,
        view: view(),
        automation: automation.clone(),
        sandbox_warning: warning.map(str::to_owned),
    };
    let bytes = serde_json::to_vec(&answer(true)).unwrap();
    assert_eq!(String::from_utf8(bytes).unwrap(), old, "the GET bytes");
    // The POST `state` endpoint: the value without `ok`, which its envelope adds.
    let value = serde_json::to_value(answer(false)).unwrap();
    assert!(value.get("ok").is_none());
    let mut enveloped = serde_json::Map::new();
    enveloped.insert("ok".into(), Value::Bool(true));
    enveloped.extend(value.as_object().unwrap().clone());
    assert_eq!(
        serde_json::to_string(&enveloped).unwrap(),
        old,
        "the POST value"
    );
    assert!(!old.contains("secret-digest") && !old.contains("claimCue"));
}

#[test]
fn the_state_answer_written_as_bytes_is_the_old_value_shape_key_for_key() {
    check(&Actor::SingleOwner, None);
    check(&Actor::SingleOwner, Some("The sandbox is off."));
    let member = Actor::Member {
        member_id: "member-2".into(),
        session_id: "auth-2".into(),
    };
    check(&member, None);
}
