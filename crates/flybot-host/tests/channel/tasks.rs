//! The task state machine through the channel (#54, #202, #207): every edge
//! and every refused edge, with the code and an unchanged home.

use flybot_testkit::{Kit, STATUSES, move_body};
use serde_json::json;

/// (endpoint, the statuses it moves from, the status it moves to).
const MOVES: [(&str, &[&str], &str); 8] = [
    ("task-accept", &["open"], "claimed"),
    ("task-start", &["claimed"], "working"),
    ("task-return", &["working"], "result-ready"),
    ("task-accept-result", &["result-ready"], "accepted"),
    (
        "task-cancel",
        &["open", "claimed", "working", "blocked", "result-ready"],
        "cancelled",
    ),
    ("task-wait-input", &["working"], "blocked"),
    ("task-answer-input", &["blocked"], "working"),
    ("task-send-back", &["result-ready"], "working"),
];

#[tokio::test]
/// Rule #54.
async fn every_edge_moves_and_every_other_edge_is_stale_and_writes_nothing() {
    let kit = Kit::new().await;
    let bot = kit.bot("Worker").await.id;
    for (endpoint, from, to) in MOVES {
        for status in STATUSES {
            let (id, question) = kit.card_in(&bot, status).await;
            let body = move_body(endpoint, &id, question.as_deref());
            if from.contains(&status) {
                let answer = kit.ok(endpoint, body).await;
                assert_eq!(answer["task"]["status"], to, "{endpoint} from {status}");
                let entry = &answer["task"]["actors"][to];
                assert!(entry["actorId"].as_str().unwrap().starts_with("member-"));
            } else {
                let before = kit.record(&id);
                kit.refused(endpoint, body, "bot/stale").await;
                assert_eq!(kit.record(&id), before, "{endpoint} from {status}");
            }
        }
    }
}

#[tokio::test]
/// Rule #54.
async fn a_move_by_anyone_but_the_requester_is_forbidden() {
    let kit = Kit::new().await;
    let owner = kit.owner("Ada").await;
    let other = kit.as_member(&owner).invite("Bob").await;
    let bot = kit.as_member(&owner).bot("Worker").await.id;
    for (endpoint, from, _) in MOVES {
        for status in from.iter().copied() {
            let (id, question) = kit.as_member(&owner).card_in(&bot, status).await;
            let body = move_body(endpoint, &id, question.as_deref());
            let before = kit.record(&id);
            kit.as_member(&other)
                .refused(endpoint, body, "bot/forbidden")
                .await;
            assert_eq!(kit.record(&id), before);
        }
    }
    // The stranger does not see the cards either.
    let list = kit
        .as_member(&other)
        .ok("tasks", json!({"archive": true}))
        .await;
    assert_eq!(list["tasks"], json!([]));
}

#[tokio::test]
/// Rule #54.
async fn the_requester_is_the_server_s_never_the_body_s() {
    let kit = Kit::new().await;
    let owner = kit.owner("Ada").await;
    let other = kit.as_member(&owner).invite("Bob").await;
    let bot = kit.as_member(&owner).bot("Worker").await.id;
    kit.as_member(&owner)
        .refused(
            "task-create",
            json!({"botId": bot, "title": "x", "requesterId": other.member_id}),
            "bot/invalid",
        )
        .await;
    let answer = kit
        .as_member(&owner)
        .ok(
            "task-create",
            json!({"botId": bot, "title": "x", "actorId": other.member_id}),
        )
        .await;
    assert_eq!(answer["task"]["requesterId"], owner.member_id.as_str());
    assert!(answer["task"]["id"].as_str().unwrap().starts_with("task-"));
    assert_eq!(answer["task"]["status"], "open");
}

#[tokio::test]
/// Rule #54.
async fn create_needs_the_bot_a_grant_or_a_shared_room() {
    let kit = Kit::new().await;
    let owner = kit.owner("Ada").await;
    let other = kit.as_member(&owner).invite("Bob").await;
    let bot = kit.as_member(&owner).bot("Worker").await.id;
    let body = json!({"botId": bot, "title": "For Bob"});
    kit.as_member(&other)
        .refused("task-create", body.clone(), "bot/forbidden")
        .await;
    let room = kit
        .as_member(&owner)
        .ok(
            "create-room",
            json!({"name": "Team", "members": [bot],
                   "participants": [{"kind": "human", "memberId": other.member_id}]}),
        )
        .await;
    let room_id = room["room"]["id"].as_str().unwrap();
    let in_room = kit
        .as_member(&other)
        .ok(
            "task-create",
            json!({"botId": bot, "title": "In the room", "roomId": room_id}),
        )
        .await;
    assert_eq!(in_room["task"]["requesterId"], other.member_id.as_str());
    kit.as_member(&owner)
        .ok(
            "set-grants",
            json!({"botId": bot, "grants": [{"grantee": other.member_id}]}),
        )
        .await;
    let granted = kit.as_member(&other).ok("task-create", body).await;
    let id = granted["task"]["id"].as_str().unwrap();
    // The grantee requested it, so the grantee moves it, and the Bot's
    // owner does not.
    kit.as_member(&owner)
        .refused("task-accept", json!({"id": id}), "bot/forbidden")
        .await;
    kit.as_member(&other)
        .ok("task-accept", json!({"id": id}))
        .await;
}

