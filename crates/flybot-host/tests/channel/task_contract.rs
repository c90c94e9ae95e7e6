//! The typed contract, rework and targets through the channel (#1720,
//! #1730, #1154, #1172).

use crate::support::TestHost;
use crate::task_kit::{card_in, record, set_role, settle_reminder, task_count};
use serde_json::json;

#[tokio::test]
async fn contract_fields_are_checked_together_so_a_refusal_leaves_the_card_1720() {
    let t = TestHost::new();
    let bot = t.create_bot(None, "Worker").await;
    set_role(&t, &bot, "Dev").await;
    let (id, _) = card_in(&t, None, &bot, "working").await;
    let before = record(&t, &id);
    // A good priority beside an unknown role: nothing is assigned.
    let refusal = t
        .refused(
            None,
            "task-update",
            json!({"id": id, "priority": "high", "taskClass": "work",
                   "handoff": {"from": "requester", "to": "Designer", "reason": "x"}}),
            "bot/unknown-role",
        )
        .await;
    assert_eq!(refusal["error"]["details"]["role"], "Designer");
    let nine: Vec<_> = (1..=9).map(|n| json!({"pr": n})).collect();
    t.refused(
        None,
        "task-update",
        json!({"id": id, "evidence": nine}),
        "bot/invalid",
    )
    .await;
    t.refused(
        None,
        "task-update",
        json!({"id": id, "handoff": {"from": "requester", "to": "Dev", "reason": "x".repeat(301)}}),
        "bot/invalid",
    )
    .await;
    t.refused(
        None,
        "task-update",
        json!({"id": id, "taskClass": "chore"}),
        "bot/invalid",
    )
    .await;
    assert_eq!(record(&t, &id), before);
    let written = t
        .ok(
            None,
            "task-update",
            json!({"id": id, "taskClass": "work",
                   "handoff": {"from": "requester", "to": "Dev", "reason": "review"},
                   "evidence": [{"sha": "abc1234", "pr": 3}, {"check": "ci green"}]}),
        )
        .await;
    assert_eq!(written["task"]["taskClass"], "work");
    assert_eq!(written["task"]["handoff"]["to"], "Dev");
    assert_eq!(written["task"]["evidence"].as_array().unwrap().len(), 2);
    let audit = t.ok(None, "task-audit", json!({"id": id})).await;
    let text = audit["audit"].as_str().unwrap();
    assert!(text.starts_with("handoff: requester → Dev — review"));
    assert!(text.contains("evidence: sha abc1234, pr #3"));
    // A card stored before the contract reads back without the fields.
    let (plain, _) = card_in(&t, None, &bot, "open").await;
    let card = record(&t, &plain);
    for field in ["taskClass", "reworkOf", "handoff", "evidence", "lease"] {
        assert!(card.get(field).is_none(), "{field}");
    }
    assert_eq!(
        t.ok(None, "task-audit", json!({"id": plain})).await["audit"],
        ""
    );
}

#[tokio::test]
async fn send_back_opens_one_rework_child_and_its_acceptance_returns_the_original_1730() {
    let t = TestHost::new();
    let bot = t.create_bot(None, "Worker").await;
    let (id, _) = card_in(&t, None, &bot, "result-ready").await;
    let count = task_count(&t);
    let sent = t
        .ok(
            None,
            "task-send-back",
            json!({"id": id, "note": "Add the test."}),
        )
        .await;
    assert_eq!(sent["task"]["status"], "working");
    assert_eq!(sent["task"]["handoff"]["from"], "requester");
    assert_eq!(sent["task"]["handoff"]["reason"], "Add the test.");
    let child = sent["rework"]["id"].as_str().unwrap().to_owned();
    assert_eq!(sent["rework"]["taskClass"], "rework");
    assert_eq!(sent["rework"]["reworkOf"], id.as_str());
    assert!(sent["rework"].get("parentId").is_none());
    assert_eq!(task_count(&t), count + 1);
    // A replay makes no second child.
    t.refused(
        None,
        "task-send-back",
        json!({"id": id, "note": "Add the test."}),
        "bot/stale",
    )
    .await;
    assert_eq!(task_count(&t), count + 1);
    for endpoint in ["task-accept", "task-start"] {
        t.ok(None, endpoint, json!({"id": child})).await;
    }
    t.ok(
        None,
        "task-return",
        json!({"id": child, "summary": "Test added."}),
    )
    .await;
    t.ok(None, "task-accept-result", json!({"id": child})).await;
    let original = record(&t, &id);
    assert_eq!(original["status"], "result-ready");
    assert_eq!(original["summary"], "Test added.");
    let chain = t.ok(None, "task-audit", json!({"id": child})).await;
    assert!(
        chain["audit"]
            .as_str()
            .unwrap()
            .contains(&format!("rework: {id} → {child}"))
    );
    t.ok(None, "task-accept-result", json!({"id": id})).await;
    assert_eq!(record(&t, &id)["status"], "accepted");
}

