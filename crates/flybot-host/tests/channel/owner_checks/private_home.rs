//! The home is private to the user who runs the host (issue 29): after a
//! day's activity (Bots, a chat turn and its usage row, a room's round, a
//! workflow file, the snapshot) no file of the home is readable and no
//! folder is searchable by the group or others, also when the home was
//! made 0755 by an older build.

use flybot_host::{Host, HostConfig};
use flybot_store::{Store, StoreOptions};
use flybot_testkit::Kit;
use serde_json::json;
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

/// Every path under `dir`, `dir` included, with its mode bits.
fn modes(dir: &Path) -> Vec<(PathBuf, u32)> {
    let mode = std::fs::metadata(dir).unwrap().permissions().mode() & 0o777;
    let mut all = vec![(dir.to_owned(), mode)];
    if dir.is_dir() {
        for entry in std::fs::read_dir(dir).unwrap() {
            all.extend(modes(&entry.unwrap().path()));
        }
    }
    all
}

#[tokio::test]
async fn private_home_29_no_file_or_folder_is_open_to_the_group_or_others() {
    let home = tempfile::tempdir().unwrap();
    // A home an older build made, at the usual umask.
    std::fs::set_permissions(home.path(), std::fs::Permissions::from_mode(0o755)).unwrap();
    let store = Store::open(home.path(), StoreOptions::default()).unwrap();
    let config = HostConfig::new(home.path().to_owned());
    let kit = Kit::around(Host::open(store, config).await, home);
    let [ada, bo] = kit.bots(["Ada", "Bo"]).await;
    kit.ok("send", json!({"botId": ada.id, "text": "hello"}))
        .await;
    kit.idle(&ada.session).await;
    let room = kit.room("Build", &[&ada, &bo]).await;
    kit.ok("send", json!({"roomId": room.id, "text": "@Ada hi"}))
        .await;
    kit.round_ended(&room).await;
    kit.ok(
        "workflow-customize",
        json!({"from": "blank", "id": "ours", "name": "Ours"}),
    )
    .await;
    kit.host.store().snapshot_now().await.unwrap();
    let all = modes(kit.home());
    for name in [
        "state.json",
        "usage.sqlite",
        "workflows",
        "sessions",
        "rooms",
    ] {
        assert!(
            all.iter().any(|(path, _)| path.ends_with(name)),
            "{name} is missing: {all:?}"
        );
    }
    let open: Vec<_> = all.iter().filter(|(_, mode)| mode & 0o077 != 0).collect();
    assert!(open.is_empty(), "open to the group or others: {open:?}");
}
