//! Refusals name nothing the caller may not see (issue 29): a second member
//! who names the owner's Bot, room or card by id is refused without the
//! record's name or title, and nothing changes; the owner keeps hers.

use flybot_testkit::Kit;
use serde_json::json;

const UNSEEN_BOT: &str = "There is no Bot with that id you can see.";
const UNSEEN_ROOM: &str = "There is no room with that id you can see.";

#[tokio::test]
async fn unseen_names_29_a_refusal_echoes_no_name_or_title_the_caller_may_not_see() {
    let kit = Kit::new().await;
    let [ann, bob] = kit.members(["Ann", "Bob"]).await;
    let (owner, second) = (kit.as_member(&ann), kit.as_member(&bob));
    let [ada, bo] = owner.bots(["Ada Secret", "Bo Secret"]).await;
    let room = owner.room("Secret Room", &[&ada, &bo]).await;
    let card = owner.card(&ada.id, "Secret plan").await;
    let rex = second.bot("Rex").await;
    // The host's first Main Bot is Ann's.
    let chief = kit.bot_named("Chief");
    let bot_refusals = [
        ("update-bot", json!({"id": ada.id, "name": "Mine"})),
        ("delete-bot", json!({"id": ada.id})),
        ("set-main", json!({"id": rex.id, "replace": chief})),
    ];
    for (endpoint, body) in bot_refusals {
        let refused = second.refused(endpoint, body, "bot/forbidden").await;
        assert_eq!(refused["error"]["message"], UNSEEN_BOT, "{endpoint}");
    }
    let refused = second
        .refused(
            "update-room",
            json!({"id": room.id, "name": "Mine"}),
            "bot/forbidden",
        )
        .await;
    assert_eq!(refused["error"]["message"], UNSEEN_ROOM);
    // A card: whatever the refusal, it does not carry the title.
    let (status, answer) = second
        .post("task-update", json!({"id": card, "progress": 50}))
        .await;
    assert!((400..500).contains(&status), "{answer}");
    assert!(!answer.to_string().contains("Secret"), "{answer}");
    // The owner sees her own names in a refusal that is about them.
    let refused = owner
        .refused(
            "update-bot",
            json!({"id": ada.id, "name": "Bo Secret"}),
            "bot/invalid",
        )
        .await;
    assert!(
        refused["error"]["message"]
            .as_str()
            .unwrap()
            .contains("Bo Secret")
    );
}
