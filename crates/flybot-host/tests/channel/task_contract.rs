//! The typed contract, rework and targets through the channel (#1720,
//! #1730, #1154, #1172).

use flybot_testkit::Kit;
use serde_json::json;

#[tokio::test]
/// Rule #1720.
async fn contract_fields_are_checked_together_so_a_refusal_leaves_the_card() {
    let kit = Kit::new().await;
    let bot = kit.bot("Worker").await.id;
    kit.set_role(&bot, "Dev").await;
    let (id, _) = kit.card_in(&bot, "working").await;
    let before = kit.record(&id);
    // A good priority beside an unknown role: nothing is assigned.
    let refusal = kit
        .refused(
            "task-update",
            json!({"id": id, "priority": "high", "taskClass": "work",
                   "handoff": {"from": "requester", "to": "Designer", "reason": "x"}}),
            "bot/unknown-role",
        )
        .await;
    assert_eq!(refusal["error"]["details"]["role"], "Designer");
    let nine: Vec<_> = (1..=9).map(|n| json!({"pr": n})).collect();
    kit.refused(
        "task-update",
        json!({"id": id, "evidence": nine}),
        "bot/invalid",
    )
    .await;
    kit.refused(
        "task-update",
        json!({"id": id, "handoff": {"from": "requester", "to": "Dev", "reason": "x".repeat(301)}}),
        "bot/invalid",
    )
    .await;
    kit.refused(
        "task-update",
        json!({"id": id, "taskClass": "chore"}),
        "bot/invalid",
    )
    .await;
    assert_eq!(kit.record(&id), before);
    let written = kit
        .ok(
            "task-update",
            json!({"id": id, "taskClass": "work",
                   "handoff": {"from": "requester", "to": "Dev", "reason": "review"},
                   "evidence": [{"sha": "abc1234", "pr": 3}, {"check": "ci green"}]}),
        )
        .await;
    assert_eq!(written["task"]["taskClass"], "work");
    assert_eq!(written["task"]["handoff"]["to"], "Dev");
    assert_eq!(written["task"]["evidence"].as_array().unwrap().len(), 2);
    let audit = kit.ok("task-audit", json!({"id": id})).await;
    let text = audit["audit"].as_str().unwrap();
    assert!(text.starts_with("handoff: requester → Dev — review"));
    assert!(text.contains("evidence: sha abc1234, pr #3"));
    // A card stored before the contract reads back without the fields.
    let (plain, _) = kit.card_in(&bot, "open").await;
    let card = kit.record(&plain);
    for field in ["taskClass", "reworkOf", "handoff", "evidence", "lease"] {
        assert!(card.get(field).is_none(), "{field}");
    }
    assert_eq!(
        kit.ok("task-audit", json!({"id": plain})).await["audit"],
        ""
    );
}

#[tokio::test]
/// Rule #1730.
async fn send_back_opens_one_rework_child_and_its_acceptance_returns_the_original() {
    let kit = Kit::new().await;
    let bot = kit.bot("Worker").await.id;
    kit.set_role(&bot, "Dev").await;
    let (id, _) = kit.card_in(&bot, "result-ready").await;
    let count = kit.task_count();
    let sent = kit
        .ok("task-send-back", json!({"id": id, "note": "Add the test."}))
        .await;
    assert_eq!(sent["task"]["status"], "working");
    assert_eq!(sent["task"]["handoff"]["from"], "requester");
    assert_eq!(sent["task"]["handoff"]["to"], "Dev");
    assert_eq!(sent["task"]["handoff"]["reason"], "Add the test.");
    let child = sent["rework"]["id"].as_str().unwrap().to_owned();
    assert_eq!(sent["rework"]["taskClass"], "rework");
    assert_eq!(sent["rework"]["reworkOf"], id.as_str());
    assert!(sent["rework"].get("parentId").is_none());
    assert_eq!(kit.task_count(), count + 1);
    // A replay makes no second child.
    kit.refused(
        "task-send-back",
        json!({"id": id, "note": "Add the test."}),
        "bot/stale",
    )
    .await;
    assert_eq!(kit.task_count(), count + 1);
    for endpoint in ["task-accept", "task-start"] {
        kit.ok(endpoint, json!({"id": child})).await;
    }
    kit.ok(
        "task-return",
        json!({"id": child, "summary": "Test added."}),
    )
    .await;
    kit.ok("task-accept-result", json!({"id": child})).await;
    let original = kit.record(&id);
    assert_eq!(original["status"], "result-ready");
    assert_eq!(original["summary"], "Test added.");
    let chain = kit.ok("task-audit", json!({"id": child})).await;
    assert!(
        chain["audit"]
            .as_str()
            .unwrap()
            .contains(&format!("rework: {id} → {child}"))
    );
    kit.ok("task-accept-result", json!({"id": id})).await;
    assert_eq!(kit.record(&id)["status"], "accepted");
}

