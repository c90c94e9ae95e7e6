//! `flybot replay` (#511): byte-identical teams at every seq of a journal
//! that keeps history, and a whole-journal refusal for anything off.

use crate::support::{OWNER, add_bot, bot, member, options, pretty, room};
use flybot_protocol::state::Grant;
use flybot_store::{ReplayError, Store, StoreOptions, replay_file, replay_to};
use sha2::{Digest, Sha256};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

fn history() -> StoreOptions {
    StoreOptions {
        state_journal: true,
        ..options()
    }
}

fn journal(home: &Path) -> String {
    std::fs::read_to_string(home.join("journal.jsonl")).unwrap()
}

fn sha_hex(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[tokio::test]
/// Rule #511.
async fn a_three_bot_round_replays_byte_identical_at_every_step() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path(), history()).unwrap();
    let mut seen = vec![(store.revision(), store.read(pretty))];
    type Step = Box<dyn Fn(&mut flybot_store::Change<'_>)>;
    let steps: Vec<Step> = vec![
        Box::new(|c| c.put_member(&member(OWNER))),
        Box::new(|c| c.put_bot(&bot("bot-a", OWNER))),
        Box::new(|c| c.put_bot(&bot("bot-b", OWNER))),
        Box::new(|c| c.put_bot(&bot("bot-c", OWNER))),
        Box::new(|c| c.put_room(&room("room-1", &["bot-a", "bot-b", "bot-c"]))),
        Box::new(|c| c.set_main_bot_ids(&["bot-a".to_owned()])),
        Box::new(|c| c.set_designated_chief_id(Some("bot-a"))),
        Box::new(|c| {
            let mut b = c.state().bots["bot-b"].clone();
            b.name = "Bea".to_owned();
            b.updated_at = c.now_ms();
            c.put_bot(&b);
        }),
        Box::new(|c| {
            c.set_grants(
                "bot-a",
                &[Grant {
                    grantee: "bot-b".to_owned(),
                    room_id: Some("room-1".to_owned()),
                }],
            )
        }),
        Box::new(|c| {
            let mut r = c.state().rooms["room-1"].clone();
            r.members.retain(|m| m != "bot-c");
            c.put_room(&r);
            c.remove_bot("bot-c");
        }),
        Box::new(|c| c.set_pref("theme", Some(&serde_json::json!({"dark": true})))),
        Box::new(|c| c.remove_room("room-1")),
        Box::new(|c| c.set_grants("bot-a", &[])),
    ];
    for (i, step) in steps.iter().enumerate() {
        store
            .mutate("host", |c| {
                step(c);
                Ok(())
            })
            .await
            .unwrap();
        if i == 6 {
            // A snapshot in the middle keeps the history.
            store.snapshot_now().await.unwrap();
        }
        let live = store.read(pretty);
        let seq = store.revision();
        let replayed = replay_to(&journal(dir.path()), seq).unwrap();
        assert_eq!(pretty(&replayed), live, "step {i} (seq {seq})");
        seen.push((seq, live));
    }
    let text = journal(dir.path());
    for (seq, live) in &seen {
        assert_eq!(&pretty(&replay_to(&text, *seq).unwrap()), live, "seq {seq}");
    }
    let from_file = replay_file(&dir.path().join("journal.jsonl"), 3).unwrap();
    assert_eq!(&pretty(&from_file), &seen[3].1);
}

/// A journal of a base and three changes, for the refusal cases.
async fn sample_journal() -> (tempfile::TempDir, Vec<String>) {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path(), history()).unwrap();
    for id in ["bot-1", "bot-2", "bot-3"] {
        add_bot(&store, id).await;
    }
    let lines = journal(dir.path()).lines().map(str::to_owned).collect();
    (dir, lines)
}

fn joined(lines: &[String]) -> String {
    let mut text = lines.join("\n");
    text.push('\n');
    text
}

