//! Member sign-in (#48).

use flybot_testkit::Kit;
use serde_json::json;

#[tokio::test]
/// Rule #48.
async fn the_owner_signs_in_with_her_token_and_keeps_what_she_made_before() {
    let kit = Kit::new().await;
    let chief = kit.state().await.1["bots"][0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    let owner = kit.owner("Ada").await;
    let who = kit.as_member(&owner).ok("auth-whoami", json!({})).await;
    assert_eq!(who["member"]["name"], "Ada");
    assert_eq!(who["session"]["id"], owner.session_id.as_str());
    assert_eq!(who["singleOwner"], false);
    // The owner still owns the Chief made before anyone signed in.
    let view = kit.as_member(&owner).state().await.1;
    assert_eq!(view["bots"][0]["id"], chief.as_str());
    assert_eq!(view["bots"][0]["ownerId"], owner.member_id.as_str());
}

#[tokio::test]
/// Rule #48.
async fn anonymous_and_bad_tokens_are_refused() {
    let kit = Kit::new().await;
    let owner = kit.owner("Ada").await;
    let (status, answer) = kit.anonymous().state().await;
    assert_eq!(status, 401);
    assert_eq!(answer["error"]["code"], "bot/unauthorized");
    kit.anonymous()
        .refused("create-bot", json!({"name": "X"}), "bot/unauthorized")
        .await;
    kit.anonymous()
        .refused("auth-invite", json!({}), "bot/unauthorized")
        .await;
    kit.with_token(Some("not-a-token"))
        .refused("auth-whoami", json!({}), "bot/unauthorized")
        .await;
    assert_eq!(kit.as_member(&owner).state().await.0, 200);
}

#[tokio::test]
/// Rule #48.
async fn actor_id_in_the_body_is_ignored() {
    let kit = Kit::new().await;
    let owner = kit.owner("Ada").await;
    let bob = kit.as_member(&owner).invite("Bob").await;
    let answer = kit
        .as_member(&bob)
        .ok(
            "create-bot",
            json!({"name": "Helper", "actorId": owner.member_id}),
        )
        .await;
    assert_eq!(answer["bot"]["ownerId"], bob.member_id.as_str());
}

#[tokio::test]
/// Rule #48.
async fn redeem_refuses_unknown_used_and_revoked_codes() {
    let kit = Kit::new().await;
    let owner = kit.owner("Ada").await;
    let answer = kit
        .refused(
            "auth-redeem",
            json!({"code": "nope", "name": "Eve"}),
            "bot/unauthorized",
        )
        .await;
    assert_eq!(answer["error"]["details"]["reason"], "unknown");

    let invite = kit
        .as_member(&owner)
        .ok("auth-invite", json!({"name": "Bob"}))
        .await;
    let code = invite["invitation"]["code"].as_str().unwrap().to_owned();
    let id = invite["invitation"]["id"].as_str().unwrap().to_owned();
    kit.as_member(&owner)
        .ok("auth-revoke-invite", json!({"id": id}))
        .await;
    let answer = kit
        .refused(
            "auth-redeem",
            json!({"code": code, "name": "Bob"}),
            "bot/unauthorized",
        )
        .await;
    assert_eq!(answer["error"]["details"]["reason"], "revoked");
    kit.as_member(&owner)
        .refused("auth-revoke-invite", json!({"id": id}), "bot/stale")
        .await;

    let invite = kit.as_member(&owner).ok("auth-invite", json!({})).await;
    let code = invite["invitation"]["code"].as_str().unwrap().to_owned();
    kit.redeem(&code, "Carol").await;
    let answer = kit
        .refused(
            "auth-redeem",
            json!({"code": code, "name": "Mallory"}),
            "bot/unauthorized",
        )
        .await;
    assert_eq!(answer["error"]["details"]["reason"], "used");
    kit.refused(
        "auth-redeem",
        json!({"code": "x", "name": "  "}),
        "bot/invalid",
    )
    .await;
}

#[tokio::test]
/// Rule #48.
async fn only_the_inviter_revokes_an_invitation() {
    let kit = Kit::new().await;
    let owner = kit.owner("Ada").await;
    let bob = kit.as_member(&owner).invite("Bob").await;
    let invite = kit.as_member(&owner).ok("auth-invite", json!({})).await;
    let id = invite["invitation"]["id"].as_str().unwrap();
    kit.as_member(&bob)
        .refused("auth-revoke-invite", json!({"id": id}), "bot/forbidden")
        .await;
    kit.as_member(&bob)
        .refused(
            "auth-revoke-invite",
            json!({"id": "invite-0"}),
            "bot/not-found",
        )
        .await;
}

#[tokio::test]
/// Rule #48.
async fn revoke_signs_a_session_out() {
    let kit = Kit::new().await;
    let owner = kit.owner("Ada").await;
    let bob = kit.as_member(&owner).invite("Bob").await;
    kit.as_member(&bob)
        .refused(
            "auth-revoke",
            json!({"sessionId": owner.session_id}),
            "bot/not-found",
        )
        .await;
    let answer = kit.as_member(&bob).ok("auth-revoke", json!({})).await;
    assert_eq!(answer["session"]["id"], bob.session_id.as_str());
    kit.as_member(&bob)
        .refused("auth-whoami", json!({}), "bot/unauthorized")
        .await;
    kit.as_member(&owner).ok("auth-whoami", json!({})).await;
}

#[tokio::test]
/// Rule #48.
async fn remove_member_refuses_a_member_that_owns_a_bot() {
    let kit = Kit::new().await;
    let owner = kit.owner("Ada").await;
    let bob = kit.as_member(&owner).invite("Bob").await;
    let bot = kit.as_member(&bob).bot("Bobs helper").await.id;
    let answer = kit
        .as_member(&owner)
        .refused(
            "auth-remove-member",
            json!({"memberId": bob.member_id}),
            "bot/forbidden",
        )
        .await;
    assert_eq!(answer["error"]["details"]["reason"], "has_bots");
    kit.as_member(&bob)
        .refused(
            "auth-remove-member",
            json!({"memberId": owner.member_id}),
            "bot/forbidden",
        )
        .await;
    kit.as_member(&bob)
        .ok("delete-bot", json!({"id": bot}))
        .await;
    kit.as_member(&owner)
        .ok("auth-remove-member", json!({"memberId": bob.member_id}))
        .await;
    // Bob's session went with him.
    kit.as_member(&bob)
        .refused("auth-whoami", json!({}), "bot/unauthorized")
        .await;
}

/// Two members removing themselves at the same moment: the removals are
/// serialized, so exactly one passes the last-member check.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
/// Rule #48.
async fn concurrent_removals_cannot_both_pass_the_last_member_check() {
    let kit = Kit::new().await;
    // The fresh home made its Chief; the owner deletes it to own no Bot.
    let owner = kit.owner("Ada").await;
    let chief = kit.as_member(&owner).state().await.1["mainBotIds"][0].clone();
    kit.as_member(&owner)
        .ok("delete-bot", json!({"id": chief}))
        .await;
    assert_eq!(kit.as_member(&owner).state().await.1["bots"], json!([]));
    let bob = kit.as_member(&owner).invite("Bob").await;
    let (as_owner, as_bob) = (kit.as_member(&owner), kit.as_member(&bob));
    let (a, b) = tokio::join!(
        as_owner.post("auth-remove-member", json!({"memberId": owner.member_id})),
        as_bob.post("auth-remove-member", json!({"memberId": bob.member_id})),
    );
    let passed = [&a, &b].iter().filter(|(status, _)| *status == 200).count();
    assert_eq!(passed, 1, "{a:?} {b:?}");
    let refused = if a.0 == 200 { b.1 } else { a.1 };
    assert_eq!(refused["error"]["details"]["reason"], "last_member");
    assert_eq!(kit.host.store().read(|s| s.members.len()), 1);
}