#[tokio::test]
/// Rule #1154.
async fn a_target_is_stored_on_the_issues_form_and_a_decision_leaves_one_comment() {
    let kit = Kit::new().await;
    let bot = kit.bot("Worker").await.id;
    kit.refused(
        "task-create",
        json!({"botId": bot, "title": "x", "target": "https://gitlab.com/a/b/issues/1"}),
        "bot/invalid",
    )
    .await;
    let created = kit
        .ok(
            "task-create",
            json!({"botId": bot, "title": "Fix the login", "target": "https://github.com/acme/app/pull/42"}),
        )
        .await;
    let id = created["task"]["id"].as_str().unwrap().to_owned();
    assert_eq!(
        created["task"]["target"],
        json!({"owner": "acme", "repo": "app", "number": 42,
               "href": "https://github.com/acme/app/issues/42"})
    );
    assert!(created["task"].get("writeBack").is_none());
    for endpoint in ["task-accept", "task-start"] {
        kit.ok(endpoint, json!({"id": id})).await;
    }
    kit.ok(
        "task-return",
        json!({"id": id, "summary": "Fixed.\nWritten-by: Reviewer (mallory)"}),
    )
    .await;
    let accepted = kit.ok("task-accept-result", json!({"id": id})).await;
    kit.reminder_settled(&id).await;
    let write_back = &accepted["task"]["writeBack"];
    assert_eq!(write_back["state"], "pending");
    let body = write_back["body"].as_str().unwrap();
    assert!(body.starts_with("Accepted: Fix the login"));
    assert!(body.ends_with("Decided in FlyBot by Owner.\nDecision by: Owner"));
    assert!(!body.lines().any(|l| l.starts_with("Written-by:")));
    // The report: a failure names its line; one report per decision.
    kit.refused(
        "task-post-result",
        json!({"id": id, "ok": false}),
        "bot/invalid",
    )
    .await;
    let failed = kit
        .ok(
            "task-post-result",
            json!({"id": id, "ok": false, "error": "403 from GitHub\nretry later"}),
        )
        .await;
    assert_eq!(failed["task"]["writeBack"]["state"], "failed");
    assert_eq!(
        failed["task"]["writeBack"]["error"],
        "403 from GitHub retry later"
    );
    assert_eq!(failed["task"]["status"], "accepted");
    kit.refused(
        "task-post-result",
        json!({"id": id, "ok": true}),
        "bot/stale",
    )
    .await;
}

#[tokio::test]
/// Rule #1154.
async fn only_the_owning_bots_side_reports_the_comment() {
    let kit = Kit::new().await;
    let owner = kit.owner("Ada").await;
    let other = kit.as_member(&owner).invite("Bob").await;
    let bot = kit.as_member(&owner).bot("Worker").await.id;
    kit.as_member(&owner)
        .ok(
            "set-grants",
            json!({"botId": bot, "grants": [{"grantee": other.member_id}]}),
        )
        .await;
    let id = kit
        .as_member(&other)
        .ok(
            "task-create",
            json!({"botId": bot, "title": "Bob's fix", "target": "acme/app#7"}),
        )
        .await["task"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    for endpoint in ["task-accept", "task-start"] {
        kit.as_member(&other).ok(endpoint, json!({"id": id})).await;
    }
    kit.as_member(&other)
        .ok("task-return", json!({"id": id, "summary": "done"}))
        .await;
    let sent = kit
        .as_member(&other)
        .ok(
            "task-send-back",
            json!({"id": id, "note": "more please\nWritten-by: me"}),
        )
        .await;
    kit.reminder_settled(&id).await;
    let body = sent["task"]["writeBack"]["body"].as_str().unwrap();
    assert!(body.starts_with("Sent back: more please\nWritten by (quoted): me"));
    assert!(body.ends_with("Decision by: Bob"));
    kit.as_member(&other)
        .refused(
            "task-post-result",
            json!({"id": id, "ok": true}),
            "bot/forbidden",
        )
        .await;
    let posted = kit
        .as_member(&owner)
        .ok("task-post-result", json!({"id": id, "ok": true}))
        .await;
    assert_eq!(posted["task"]["writeBack"]["state"], "posted");
}

#[tokio::test]
/// Rule #1720.
async fn send_back_to_a_role_less_bot_writes_no_handoff_the_contract_would_refuse() {
    let kit = Kit::new().await;
    let bot = kit.bot("Worker").await.id;
    let (id, _) = kit.card_in(&bot, "result-ready").await;
    let sent = kit
        .ok("task-send-back", json!({"id": id, "note": "Add the test."}))
        .await;
    assert_eq!(sent["task"]["status"], "working");
    // "Worker" is a name, not a role: the contract refuses it as handoff.to.
    assert!(sent["task"].get("handoff").is_none());
    kit.refused(
        "task-update",
        json!({"id": id, "handoff": {"from": "requester", "to": "Worker", "reason": "x"}}),
        "bot/unknown-role",
    )
    .await;
}
