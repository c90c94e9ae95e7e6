//! Search across chats and rooms (issue 31): a member finds lines only in
//! the conversations it may read (its Bots' own chats, the rooms from its
//! membership window on, #50, #53), each hit opens at its line, a query is
//! words only, and an index lost with its file is rebuilt from the logs.

use flybot_testkit::{Kit, Member};
use serde_json::{Value, json};

async fn hits(kit: &Kit, who: &Member, query: &str) -> Vec<Value> {
    let answer = kit
        .as_member(who)
        .ok("search", json!({"query": query}))
        .await;
    answer["hits"].as_array().cloned().unwrap_or_default()
}

/// A hit's snippet as plain text.
fn said(hit: &Value) -> String {
    hit["snippet"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["text"].as_str().unwrap())
        .collect()
}

/// Whether a person wrote the hit's line (the test's people are Ada and Bob).
fn by_a_person(hit: &Value) -> bool {
    matches!(hit["author"].as_str(), Some("Ada" | "Bob"))
}

#[tokio::test(start_paused = true)]
async fn a_member_never_finds_another_members_chat_nor_a_room_line_before_he_joined_31() {
    let kit = Kit::new().await;
    let [ada, bob] = kit.members(["Ada", "Bob"]).await;
    let worker = kit.as_member(&ada).bot("Worker").await;
    let bobs = kit.as_member(&bob).bot("Helper").await;
    kit.as_member(&ada)
        .ok(
            "send",
            json!({"botId": worker.id, "text": "walrus plan, Ada's own chat"}),
        )
        .await;
    kit.as_member(&bob)
        .ok(
            "send",
            json!({"botId": bobs.id, "text": "walrus notes, Bob's own chat"}),
        )
        .await;
    kit.idle(&worker.session).await;
    kit.idle(&bobs.session).await;
    let room = kit.as_member(&ada).room("Desk", &[&worker]).await;
    kit.as_member(&ada)
        .ok(
            "send",
            json!({"roomId": room.id, "text": "walrus before Bob came"}),
        )
        .await;
    kit.round_ended(&room).await;
    // Bob's Bot is seated later: Bob's window opens there (#50).
    // Scoped to the room: his Bot's own chat stays his.
    let grant =
        json!({"botId": bobs.id, "grants": [{"grantee": ada.member_id, "roomId": room.id}]});
    kit.as_member(&bob).ok("set-grants", grant).await;
    let body = json!({"id": room.id, "members": [worker.id, bobs.id]});
    kit.as_member(&ada).ok("update-room", body).await;
    kit.as_member(&ada)
        .ok(
            "send",
            json!({"roomId": room.id, "text": "walrus after Bob came"}),
        )
        .await;
    kit.round_ended(&room).await;
    kit.settled().await;

    // The mock model answers with what it was given, so Bots' lines match
    // too; the people's lines say whose windows were searched.
    let found = hits(&kit, &bob, "walrus").await;
    let mut by_people: Vec<String> = found.iter().filter(|h| by_a_person(h)).map(said).collect();
    by_people.sort();
    assert_eq!(
        by_people,
        ["walrus after Bob came", "walrus notes, Bob's own chat"]
    );
    // Every hit is one Bob may read: his Bot's chat, or a room line of his
    // window, as the room's own `messages` shows it to him.
    let lines = kit
        .as_member(&bob)
        .ok("messages", json!({"roomId": room.id}))
        .await;
    let readable: Vec<&Value> = lines["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| &l["seq"])
        .collect();
    for hit in &found {
        match hit["place"].as_str() {
            Some("chat") => assert_eq!(hit["botId"], bobs.id.as_str(), "{hit}"),
            Some("room") => assert!(
                readable.contains(&&hit["seq"]),
                "outside Bob's window: {hit}"
            ),
            other => panic!("a hit in {other:?}"),
        }
    }
    assert!(!Value::Array(found).to_string().contains(&worker.id));

    let adas: Vec<String> = hits(&kit, &ada, "walrus")
        .await
        .iter()
        .filter(|h| by_a_person(h))
        .map(said)
        .collect();
    assert!(
        adas.iter().any(|t| t == "walrus before Bob came"),
        "{adas:?}"
    );
    assert!(
        adas.iter().any(|t| t == "walrus plan, Ada's own chat"),
        "{adas:?}"
    );
    assert!(
        !adas.iter().any(|t| t.contains("Bob's own chat")),
        "{adas:?}"
    );
}

#[tokio::test(start_paused = true)]
async fn a_chat_hit_names_its_bot_and_line_and_marks_the_matched_word_31() {
    let kit = Kit::new().await;
    let [ada] = kit.members(["Ada"]).await;
    let bot = kit.as_member(&ada).bot("Scribe").await;
    kit.as_member(&ada)
        .ok(
            "send",
            json!({"botId": bot.id, "text": "Remember the pelican budget for Friday"}),
        )
        .await;
    kit.idle(&bot.session).await;
    // A word still being typed finds its line too.
    let found: Vec<Value> = hits(&kit, &ada, "pelic")
        .await
        .into_iter()
        .filter(by_a_person)
        .collect();
    assert_eq!(found.len(), 1, "{found:?}");
    let hit = &found[0];
    assert_eq!(
        (hit["place"].as_str(), hit["botId"].as_str()),
        (Some("chat"), Some(bot.id.as_str()))
    );
    assert_eq!(
        (hit["name"].as_str(), hit["author"].as_str()),
        (Some("Scribe"), Some("Ada"))
    );
    let marked: Vec<&Value> = hit["snippet"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|p| p["hit"] == true)
        .collect();
    assert_eq!(marked.len(), 1);
    assert_eq!(marked[0]["text"], "pelican");
    let chat = kit
        .as_member(&ada)
        .ok("messages", json!({"botId": bot.id}))
        .await;
    let line = chat["messages"]
        .as_array()
        .unwrap()
        .iter()
        .find(|l| l["seq"] == hit["seq"])
        .unwrap();
    assert_eq!(line["text"], "Remember the pelican budget for Friday");
}

#[tokio::test(start_paused = true)]
async fn a_query_with_no_word_or_a_limit_out_of_range_is_refused_and_an_operator_is_a_word_31() {
    let kit = Kit::new().await;
    let [ada] = kit.members(["Ada"]).await;
    let calls = kit.as_member(&ada);
    let refused = calls
        .refused("search", json!({"query": " ( ) * \" "}), "bot/invalid")
        .await;
    assert_eq!(refused["error"]["details"]["field"], "query");
    let refused = calls
        .refused("search", json!({"query": "x", "limit": 0}), "bot/invalid")
        .await;
    assert_eq!(refused["error"]["details"]["field"], "limit");
    calls
        .refused("search", json!({"query": "x".repeat(201)}), "bot/invalid")
        .await;
    calls
        .refused(
            "search",
            json!({"query": "x", "scope": "all"}),
            "bot/invalid",
        )
        .await;
    // FTS5's own syntax typed as a query is searched for as words.
    for query in ["NOT x", "text:x", "x OR", "NEAR(x y)", "\"x"] {
        let answer = calls.ok("search", json!({"query": query})).await;
        assert_eq!(answer["hits"], json!([]), "{query}");
    }
}

#[tokio::test(start_paused = true)]
async fn an_index_lost_with_its_file_is_rebuilt_from_the_logs_at_start_31() {
    let kit = Kit::new().await;
    let [ada] = kit.members(["Ada"]).await;
    let bot = kit.as_member(&ada).bot("Scribe").await;
    kit.as_member(&ada)
        .ok(
            "send",
            json!({"botId": bot.id, "text": "the osprey migration"}),
        )
        .await;
    kit.idle(&bot.session).await;
    let mine = |found: Vec<Value>| found.into_iter().filter(by_a_person).count();
    assert_eq!(mine(hits(&kit, &ada, "osprey").await), 1);
    let home = kit.home().to_owned();
    let kit = kit
        .restart_with(|_| {
            for side in ["", "-wal", "-shm"] {
                let _ = std::fs::remove_file(home.join(format!("search.sqlite{side}")));
            }
        })
        .await;
    assert_eq!(
        mine(hits(&kit, &ada, "osprey").await),
        1,
        "rebuilt from the Session log"
    );
}
