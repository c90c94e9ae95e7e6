//! Faults of the host's own store (issue 38), injected through the store's
//! disk-fault seam, one endpoint per kind of fault: each answers
//! `bot/unavailable` (a fault of the host) and never `bot/invalid` (that
//! code says the caller's input was wrong), and the home stays as it was:
//! the journal's and the snapshot's bytes, the revision, the team.

use flybot_store::faults::{DiskFault, DiskFaults};
use flybot_testkit::Kit;
use serde_json::{Value, json};
use std::sync::Arc;

/// A host on a fresh home whose store's disk faults the test arms.
async fn host_with_faults() -> (Kit, Arc<DiskFaults>) {
    let home = tempfile::tempdir().unwrap();
    let options = flybot_store::StoreOptions::default();
    let faults = options.faults.clone();
    let store = flybot_store::Store::open(home.path(), options).unwrap();
    let config = flybot_host::HostConfig::new(home.path().to_owned());
    (
        Kit::around(flybot_host::Host::open(store, config).await, home),
        faults,
    )
}

/// One kind of fault, and a valid request it stops: the request's body for
/// the id of a Bot the home holds.
type Case = (DiskFault, &'static str, fn(&str) -> Value);

/// Issues 29 and 38: a fault of the host is never the caller's fault.
#[tokio::test]
async fn a_fault_of_the_store_answers_unavailable_never_invalid_and_changes_nothing() {
    let cases: [Case; 3] = [
        (
            DiskFault::RefuseWrite,
            "create-bot",
            |_| json!({"name": "Lost"}),
        ),
        (
            DiskFault::Full,
            "task-create",
            |bot| json!({"botId": bot, "title": "Never saved"}),
        ),
        (
            DiskFault::SyncRefused,
            "create-room",
            |bot| json!({"name": "Never saved", "members": [bot], "admin": bot}),
        ),
    ];
    for (fault, endpoint, body) in cases {
        let (kit, faults) = host_with_faults().await;
        let made = kit.ok("create-bot", json!({"name": "Helper"})).await;
        let bot = made["bot"]["id"].as_str().unwrap().to_owned();
        // The request is valid: with a healthy disk it would be saved.
        let body = body(&bot);
        kit.host.store().snapshot_now().await.unwrap();
        let before = kit.fingerprint().await;
        faults.arm(fault);
        let (status, answer) = kit.post(endpoint, body.clone()).await;
        let code = answer["error"]["code"].as_str();
        assert_ne!(code, Some("bot/invalid"), "{fault:?} {endpoint}: {answer}");
        assert_eq!(
            (status, code),
            (503, Some("bot/unavailable")),
            "{fault:?} {endpoint}: {answer}"
        );
        assert!(
            kit.fingerprint().await == before,
            "{fault:?} {endpoint}: a refused change changed the home"
        );
        // The home only reads now, and says so the same way on the next try.
        let (status, again) = kit.post(endpoint, body).await;
        assert_eq!(
            (status, again["error"]["code"].as_str()),
            (503, Some("bot/unavailable")),
            "{fault:?} {endpoint}: {again}"
        );
    }
}

/// A room log the disk will not open is a fault of the host too: the read
/// answers `bot/unavailable`, never `bot/invalid`, and the team is as it was.
#[tokio::test]
async fn a_room_log_the_disk_refuses_answers_unavailable_never_invalid() {
    let (kit, _faults) = host_with_faults().await;
    let made = kit.ok("create-bot", json!({"name": "Helper"})).await;
    let bot = made["bot"]["id"].as_str().unwrap().to_owned();
    let room = kit
        .ok(
            "create-room",
            json!({"name": "Standup", "members": [bot], "admin": bot}),
        )
        .await;
    let room_id = room["room"]["id"].as_str().unwrap().to_owned();
    // Where the room's log would be, the disk holds something that is no file.
    let log = kit.home().join("rooms").join(format!("{room_id}.jsonl"));
    let _ = std::fs::remove_file(&log);
    std::fs::create_dir_all(&log).unwrap();
    kit.host.store().snapshot_now().await.unwrap();
    let before = kit.fingerprint().await;
    let (status, answer) = kit.post("messages", json!({"roomId": room_id})).await;
    assert_eq!(
        (status, answer["error"]["code"].as_str()),
        (503, Some("bot/unavailable")),
        "{answer}"
    );
    assert!(
        kit.fingerprint().await == before,
        "a refused read changed the home"
    );
}