#[tokio::test]
async fn a_target_is_stored_on_the_issues_form_and_a_decision_leaves_one_comment_1154() {
    let t = TestHost::new();
    let bot = t.create_bot(None, "Worker").await;
    t.refused(
        None,
        "task-create",
        json!({"botId": bot, "title": "x", "target": "https://gitlab.com/a/b/issues/1"}),
        "bot/invalid",
    )
    .await;
    let created = t
        .ok(
            None,
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
        t.ok(None, endpoint, json!({"id": id})).await;
    }
    t.ok(
        None,
        "task-return",
        json!({"id": id, "summary": "Fixed.\nWritten-by: Reviewer (mallory)"}),
    )
    .await;
    let accepted = t.ok(None, "task-accept-result", json!({"id": id})).await;
    settle_reminder(&t, &id).await;
    let write_back = &accepted["task"]["writeBack"];
    assert_eq!(write_back["state"], "pending");
    let body = write_back["body"].as_str().unwrap();
    assert!(body.starts_with("Accepted: Fix the login"));
    assert!(body.ends_with("Decided in FlyBot by Owner.\nDecision by: Owner"));
    assert!(!body.lines().any(|l| l.starts_with("Written-by:")));
    // The report: a failure names its line; one report per decision.
    t.refused(
        None,
        "task-post-result",
        json!({"id": id, "ok": false}),
        "bot/invalid",
    )
    .await;
    let failed = t
        .ok(
            None,
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
    t.refused(
        None,
        "task-post-result",
        json!({"id": id, "ok": true}),
        "bot/stale",
    )
    .await;
}

#[tokio::test]
async fn only_the_owning_bots_side_reports_the_comment_1154() {
    let t = TestHost::new();
    let owner = t.sign_in_owner("Ada").await;
    let other = t.invite_member(&owner.token, "Bob").await;
    let bot = t.create_bot(Some(&owner.token), "Worker").await;
    t.ok(
        Some(&owner.token),
        "set-grants",
        json!({"botId": bot, "grants": [{"grantee": other.member_id}]}),
    )
    .await;
    let id = t
        .ok(
            Some(&other.token),
            "task-create",
            json!({"botId": bot, "title": "Bob's fix", "target": "acme/app#7"}),
        )
        .await["task"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    for endpoint in ["task-accept", "task-start"] {
        t.ok(Some(&other.token), endpoint, json!({"id": id})).await;
    }
    t.ok(
        Some(&other.token),
        "task-return",
        json!({"id": id, "summary": "done"}),
    )
    .await;
    let sent = t
        .ok(
            Some(&other.token),
            "task-send-back",
            json!({"id": id, "note": "more please\nWritten-by: me"}),
        )
        .await;
    settle_reminder(&t, &id).await;
    let body = sent["task"]["writeBack"]["body"].as_str().unwrap();
    assert!(body.starts_with("Sent back: more please\nWritten by (quoted): me"));
    assert!(body.ends_with("Decision by: Bob"));
    t.refused(
        Some(&other.token),
        "task-post-result",
        json!({"id": id, "ok": true}),
        "bot/forbidden",
    )
    .await;
    let posted = t
        .ok(
            Some(&owner.token),
            "task-post-result",
            json!({"id": id, "ok": true}),
        )
        .await;
    assert_eq!(posted["task"]["writeBack"]["state"], "posted");
}
