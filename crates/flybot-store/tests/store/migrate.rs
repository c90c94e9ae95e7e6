//! Loading `state.json` (#47): migration of version 1 with its one-time
//! backup, and every case that must fail closed.

use crate::support::{add_bot, options, read};
use flybot_protocol::ErrorCode;
use flybot_store::{ReadOnlyReason, Store, StoreStatus};
use serde_json::{Value, json};
use std::path::Path;

fn v1_bytes() -> Vec<u8> {
    serde_json::to_vec_pretty(&json!({
        "version": 1,
        "journalSeq": 0,
        "bots": {
            "bot-a": {"id": "bot-a", "name": "A", "sessionId": "s-a", "createdAt": 1, "updatedAt": 1},
            "bot-b": {"id": "bot-b", "name": "B", "sessionId": "s-b", "createdAt": 1, "updatedAt": 1},
        },
        "mainBotIds": ["bot-gone", "bot-b", "bot-a"],
        "legacyField": {"kept": true},
    }))
    .unwrap()
}

fn damaged_why(store: &Store) -> String {
    match store.status() {
        StoreStatus::ReadOnly(ReadOnlyReason::Damaged { why }) => why,
        other => panic!("expected a damaged home, got {other:?}"),
    }
}

fn on_disk(home: &Path) -> Value {
    serde_json::from_slice(&read(&home.join("state.json"))).unwrap()
}

#[tokio::test]
/// Rule #47.
async fn version_1_is_migrated_with_a_backup() {
    let dir = tempfile::tempdir().unwrap();
    let original = v1_bytes();
    std::fs::write(dir.path().join("state.json"), &original).unwrap();
    let store = Store::open(dir.path(), options()).unwrap();
    assert_eq!(store.status(), StoreStatus::Writer);
    assert_eq!(read(&dir.path().join("state.json.v1")), original);

    let team = store.read(|t| t.clone());
    assert_eq!(team.version, 2);
    assert_eq!(team.members.len(), 1);
    let (owner_id, owner) = team.members.iter().next().unwrap();
    assert_eq!(owner.name, "Owner");
    assert!(owner_id.starts_with("member-") && owner_id.len() == "member-".len() + 16);
    assert!(team.bots.values().all(|b| &b.owner_id == owner_id));
    assert_eq!(team.designated_chief_id.as_deref(), Some("bot-b"));
    assert_eq!(team.extra["legacyField"], json!({"kept": true}));

    let saved = on_disk(dir.path());
    assert_eq!(saved["version"], 2);
    assert_eq!(saved["bots"]["bot-a"]["ownerId"], json!(owner_id));
    // The migrated home takes changes.
    add_bot(&store, "bot-c").await;
    store.close().await.unwrap();
}

#[tokio::test]
/// Rule #47.
async fn an_existing_valid_backup_is_kept() {
    let dir = tempfile::tempdir().unwrap();
    let older = serde_json::to_vec(&json!({"version": 1, "bots": {}})).unwrap();
    std::fs::write(dir.path().join("state.json.v1"), &older).unwrap();
    std::fs::write(dir.path().join("state.json"), v1_bytes()).unwrap();
    let store = Store::open(dir.path(), options()).unwrap();
    assert_eq!(store.status(), StoreStatus::Writer);
    assert_eq!(read(&dir.path().join("state.json.v1")), older);
    assert_eq!(on_disk(dir.path())["version"], 2);
}