#[tokio::test]
/// Rule #511.
async fn every_refusal_of_a_journal() {
    let (_dir, lines) = sample_journal().await;
    let whole = joined(&lines);
    assert!(replay_to(&whole, 3).is_ok());

    let incomplete = whole.trim_end().to_owned();
    assert!(matches!(
        replay_to(&incomplete, 1),
        Err(ReplayError::Incomplete { line: 4 })
    ));

    let mut garbage = lines.clone();
    garbage[2] = "{not json".to_owned();
    assert!(matches!(
        replay_to(&joined(&garbage), 1),
        Err(ReplayError::Unreadable { line: 3, .. })
    ));

    let mut unknown = lines.clone();
    unknown[3] = unknown[3].replacen("\"op\":\"set\"", "\"op\":\"append\"", 1);
    assert!(matches!(
        replay_to(&joined(&unknown), 1),
        Err(ReplayError::UnknownOp { line: 4, .. })
    ));

    let mut gap = lines.clone();
    gap.remove(2);
    assert!(matches!(
        replay_to(&joined(&gap), 1),
        Err(ReplayError::Gap {
            line: 3,
            expected: 2,
            found: 3
        })
    ));

    assert!(matches!(
        replay_to(&joined(&lines[1..]), 1),
        Err(ReplayError::NotBase)
    ));
    assert!(matches!(replay_to("", 0), Err(ReplayError::NotBase)));

    let mut prev = lines.clone();
    prev[1] = prev[1].replace("\"actor\":\"host\"", "\"actor\":\"hoxt\"");
    assert!(matches!(
        replay_to(&joined(&prev), 1),
        Err(ReplayError::PrevMismatch { line: 3, seq: 2 })
    ));

    assert!(matches!(
        replay_to(&whole, 4),
        Err(ReplayError::SeqOutside {
            seq: 4,
            first: 0,
            last: 3
        })
    ));

    // A well-chained line whose op cannot apply.
    let bad = format!(
        r#"{{"seq":4,"t":1,"prev":"{}","actor":"host","ops":[{{"op":"set","key":["version"],"next":3}}]}}"#,
        sha_hex(lines[3].as_bytes())
    );
    let mut bad_op = lines.clone();
    bad_op.push(bad);
    assert!(matches!(
        replay_to(&joined(&bad_op), 4),
        Err(ReplayError::BadOp { line: 5, .. })
    ));
    assert!(
        replay_to(&joined(&bad_op), 3).is_err(),
        "the whole journal is refused"
    );

    let missing = replay_file(Path::new("/nonexistent/journal.jsonl"), 0);
    assert!(matches!(missing, Err(ReplayError::Io { .. })));
}

#[tokio::test]
/// Rule #511.
async fn a_journal_without_history_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path(), options()).unwrap();
    add_bot(&store, "bot-1").await;
    let refused = replay_to(&journal(dir.path()), 1).unwrap_err();
    assert!(matches!(refused, ReplayError::NoHistory));
    assert_eq!(
        refused.to_string(),
        "this journal keeps no history; set stateJournal: true"
    );
}

#[tokio::test]
/// Rule #511.
async fn retention_folds_old_lines_and_still_replays() {
    let dir = tempfile::tempdir().unwrap();
    let now = Arc::new(AtomicU64::new(1_000_000));
    let clock_now = now.clone();
    let options = StoreOptions {
        journal_max_bytes: 6_000,
        journal_max_age: std::time::Duration::from_secs(60),
        clock: Arc::new(move || clock_now.load(Ordering::SeqCst)),
        ..history()
    };
    let store = Store::open(dir.path(), options.clone()).unwrap();
    let mut seen = Vec::new();
    for i in 0..40 {
        add_bot(&store, &format!("bot-{}", i % 4)).await;
        store.saves_settled().await;
        seen.push((store.revision(), store.read(pretty)));
        let size = std::fs::metadata(dir.path().join("journal.jsonl"))
            .unwrap()
            .len();
        assert!(
            size <= 6_000 + 1_000,
            "the journal stays near its cap ({size})"
        );
    }
    let text = journal(dir.path());
    let base: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    let first = base["seq"].as_u64().unwrap();
    assert!(first > 0, "old lines were folded into the base");
    for (seq, live) in &seen {
        match replay_to(&text, *seq) {
            Ok(team) => assert_eq!(&pretty(&team), live, "seq {seq}"),
            Err(ReplayError::SeqOutside { .. }) => assert!(*seq < first),
            Err(other) => panic!("seq {seq}: {other}"),
        }
    }

    // Age: a day later, every old line folds at the next write.
    now.fetch_add(24 * 60 * 60 * 1000, Ordering::SeqCst);
    add_bot(&store, "bot-late").await;
    store.saves_settled().await;
    let text = journal(dir.path());
    let last = store.revision();
    assert!(text.lines().count() <= 2, "only the newest change is young");
    assert_eq!(pretty(&replay_to(&text, last).unwrap()), store.read(pretty));
    drop(store);
    let reopened = Store::open(dir.path(), options).unwrap();
    assert_eq!(reopened.revision(), last);
}

#[tokio::test]
/// Rule #511.
async fn a_team_larger_than_the_cap_stops_keeping_history() {
    let dir = tempfile::tempdir().unwrap();
    let options = StoreOptions {
        journal_max_bytes: 300,
        ..history()
    };
    let store = Store::open(dir.path(), options.clone()).unwrap();
    for i in 0..5 {
        add_bot(&store, &format!("bot-{i}")).await;
    }
    store.snapshot_now().await.unwrap();
    let text = journal(dir.path());
    assert_eq!(text.lines().count(), 1, "trimmed after the snapshot");
    assert!(matches!(
        replay_to(&text, store.revision()),
        Err(ReplayError::NoHistory)
    ));
    add_bot(&store, "bot-9").await;
    let live = store.read(pretty);
    drop(store);
    let reopened = Store::open(dir.path(), options).unwrap();
    assert_eq!(reopened.read(pretty), live);
}
