//! A local Bot writes to a friend's Bot (issue 33): Bob's Scout calls
//! `message_bot` with the friend's Bot's label (#967); the line goes over
//! Matrix as a Bot's, not a person's (#227), Alice's home runs the turn
//! under its own grants, and the answer comes back into Scout's chat,
//! fenced, as the friend's home's line.

use super::{friend_lines, password, remote_bot, until};
use flybot_agent::session::Source;
use flybot_testkit::Kit;
use flybot_testkit::synapse::start_synapse;
use serde_json::json;

/// Bob's mock: "ask the helper" makes Scout message Alice's Helper;
/// "ask nobody" names a Bot no home shares.
const SCRIPT: &str = r#"[
  {"when": {"userContains": "ask the helper", "step": 0},
   "reply": {"toolCalls": [{"name": "message_bot", "arguments": {"to": "helper (owner)", "text": "what is the plan?"}}]}},
  {"when": {"userContains": "ask nobody", "step": 0},
   "reply": {"toolCalls": [{"name": "message_bot", "arguments": {"to": "Ghost (Nobody)", "text": "hello?"}}]}},
  {"when": {"afterTool": "*"}, "reply": {"text": "finished"}}
]"#;

#[tokio::test]
/// Rules #967, #227.
async fn a_local_bot_writes_to_a_friends_bot_by_its_label_and_gets_the_answer_back() {
    let Some(synapse) = start_synapse().await else {
        return;
    };
    let alice = super::home(&synapse, "alice").await;
    let bob_id = synapse.register("bob", &password("bob")).await;
    let bob = Kit::scripted(serde_json::from_str(SCRIPT).unwrap()).await;
    let body = json!({"homeserver": synapse.base_url, "user": synapse.user("bob"), "password": password("bob")});
    bob.ok("social-connect", body).await;
    alice
        .kit
        .ok("social-friend-add", json!({"userId": bob_id}))
        .await;
    bob.ok("social-friend-add", json!({"userId": alice.user}))
        .await;
    let helper = alice.kit.bot("Helper").await;
    let body = json!({"botId": helper.id, "userId": bob_id});
    alice.kit.ok("social-publish", body).await;
    until(&bob, "Helper on Bob's page", |v| {
        remote_bot(v, "Helper (Owner)").is_some()
    })
    .await;
    let scout = bob.bot("Scout").await;

    bob.say(&scout.session, "ask the helper");
    // The answer comes back into Scout's chat as Alice's home's line.
    let back = bob
        .until_some("Helper's answer in Scout's chat", async || {
            friend_lines(&bob, &scout.session).into_iter().next()
        })
        .await;
    assert!(back.0.contains("what is the plan?"), "{}", back.0);
    assert!(back.0.contains('<'), "fenced (#98): {}", back.0);
    assert!(matches!(&back.1, Source::Friend { home, typed: false, .. } if *home == alice.user));
    // At Alice's, Helper took it as a Bot's line from Bob's home (#227).
    let took = friend_lines(&alice.kit, &helper.session);
    assert_eq!(took.len(), 1);
    assert!(matches!(&took[0].1, Source::Friend { home, typed: false, .. } if *home == bob_id));
    // Bob's row shows Scout's line, not a person's, then the answer.
    let seen = super::view(&bob).await;
    let row = remote_bot(&seen, "Helper (Owner)").unwrap();
    assert_eq!(row["lines"][0]["bot"], scout.id);
    assert!(row["lines"][0].get("typedBy").is_none(), "{row}");
    assert_eq!(row["lines"][1]["fromHome"], alice.user);
    // Scout's answer owes Alice nothing: one line each way.
    bob.idle(&scout.session).await;
    alice.kit.idle(&helper.session).await;
    assert_eq!(friend_lines(&alice.kit, &helper.session).len(), 1);

    // A name no team Bot and no friend's Bot has is refused as before.
    bob.say(&scout.session, "ask nobody");
    bob.idle(&scout.session).await;
    let results = bob.tool_results(&scout.session);
    let last = results.last().unwrap();
    assert!(
        last.0.contains("No Bot named Ghost (Nobody)"),
        "{results:?}"
    );
}