#[tokio::test]
/// Rule #47.
async fn a_bad_backup_fails_closed_and_writes_nothing() {
    type Make = fn(&Path);
    let cases: [(&str, Make); 4] = [
        ("a directory", |p| std::fs::create_dir(p).unwrap()),
        ("not JSON", |p| std::fs::write(p, b"{ torn").unwrap()),
        ("version 2", |p| {
            std::fs::write(p, br#"{"version": 2}"#).unwrap()
        }),
        ("not an object", |p| std::fs::write(p, b"[1]").unwrap()),
    ];
    for (what, make) in cases {
        let dir = tempfile::tempdir().unwrap();
        let original = v1_bytes();
        std::fs::write(dir.path().join("state.json"), &original).unwrap();
        make(&dir.path().join("state.json.v1"));
        let store = Store::open(dir.path(), options()).unwrap();
        let why = damaged_why(&store);
        assert!(why.contains("state.json.v1"), "{what}: {why}");
        assert_eq!(read(&dir.path().join("state.json")), original, "{what}");
        assert!(!dir.path().join("journal.jsonl").exists(), "{what}");
        let refused = store
            .mutate("host", |c| {
                c.set_pref("x", Some(&json!(1)));
                Ok(())
            })
            .await
            .unwrap_err();
        assert_eq!(refused.code, ErrorCode::Unavailable, "{what}");
    }
}

#[tokio::test]
/// Rule #47.
async fn malformed_ownership_fails_closed() {
    let bot = |owner: Value| {
        let mut bot =
            json!({"id": "bot-x", "name": "X", "sessionId": "s", "createdAt": 1, "updatedAt": 1});
        if !owner.is_null() {
            bot["ownerId"] = owner;
        }
        bot
    };
    let member = json!({"m-1": {"id": "m-1", "name": "Ada", "createdAt": 1}});
    let cases = [
        (
            "v1 numeric owner",
            json!({"version": 1, "bots": {"bot-x": bot(json!(5))}}),
        ),
        (
            "v2 missing owner",
            json!({"version": 2, "members": member, "bots": {"bot-x": bot(Value::Null)}}),
        ),
        (
            "v2 numeric owner",
            json!({"version": 2, "members": member, "bots": {"bot-x": bot(json!(7))}}),
        ),
        (
            "v2 unknown owner",
            json!({"version": 2, "members": member, "bots": {"bot-x": bot(json!("m-2"))}}),
        ),
    ];
    for (what, state) in cases {
        let dir = tempfile::tempdir().unwrap();
        let bytes = serde_json::to_vec_pretty(&state).unwrap();
        std::fs::write(dir.path().join("state.json"), &bytes).unwrap();
        let store = Store::open(dir.path(), options()).unwrap();
        let why = damaged_why(&store);
        assert!(why.contains("bot-x"), "{what}: {why}");
        assert_eq!(read(&dir.path().join("state.json")), bytes, "{what}");
        assert!(!dir.path().join("state.json.v1").exists(), "{what}");
    }
}

#[tokio::test]
/// Rule #47.
async fn a_newer_version_only_reads() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = br#"{"version": 3, "bots": {}, "newThing": 1}"#.to_vec();
    std::fs::write(dir.path().join("state.json"), &bytes).unwrap();
    let store = Store::open(dir.path(), options()).unwrap();
    let why = damaged_why(&store);
    assert!(why.contains("newer FlyBot (version 3)"), "{why}");
    let refused = store
        .mutate("host", |c| {
            c.set_pref("x", Some(&json!(1)));
            Ok(())
        })
        .await
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::Unavailable);
    store.close().await.unwrap();
    assert_eq!(read(&dir.path().join("state.json")), bytes);
    // A damaged home never takes over, even with the lock free.
    assert!(matches!(
        store.status(),
        StoreStatus::ReadOnly(ReadOnlyReason::Damaged { .. })
    ));
}

#[tokio::test]
async fn a_file_that_is_not_a_team_opens_read_only() {
    for bytes in [&b"not json"[..], b"[]", br#"{"bots": {}}"#] {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("state.json"), bytes).unwrap();
        let store = Store::open(dir.path(), options()).unwrap();
        assert!(damaged_why(&store).contains("state.json"));
        assert_eq!(read(&dir.path().join("state.json")), bytes);
    }
}

#[tokio::test]
async fn unknown_fields_survive_a_write() {
    let dir = tempfile::tempdir().unwrap();
    let state = json!({
        "version": 2,
        "members": {"m-1": {"id": "m-1", "name": "Ada", "createdAt": 1, "badge": "gold"}},
        "bots": {"bot-x": {"id": "bot-x", "name": "X", "ownerId": "m-1", "sessionId": "s", "createdAt": 1, "updatedAt": 1, "mood": "calm"}},
        "future": {"nested": [1, 2, 3]},
    });
    std::fs::write(
        dir.path().join("state.json"),
        serde_json::to_vec_pretty(&state).unwrap(),
    )
    .unwrap();
    let store = Store::open(dir.path(), options()).unwrap();
    assert_eq!(store.status(), StoreStatus::Writer);
    store
        .mutate("host", |c| {
            let mut bot = c.state().bots["bot-x"].clone();
            bot.name = "Renamed".to_owned();
            c.put_bot(&bot);
            Ok(())
        })
        .await
        .unwrap();
    store.close().await.unwrap();
    let saved = on_disk(dir.path());
    assert_eq!(saved["future"], json!({"nested": [1, 2, 3]}));
    assert_eq!(saved["bots"]["bot-x"]["mood"], "calm");
    assert_eq!(saved["bots"]["bot-x"]["name"], "Renamed");
    assert_eq!(saved["members"]["m-1"]["badge"], "gold");
}