#[tokio::test]
/// Rule #202.
async fn result_ready_cancelled_keeps_summary_and_history_and_stays_terminal() {
    let kit = Kit::new().await;
    let bot = kit.bot("Worker").await.id;
    let (id, _) = kit.card_in(&bot, "result-ready").await;
    let cancelled = kit.ok("task-cancel", json!({"id": id})).await;
    assert_eq!(cancelled["task"]["summary"], "Done it.");
    for status in ["open", "claimed", "working", "result-ready", "cancelled"] {
        assert!(cancelled["task"]["actors"][status].is_object(), "{status}");
    }
    for endpoint in ["task-accept-result", "task-start", "task-accept"] {
        kit.refused(endpoint, json!({"id": id}), "bot/stale").await;
    }
    kit.refused(
        "task-return",
        json!({"id": id, "summary": "again"}),
        "bot/stale",
    )
    .await;
}

#[tokio::test]
/// Rule #207.
async fn input_waits_need_the_current_question_and_bounded_text() {
    let kit = Kit::new().await;
    let bot = kit.bot("Worker").await.id;
    let (id, _) = kit.card_in(&bot, "working").await;
    let long = "x".repeat(2_001);
    kit.refused(
        "task-wait-input",
        json!({"id": id, "question": long}),
        "bot/invalid",
    )
    .await;
    kit.refused(
        "task-wait-input",
        json!({"id": id, "question": "   "}),
        "bot/invalid",
    )
    .await;
    let first = kit
        .ok("task-wait-input", json!({"id": id, "question": "A or B?"}))
        .await;
    assert_eq!(first["task"]["waitingFor"], "input");
    let q1 = first["task"]["inputRequest"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    // task-start cannot resume a blocked task.
    kit.refused("task-start", json!({"id": id}), "bot/stale")
        .await;
    kit.refused(
        "task-answer-input",
        json!({"id": id, "questionId": "question-old", "answer": "A"}),
        "bot/stale",
    )
    .await;
    kit.refused(
        "task-answer-input",
        json!({"id": id, "questionId": q1, "answer": "x".repeat(2_001)}),
        "bot/invalid",
    )
    .await;
    let answered = kit
        .ok(
            "task-answer-input",
            json!({"id": id, "questionId": q1, "answer": "A"}),
        )
        .await;
    assert_eq!(answered["task"]["status"], "working");
    assert_eq!(answered["task"]["inputAnswer"]["answer"], "A");
    assert_eq!(
        answered["task"]["actors"]["working"]["questionId"],
        q1.as_str()
    );
    // Only the latest snapshot is kept: a new question drops the old answer.
    let second = kit
        .ok("task-wait-input", json!({"id": id, "question": "C?"}))
        .await;
    assert!(second["task"]["inputAnswer"].is_null());
    let q2 = second["task"]["inputRequest"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_ne!(q1, q2);
    // A late answer never revives a terminal task; the snapshot stays.
    let cancelled = kit.ok("task-cancel", json!({"id": id})).await;
    assert!(cancelled["task"]["waitingFor"].is_null());
    assert_eq!(cancelled["task"]["inputRequest"]["id"], q2.as_str());
    kit.refused(
        "task-answer-input",
        json!({"id": id, "questionId": q2, "answer": "late"}),
        "bot/stale",
    )
    .await;
}

#[tokio::test]
/// Rule #54.
async fn updated_at_strictly_increases_across_moves() {
    let kit = Kit::new().await;
    let bot = kit.bot("Worker").await.id;
    let id = kit.card(&bot, "fast").await;
    let mut last = kit.record(&id)["updatedAt"].as_u64().unwrap();
    for endpoint in ["task-accept", "task-start"] {
        let answer = kit.ok(endpoint, json!({"id": id})).await;
        let at = answer["task"]["updatedAt"].as_u64().unwrap();
        assert!(at > last);
        last = at;
    }
}

#[tokio::test]
async fn unknown_cards_are_not_found_and_bodies_are_checked() {
    let kit = Kit::new().await;
    kit.refused("task-accept", json!({"id": "task-none"}), "bot/not-found")
        .await;
    kit.refused("task-accept", json!({}), "bot/invalid").await;
    kit.refused(
        "task-update",
        json!({"id": "task-none", "priority": "soon"}),
        "bot/invalid",
    )
    .await;
}

#[tokio::test]
/// Rule #54.
async fn deleting_the_bot_fails_open_cards_keeps_result_ready_and_all_survive_a_restart() {
    let kit = Kit::new().await;
    let bot = kit.bot("Worker").await.id;
    let (working, _) = kit.card_in(&bot, "working").await;
    let (ready, _) = kit.card_in(&bot, "result-ready").await;
    let (blocked, _) = kit.card_in(&bot, "blocked").await;
    kit.ok("delete-bot", json!({"id": bot})).await;
    assert_eq!(kit.record(&working)["status"], "failed");
    assert_eq!(kit.record(&ready)["status"], "result-ready");
    let blocked_card = kit.record(&blocked);
    assert_eq!(blocked_card["status"], "failed");
    assert!(blocked_card["waitingFor"].is_null());
    assert!(blocked_card["inputRequest"].is_object());
    let before = kit.host.store().read(|s| s.tasks.clone());
    let count = kit.task_count();
    let again = kit.restart().await;
    let after = again.host.store().read(|s| s.tasks.clone());
    assert_eq!(after.len(), count);
    assert_eq!(after, before);
}

#[tokio::test]
/// Rule #1109.
async fn a_board_write_announces_the_cards_it_wrote_and_a_refusal_announces_nothing() {
    let kit = Kit::new().await;
    let bot = kit.bot("Worker").await.id;
    let mut events = kit.host.team().bus().subscribe();
    let id = kit.card(&bot, "announce").await;
    assert_eq!(
        events.try_recv().unwrap(),
        flybot_host::HostEvent::TasksWritten {
            task_ids: vec![id.clone()]
        }
    );
    kit.refused("task-start", json!({"id": id}), "bot/stale")
        .await;
    assert!(events.try_recv().is_err());
}
