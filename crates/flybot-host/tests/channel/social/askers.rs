//! A friend's Bot asked by several of this home's Bots (issue 33), against
//! a real Synapse: Bob's Scout and Ranger ask Alice's Helper at once and
//! each gets its own answer (the answer names the event it answers); a
//! Bot whose policy is `ask-first` has its line held for Bob's Send (#52).

use super::holds::until_held;
use super::{friend_lines, password, remote_bot, until, view};
use flybot_agent::session::Source;
use flybot_testkit::Kit;
use flybot_testkit::synapse::start_synapse;
use serde_json::json;

/// Bob's mock: Scout and Ranger each ask Alice's Helper their question.
const SCRIPT: &str = r#"[
  {"when": {"userContains": "scout asks", "step": 0},
   "reply": {"toolCalls": [{"name": "message_bot", "arguments": {"to": "Helper (Owner)", "text": "question from scout"}}]}},
  {"when": {"userContains": "ranger asks", "step": 0},
   "reply": {"toolCalls": [{"name": "message_bot", "arguments": {"to": "Helper (Owner)", "text": "question from ranger"}}]}},
  {"when": {"afterTool": "*"}, "reply": {"text": "asked"}}
]"#;

/// Alice (on the plain mock) publishes Helper to Bob (scripted).
async fn alice_and_scripted_bob(
    synapse: &flybot_testkit::synapse::Synapse,
) -> (super::Home, Kit, flybot_testkit::Bot) {
    let alice = super::home(synapse, "alice").await;
    let bob_id = synapse.register("bob", &password("bob")).await;
    let bob = Kit::scripted(serde_json::from_str(SCRIPT).unwrap()).await;
    let body = json!({"homeserver": synapse.base_url, "user": synapse.user("bob"), "password": password("bob")});
    bob.ok("social-connect", body).await;
    let add = |user: &str| json!({"userId": user});
    alice.kit.ok("social-friend-add", add(&bob_id)).await;
    bob.ok("social-friend-add", add(&alice.user)).await;
    let helper = alice.kit.bot("Helper").await;
    let body = json!({"botId": helper.id, "userId": bob_id});
    alice.kit.ok("social-publish", body).await;
    until(&bob, "Helper on Bob's page", |v| {
        remote_bot(v, "Helper (Owner)").is_some()
    })
    .await;
    (alice, bob, helper)
}

#[tokio::test]
async fn two_local_bots_asking_one_friends_bot_at_once_each_get_their_own_answer() {
    let Some(synapse) = start_synapse().await else {
        return;
    };
    let (alice, bob, helper) = alice_and_scripted_bob(&synapse).await;
    let [scout, ranger] = bob.bots(["Scout", "Ranger"]).await;
    bob.say(&scout.session, "scout asks");
    bob.say(&ranger.session, "ranger asks");
    for (bot, question) in [(&scout, "scout"), (&ranger, "ranger")] {
        let what = format!("the answer in {}'s chat", bot.name);
        let back = bob
            .until_some(&what, async || {
                friend_lines(&bob, &bot.session).into_iter().next()
            })
            .await;
        assert!(matches!(&back.1, Source::Friend { home, .. } if *home == alice.user));
        // Each answer is to its own asker's question, not the other's.
        let other = if question == "scout" {
            "ranger"
        } else {
            "scout"
        };
        let own = back.0.contains(&format!("question from {question}"));
        let theirs = back.0.contains(&format!("question from {other}"));
        assert!(own || !theirs, "{} got {}", bot.name, back.0);
    }
    alice.kit.idle(&helper.session).await;
    assert_eq!(friend_lines(&alice.kit, &helper.session).len(), 2);
    bob.idle(&scout.session).await;
    bob.idle(&ranger.session).await;
    assert_eq!(friend_lines(&bob, &scout.session).len(), 1);
    assert_eq!(friend_lines(&bob, &ranger.session).len(), 1);
    let row = view(&bob).await;
    let row = remote_bot(&row, "Helper (Owner)").unwrap();
    let from_alice = row["lines"].as_array().unwrap();
    let answers = from_alice.iter().filter(|l| l["fromHome"] == alice.user);
    assert_eq!(answers.count(), 2);
}

#[tokio::test]
/// Rule #52.
async fn a_local_bots_line_to_a_friends_bot_is_held_when_its_policy_says_so() {
    let Some(synapse) = start_synapse().await else {
        return;
    };
    let (alice, bob, helper) = alice_and_scripted_bob(&synapse).await;
    let scout = bob.bot("Scout").await;
    let body = json!({"botId": scout.id, "policy": "ask-first"});
    bob.ok("social-policy", body).await;
    bob.say(&scout.session, "scout asks");
    bob.idle(&scout.session).await;
    let said = bob.tool_results(&scout.session);
    assert!(
        said[0].0.contains("Held for your owner's approval"),
        "{said:?}"
    );
    let held = until_held(&bob, "Scout's line held").await;
    assert_eq!(held["botId"], scout.id);
    assert_eq!(held["reply"], false);
    assert_eq!(held["to"], "Helper (Owner)");
    assert_eq!(held["text"], "question from scout");
    // #371: the friend's chat counts it; Scout counts its own held send.
    let seen = view(&bob).await;
    let row = remote_bot(&seen, "Helper (Owner)").unwrap();
    assert_eq!(row["pendingCount"], 1);
    assert_eq!(
        row["awaiting"], false,
        "#443: nothing sent, nothing awaited"
    );
    assert_eq!(seen["bots"][0]["botId"], scout.id);
    assert_eq!(seen["bots"][0]["pendingCount"], 1);
    assert!(friend_lines(&alice.kit, &helper.session).is_empty());

    let id = held["id"].as_str().unwrap();
    let sent = bob
        .ok("social-hold-answer", json!({"id": id, "send": true}))
        .await;
    assert_eq!(sent["status"], "approved");
    let back = bob
        .until_some("the answer in Scout's chat", async || {
            friend_lines(&bob, &scout.session).into_iter().next()
        })
        .await;
    assert!(back.0.contains("question from scout"), "{}", back.0);
    assert_eq!(friend_lines(&alice.kit, &helper.session).len(), 1);
}
