//! One writer per home (#14): a second store only reads, and takes over on
//! its next write once the first has gone (#1027), saying so once (#1041).

use crate::support::{add_bot, bot_ids, options};
use flybot_protocol::ErrorCode;
use flybot_store::{ReadOnlyReason, Store, StoreOptions, StoreStatus};
use std::time::Duration;

fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_owned())
        .unwrap_or_else(|_| "localhost".to_owned())
}

#[tokio::test]
/// Rule #14.
async fn a_second_store_only_reads() {
    let dir = tempfile::tempdir().unwrap();
    let first = Store::open(dir.path(), options()).unwrap();
    let second = Store::open(dir.path(), options()).unwrap();
    assert_eq!(
        second.status(),
        StoreStatus::ReadOnly(ReadOnlyReason::OtherWriter {
            pid: std::process::id(),
            host: host_name(),
        })
    );
    let refused = second
        .mutate("host", |c| {
            c.set_pref("x", Some(&serde_json::json!(1)));
            Ok(())
        })
        .await
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::ReadOnly);
    assert_eq!(refused.details["pid"], std::process::id());
    assert_eq!(second.takeover_notice(), None);

    // The reader follows what the writer saves.
    add_bot(&first, "bot-1").await;
    assert_eq!(bot_ids(&second), ["bot-1"]);
    assert_eq!(second.revision(), first.revision());
}

#[tokio::test]
/// Rule #1027.
async fn takeover_on_next_write() {
    let dir = tempfile::tempdir().unwrap();
    let first = Store::open(dir.path(), options()).unwrap();
    let second = Store::open(dir.path(), options()).unwrap();
    // The second loaded before this change and does not read again before
    // writing: the takeover itself must adopt it.
    add_bot(&first, "bot-1").await;
    first.close().await.unwrap();

    add_bot(&second, "bot-2").await;
    assert_eq!(second.status(), StoreStatus::Writer);
    assert_eq!(bot_ids(&second), ["bot-1", "bot-2"]);
    let notice = second.takeover_notice().expect("a takeover says so");
    assert_eq!(
        notice,
        format!(
            "the other flybot has closed; this one now saves the Bot team (was pid {} on {})",
            std::process::id(),
            host_name()
        )
    );
    assert_eq!(
        second.takeover_notice(),
        None,
        "the notice comes once (#1041)"
    );
    add_bot(&second, "bot-3").await;
    assert_eq!(second.takeover_notice(), None);
    second.close().await.unwrap();

    let third = Store::open(dir.path(), options()).unwrap();
    assert_eq!(third.status(), StoreStatus::Writer);
    assert_eq!(bot_ids(&third), ["bot-1", "bot-2", "bot-3"]);
}

both_engines!(a_closed_store_refuses_changes);
async fn a_closed_store_refuses_changes(place: crate::engines::Place) {
    let store = place.open();
    store.close().await.unwrap();
    let refused = store
        .mutate("host", |c| {
            c.set_pref("x", Some(&serde_json::json!(1)));
            Ok(())
        })
        .await
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::Unavailable);
}

#[tokio::test]
async fn the_lock_names_its_holder_and_beats() {
    let dir = tempfile::tempdir().unwrap();
    let options = StoreOptions {
        heartbeat_every: Duration::from_millis(5),
        ..options()
    };
    let _store = Store::open(dir.path(), options).unwrap();
    let text = || -> serde_json::Value {
        serde_json::from_slice(&std::fs::read(dir.path().join("state.lock")).unwrap()).unwrap()
    };
    let first = text();
    assert_eq!(first["pid"], std::process::id());
    assert_eq!(first["host"], host_name());
    assert_eq!(first["token"].as_str().unwrap().len(), 32);
    for _ in 0..400 {
        tokio::time::sleep(Duration::from_millis(10)).await;
        if text()["heartbeat"] != first["heartbeat"] {
            return;
        }
    }
    panic!("the heartbeat never moved");
}
