//! Harness tiers on the channel (#874 Step 1, #903): a Bot carries a tier
//! the form picked, an unknown tier is refused and changes nothing, and
//! each usage row names the harness its turn ran under: the Bot's tier, or
//! the tier `note_usage_harness` noted for the Session.

use flybot_core::harness::IdOrLabels;
use flybot_testkit::Kit;
use serde_json::{Value, json};

async fn rows(kit: &Kit, bot: &str, n: usize) -> Vec<Value> {
    let what = format!("the usage ledger reaches {n} rows");
    kit.until_some(&what, async || {
        let answer = kit.ok("usage", json!({"botId": bot})).await;
        let rows = answer["rows"].as_array().unwrap().clone();
        (rows.len() >= n).then_some(rows)
    })
    .await
}

fn harnesses(rows: &[Value]) -> Vec<&str> {
    rows.iter()
        .map(|r| r["harness"].as_str().unwrap())
        .collect()
}

#[tokio::test]
/// Rule #874.
async fn a_bots_tier_names_its_usage_rows_and_a_session_note_wins() {
    let kit = Kit::new().await;
    let bot = kit
        .anyone()
        .bot_from(json!({"name": "Ada", "harness": "lite"}))
        .await;
    let answer = kit.ok("update-bot", json!({"id": bot.id})).await;
    assert_eq!(answer["bot"]["harness"], "lite");
    kit.say(&bot.session, "hello");
    kit.idle(&bot.session).await;
    assert_eq!(harnesses(&rows(&kit, &bot.id, 1).await), ["lite"]);

    let noted = kit
        .host
        .note_usage_harness(
            &bot.session,
            &IdOrLabels::Labels(vec!["harness:heavy".into()]),
        )
        .unwrap();
    assert_eq!(noted.as_str(), "heavy");
    kit.say(&bot.session, "again");
    kit.idle(&bot.session).await;
    assert_eq!(harnesses(&rows(&kit, &bot.id, 2).await), ["lite", "heavy"]);

    // Clearing the note goes back to the Bot's own tier.
    kit.host
        .note_usage_harness(&bot.session, &IdOrLabels::Id("default".into()))
        .unwrap();
    kit.say(&bot.session, "once more");
    kit.idle(&bot.session).await;
    assert_eq!(
        harnesses(&rows(&kit, &bot.id, 3).await),
        ["lite", "heavy", "lite"]
    );
}

#[tokio::test]
/// Rule #874.
async fn an_unknown_tier_is_refused_and_the_bot_keeps_its_own() {
    let kit = Kit::new().await;
    let bot = kit
        .anyone()
        .bot_from(json!({"name": "Ada", "harness": "medium"}))
        .await;
    let refusal = kit
        .refused(
            "update-bot",
            json!({"id": bot.id, "harness": "turbo"}),
            "bot/invalid",
        )
        .await;
    assert!(refusal["error"]["message"].as_str().unwrap().len() > 10);
    kit.refused(
        "create-bot",
        json!({"name": "Bo", "harness": "x"}),
        "bot/invalid",
    )
    .await;
    let answer = kit.ok("update-bot", json!({"id": bot.id})).await;
    assert_eq!(answer["bot"]["harness"], "medium");
    // Bad labels or an unknown id in a note are refused too.
    assert!(
        kit.host
            .note_usage_harness(&bot.session, &IdOrLabels::Id("turbo".into()))
            .is_err()
    );
    assert!(
        kit.host
            .note_usage_harness(
                &bot.session,
                &IdOrLabels::Labels(vec!["harness:lite".into(), "harness:heavy".into()])
            )
            .is_err()
    );
    // `default` takes the tier off the record.
    let answer = kit
        .ok("update-bot", json!({"id": bot.id, "harness": "default"}))
        .await;
    assert!(answer["bot"].get("harness").is_none(), "{answer}");
}
