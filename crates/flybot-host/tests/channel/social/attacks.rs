//! Attacks on Bot Social's doors (issue 33): the owner publishes, and sets
//! the policy of, only their own Bots (#90: a member's Bot is that
//! member's to share; `bot/forbidden`, nothing changed); a turn that
//! answers a friend's line gets none of the owner's keys (#651: each one
//! withheld as `remote-bot`); an invite from a stranger is kept across a
//! restart until the owner declines it.

use super::raw::RawMatrix;
use super::{home, password, until, view};
use flybot_testkit::Kit;
use flybot_testkit::synapse::start_synapse;
use serde_json::json;

#[tokio::test]
/// Rule #90.
async fn social_publish_and_policy_refuse_another_members_bot_and_change_nothing() {
    let kit = Kit::new().await;
    let [owner, ada] = kit.members(["Owner", "Ada"]).await;
    let adas = kit.as_member(&ada).bot("Scribe").await;
    let mine = kit.as_member(&owner).bot("Mine").await;
    kit.host.store().snapshot_now().await.unwrap();
    let before = kit.fingerprint().await;
    let me = kit.as_member(&owner);
    let publish = json!({"botId": adas.id, "userId": "@mallory:localhost"});
    let refused = me.refused("social-publish", publish, "bot/forbidden").await;
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("another member"),
        "{refused}"
    );
    let policy = json!({"botId": adas.id, "policy": "ask-first"});
    me.refused("social-policy", policy, "bot/forbidden").await;
    let nothing = json!({"id": "out-none", "send": true});
    me.refused("social-hold-answer", nothing, "bot/not-found")
        .await;
    assert!(before == kit.fingerprint().await, "the home is unchanged");
    // The owner's own Bot passes the check (and then needs a homeserver).
    let publish = json!({"botId": mine.id, "userId": "@mallory:localhost"});
    me.refused("social-publish", publish, "bot/invalid").await;
    let policy = json!({"botId": mine.id, "policy": "ask-first"});
    let set = me.ok("social-policy", policy).await;
    assert_eq!(set["bot"]["policy"], "ask-first");
    let bad = json!({"botId": mine.id, "policy": "whenever"});
    me.refused("social-policy", bad, "bot/invalid").await;
}

/// Alice's mock: Helper lists its keys when asked which it holds.
const KEYS: &str = r#"[
  {"when": {"userContains": "which keys", "step": 0},
   "reply": {"toolCalls": [{"name": "list_secrets", "arguments": {}}]}},
  {"when": {"afterTool": "*"}, "reply": {"text": "listed"}}
]"#;

#[tokio::test]
/// Rule #651.
async fn a_turn_for_a_remote_asker_gets_no_secrets_and_says_why() {
    let Some(synapse) = start_synapse().await else {
        return;
    };
    let alice_id = synapse.register("alice", &password("alice")).await;
    let alice = Kit::scripted(serde_json::from_str(KEYS).unwrap()).await;
    let body = json!({"homeserver": synapse.base_url, "user": synapse.user("alice"), "password": password("alice")});
    alice.ok("social-connect", body).await;
    let bob = home(&synapse, "bob").await;
    alice
        .ok("social-friend-add", json!({"userId": bob.user}))
        .await;
    bob.kit
        .ok("social-friend-add", json!({"userId": alice_id}))
        .await;
    let helper = alice.bot("Helper").await;
    let key = json!({"name": "DEPLOY_KEY", "value": "deploy-value-5be1"});
    alice.ok("secret-set", key).await;
    // The owner's own line: the key is Helper's to use.
    alice.say(&helper.session, "which keys do you hold?");
    alice.idle(&helper.session).await;
    let own = alice.tool_results(&helper.session);
    assert!(own[0].0.contains("DEPLOY_KEY: you may use it"), "{own:?}");

    let body = json!({"botId": helper.id, "userId": bob.user});
    alice.ok("social-publish", body).await;
    let seen = until(&bob.kit, "Helper on Bob's page", |v| {
        super::remote_bot(v, "Helper (Owner)").is_some()
    })
    .await;
    let room = super::remote_bot(&seen, "Helper (Owner)").unwrap()["roomId"].clone();
    let ask = json!({"roomId": room, "text": "which keys do you hold?"});
    bob.kit.ok("social-send", ask).await;
    let results = alice
        .until_some("Helper's answer to Bob", async || {
            let results = alice.tool_results(&helper.session);
            (results.len() == 2).then_some(results)
        })
        .await;
    let remote = &results[1].0;
    assert!(
        remote.contains("DEPLOY_KEY: withheld (remote-bot)"),
        "{remote}"
    );
    assert!(!remote.contains("you may use it"), "{remote}");
    assert!(!remote.contains("deploy-value-5be1"));
}

#[tokio::test]
async fn an_invite_from_a_stranger_is_kept_across_a_restart_until_declined() {
    let Some(synapse) = start_synapse().await else {
        return;
    };
    let alice = home(&synapse, "alice").await;
    let carol_id = synapse.register("carol", &password("carol")).await;
    let carol = RawMatrix::login(
        &synapse.base_url,
        &synapse.user("carol"),
        &password("carol"),
    )
    .await;
    carol.create_room(&alice.user, json!([])).await;
    until(&alice.kit, "Carol's invite", |v| {
        v["invites"] == json!([carol_id])
    })
    .await;
    let kit = alice.kit.restart().await;
    // Kept in the team: the sync token is past the invite already.
    assert_eq!(view(&kit).await["invites"], json!([carol_id]));
    let declined = kit
        .ok("social-friend-decline", json!({"userId": carol_id}))
        .await;
    assert_eq!(declined["declined"], 1);
    assert_eq!(view(&kit).await["invites"], json!([]));
    let kit = kit.restart().await;
    assert_eq!(view(&kit).await["invites"], json!([]));
    // Declined once is gone: a second decline is refused and brings nothing
    // back. (The whole home is not compared: the live /sync loop moves its
    // token between any two looks.)
    let again = json!({"userId": carol_id});
    let (status, answer) = kit.anyone().post("social-friend-decline", again).await;
    assert_eq!(
        (status, &answer["error"]["code"]),
        (404, &json!("bot/not-found")),
        "{answer}"
    );
    assert_eq!(view(&kit).await["invites"], json!([]));
}
