//! The payload OpenCode is sent (#198): explicitly selected text only, the
//! card's task input with its acceptance criterion for the request and the
//! requester's recorded answer for the answer, never the room round's text.

use crate::opencode_room::{asking_once, card_when, settled};
use serde_json::json;

#[tokio::test(flavor = "multi_thread")]
async fn private_data_and_injection_the_request_and_the_answer_are_selected_text_not_the_round() {
    let (kit, p) = asking_once().await;
    let say = |text: &str| json!({"roomId": p.room.id, "text": text});
    kit.ok("send", say("ROUND-ONLY-WORDS-1 @Coder start on the card"))
        .await;
    let blocked = card_when(&kit, &p.task, "blocked").await;
    let question = blocked["inputRequest"]["id"].as_str().unwrap();
    kit.ok(
        "task-answer-input",
        json!({"id": p.task, "questionId": question, "answer": "Dashes, please."}),
    )
    .await;
    kit.ok("send", say("ROUND-ONLY-WORDS-2 @Coder go on")).await;
    settled(&kit, &p.room).await;
    let prompts = kit
        .host
        .externals()
        .opencode()
        .seat(&p.room.id, &p.coder, &p.task)
        .unwrap()
        .runtime_prompts();
    assert_eq!(prompts.len(), 2, "{prompts:#?}");
    assert_eq!(
        prompts[0],
        "Task: Fixture task: make slugify's tests pass\nAcceptance criteria:\n- `node --test` passes in this workspace.\nIf anything is unclear, ask with your question tool."
    );
    assert_eq!(prompts[1], "Dashes, please.", "the requester's answer only");
    assert!(
        prompts.iter().all(|p| !p.contains("ROUND-ONLY-WORDS")),
        "{prompts:#?}"
    );
}
