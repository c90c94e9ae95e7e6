//! The task drive's wakes in the Bot's own chat (issue 31): the host marks
//! each `[Continue task]` line as an `event` the page draws muted, naming the
//! card ("Working on 'Write a haiku'"), never as a person's line; wakes for
//! one card in a row with nothing said between read as one line.

use flybot_testkit::Kit;
use serde_json::json;

#[tokio::test(start_paused = true)]
async fn three_wakes_for_one_card_read_as_one_muted_event_line_not_a_persons_message_issue_31() {
    // The Bot's wake turns say nothing, so the board stays as it was and the
    // drive wakes it again after each backoff.
    let kit = Kit::scripted(json!([{"reply": {"text": ""}}])).await;
    let bot = kit.bot("Poet").await;
    kit.card(&bot.id, "Write a haiku").await;
    kit.until("three wakes went out", || {
        kit.user_texts(&bot.session)
            .iter()
            .filter(|t| t.starts_with("[Continue task]"))
            .count()
            >= 3
    })
    .await;
    let answer = kit.ok("messages", json!({"botId": bot.id})).await;
    let lines = answer["messages"].as_array().unwrap();
    let events: Vec<_> = lines.iter().filter(|l| l["kind"] == "event").collect();
    assert_eq!(events.len(), 1, "{lines:?}");
    assert_eq!(events[0]["text"], "Working on 'Write a haiku'");
    assert!(events[0].get("source").is_none());
    assert!(
        lines.iter().all(|l| l["kind"] != "user"),
        "no wake reads as a person's line: {lines:?}"
    );
    assert!(
        lines
            .iter()
            .all(|l| !l["text"].as_str().unwrap_or("").contains("[Continue task]")),
        "{lines:?}"
    );
}
