//! Disk faults injected into the journal writer (the `testing` seam): a
//! refused write or a full disk loses nothing acknowledged, the refused
//! change stops showing in reads at once, and the home says why it stopped
//! writing.

use crate::support::{add_bot, bot, bot_ids, options};
use flybot_protocol::ErrorCode;
use flybot_store::faults::DiskFault;
use flybot_store::{ReadOnlyReason, Store, StoreStatus};

async fn a_fault_keeps_what_was_acknowledged_and_hides_what_was_refused(
    fault: DiskFault,
) -> String {
    let dir = tempfile::tempdir().unwrap();
    let opts = options();
    let faults = opts.faults.clone();
    let store = Store::open(dir.path(), opts).unwrap();
    add_bot(&store, "bot-1").await;
    let revision = store.revision();
    faults.arm(fault);
    let refused = store
        .mutate("test", |change| {
            change.put_bot(&bot("bot-2", crate::support::OWNER));
            Ok(())
        })
        .await
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::Unavailable);
    // The refused change is gone from reads before any restart.
    assert_eq!(bot_ids(&store), ["bot-1"]);
    assert_eq!(store.revision(), revision);
    let why = match store.status() {
        StoreStatus::ReadOnly(ReadOnlyReason::Damaged { why }) => why,
        other => panic!("expected the home to say why it stopped, got {other:?}"),
    };
    // Every later change is refused with the same reason, writing nothing.
    let again = store.mutate("test", |_| Ok(())).await.unwrap_err();
    assert_eq!(again.code, ErrorCode::Unavailable);
    drop(store);
    // Nothing acknowledged was lost; nothing refused came back.
    let reopened = Store::open(dir.path(), options()).unwrap();
    assert_eq!(bot_ids(&reopened), ["bot-1"]);
    assert_eq!(reopened.revision(), revision);
    why
}

#[tokio::test]
async fn a_refused_write_loses_nothing_acknowledged_and_says_why() {
    let why =
        a_fault_keeps_what_was_acknowledged_and_hides_what_was_refused(DiskFault::RefuseWrite)
            .await;
    assert!(why.contains("input/output error"), "{why}");
}

#[tokio::test]
async fn a_full_disk_loses_nothing_acknowledged_and_says_why() {
    let why = a_fault_keeps_what_was_acknowledged_and_hides_what_was_refused(DiskFault::Full).await;
    assert!(why.contains("no space left on device"), "{why}");
}

#[tokio::test]
async fn a_refused_fsync_hides_the_written_line_from_reads_and_from_a_restart() {
    // The bytes reached the file, the fsync failed: the line was never
    // acknowledged, so neither the reread team nor a restart may show it.
    let why =
        a_fault_keeps_what_was_acknowledged_and_hides_what_was_refused(DiskFault::SyncRefused)
            .await;
    assert!(why.contains("fsync: input/output error"), "{why}");
}
