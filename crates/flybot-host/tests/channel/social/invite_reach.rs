//! `reach()` and `ticketPeers` read one list (#923, #929), against a real
//! Synapse: Carol joins Alice's room by a link that knocked on Atlas, so
//! the one pair it opens is Atlas → Carol's Cleo in that room. Alice's
//! other Bot, Echo, is refused with the reach code when it writes to Cleo
//! and nothing is written; its @Cleo in the room goes as words and calls
//! nobody; Atlas's line reaches Cleo, who answers once.

use super::invite_links::{join_by_link, mint, room_record};
use super::shared_rooms::lines_until;
use super::{Home, password};
use flybot_testkit::synapse::{Synapse, start_synapse};
use flybot_testkit::{Kit, Room};
use serde_json::json;

/// Alice's mock: "pass it on" makes the Bot write to Carol's Cleo (titled
/// by Carol's login name, `carol`).
const SCRIPT: &str = r#"[
  {"when": {"userContains": "pass it on", "step": 0},
   "reply": {"toolCalls": [{"name": "message_bot", "arguments": {"to": "Cleo (CAROL)", "text": "the plan is ready"}}]}},
  {"when": {"afterTool": "*"}, "reply": {"text": "finished"}},
  {"reply": {"text": "noted"}}
]"#;

async fn scripted_home(synapse: &Synapse, name: &str, script: &str) -> Home {
    let user = synapse.register(name, &password(name)).await;
    let kit = Kit::scripted(serde_json::from_str(script).unwrap()).await;
    let body = json!({"homeserver": synapse.base_url, "user": synapse.user(name), "password": password(name)});
    kit.ok("social-connect", body).await;
    Home { kit, user }
}

#[tokio::test]
/// Rules #923, #929.
async fn only_the_bot_a_link_paired_writes_to_the_seat_it_made() {
    let Some(synapse) = start_synapse().await else {
        return;
    };
    let script = SCRIPT.replace("CAROL", &synapse.user("carol"));
    let alice = scripted_home(&synapse, "alice", &script).await;
    let atlas = alice.kit.bot("Atlas").await;
    let echo = alice.kit.bot("Echo").await;
    let plans = alice.kit.room("Plans", &[&atlas, &echo]).await;
    let carol = super::home(&synapse, "carol").await;
    let cleo = carol.kit.bot("Cleo").await;
    let link = mint(&alice, &plans, json!({})).await;
    let mirror = join_by_link(&alice, &plans, &carol, &link, &[&cleo]).await;
    let at_carol = Room {
        id: mirror["id"].as_str().unwrap().to_owned(),
        name: "Plans".into(),
    };

    // Echo is not the link's Bot: refused with the reach code, nothing
    // written to the room and so nothing sent.
    alice.kit.say(&echo.session, "pass it on");
    alice.kit.idle(&echo.session).await;
    let results = alice.kit.tool_results(&echo.session);
    let refused = &results.last().unwrap().0;
    assert!(refused.contains("not-shared"), "{results:?}");
    let written = |kit: &Kit, room: &Room| {
        (kit.room_lines(room).into_iter())
            .filter(|l| l.text.contains("the plan is ready"))
            .count()
    };
    assert_eq!(written(&alice.kit, &plans), 0);
    let before = room_record(&alice.kit, &plans.id);

    // Echo's own @Cleo in the room goes as words and calls nobody.
    (alice.kit.host.rooms())
        .post_bot_line(&plans.id, &echo.id, "@Cleo are you there?", 0, false)
        .unwrap();

    // Atlas holds the pair: its line reaches Cleo, who answers once.
    alice.kit.say(&atlas.session, "pass it on");
    alice.kit.idle(&atlas.session).await;
    let results = alice.kit.tool_results(&atlas.session);
    assert!(
        results.last().unwrap().0.contains("Sent to Cleo"),
        "{results:?}"
    );
    assert_eq!(written(&alice.kit, &plans), 1);
    let cleo_id = cleo.id.clone();
    // Echo's words and Atlas's call travel apart (the room's fan-out and
    // Atlas's send): both are awaited, in whichever order they land.
    lines_until(
        &carol.kit,
        &at_carol,
        "Echo's words and Cleo's answer to Atlas",
        |lines| {
            lines.iter().any(|l| l.contains("the plan is ready"))
                && lines.iter().any(|l| l.contains("are you there?"))
                && lines.iter().any(|l| l.starts_with(&format!("{cleo_id}: ")))
        },
    )
    .await;
    let session = room_record(&carol.kit, &at_carol.id);
    let session = mirror["sessions"][&cleo.id]
        .as_str()
        .or(session["sessions"][&cleo.id].as_str())
        .unwrap()
        .to_owned();
    carol.kit.idle(&session).await;
    let lines = carol.kit.room_lines(&at_carol);
    let answers = lines.iter().filter(|l| l.author_id == cleo.id).count();
    assert_eq!(answers, 1, "{lines:?}");
    // The host puts the called Bots' @names before the fence: Atlas's
    // line called Cleo, Echo's words went without a call.
    let from = |bot: &str, words: &str| {
        let author = format!("{}/{bot}", alice.user);
        (lines.iter())
            .filter(|l| l.author_id == author && l.text.contains(words))
            .map(|l| l.text.clone())
            .collect::<Vec<_>>()
    };
    let echoed = from(&echo.id, "are you there?");
    assert_eq!(echoed.len(), 1, "{lines:?}");
    assert!(echoed[0].starts_with("<untrusted-message"), "{echoed:?}");
    let paired = from(&atlas.id, "the plan is ready");
    assert_eq!(paired.len(), 1, "{lines:?}");
    assert!(
        paired[0].starts_with("@Cleo\n<untrusted-message"),
        "{paired:?}"
    );
    // The room's record of the link is what it was: the refusal changed
    // nothing there.
    let after = room_record(&alice.kit, &plans.id);
    assert_eq!(before["ticketSeats"], after["ticketSeats"]);
    assert_eq!(before["localInvites"], after["localInvites"]);
}
