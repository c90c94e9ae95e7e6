//! Disk faults injected into the journal writer (the `testing` seam): a
//! refused write or a full disk loses nothing acknowledged, the refused
//! change stops showing in reads at once, and the home says why it stopped
//! writing.

use crate::support::{add_bot, bot, bot_ids, options};
use flybot_protocol::{ApiError, ErrorCode};
use flybot_store::faults::DiskFault;
use flybot_store::{ReadOnlyReason, Store, StoreStatus};

/// Adds bot-2 to a store whose disk (or database) refuses it: the refusal,
/// once the change is gone from reads before any restart and the revision
/// stayed at `revision`.
async fn a_refused_bot_2_is_gone_from_reads(store: &Store, revision: u64) -> ApiError {
    let refused = store
        .mutate("test", |change| {
            change.put_bot(&bot("bot-2", crate::support::OWNER));
            Ok(())
        })
        .await
        .unwrap_err();
    assert_eq!(bot_ids(store), ["bot-1"]);
    assert_eq!(store.revision(), revision);
    refused
}

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
    let refused = a_refused_bot_2_is_gone_from_reads(&store, revision).await;
    assert_eq!(refused.code, ErrorCode::Unavailable);
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

/// The same fault on PostgreSQL (issue 35): a database that answers but
/// refuses every batch, as one whose disk is full does (a trigger raises
/// PostgreSQL's own "could not extend file" words). The change is refused
/// with that sentence once `reconnect_for` has passed, never shown; the
/// store follows as a standby meanwhile, and once the database takes rows
/// again it leads again and writes. Nothing acknowledged is lost.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_database_that_refuses_every_batch_refuses_the_change_and_loses_nothing_acknowledged() {
    use sqlx::Connection;
    let Some(place) = crate::engines::Place::postgres() else {
        return;
    };
    let url = place.db.as_ref().unwrap().url.clone();
    let mut opts = place.options(false);
    if let flybot_store::Engine::Postgres(pg) = &mut opts.engine {
        pg.reconnect_for = std::time::Duration::from_millis(300);
    }
    let store = Store::open(place.dir.path(), opts).unwrap();
    add_bot(&store, "bot-1").await;
    let revision = store.revision();
    let mut admin = sqlx::PgConnection::connect(&url).await.unwrap();
    sqlx::raw_sql(
        "CREATE FUNCTION flybot_test_full() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN \
           RAISE EXCEPTION 'could not extend file: No space left on device (injected)'; END $$; \
         CREATE TRIGGER flybot_test_full BEFORE INSERT ON flybot_journal \
           FOR EACH STATEMENT EXECUTE FUNCTION flybot_test_full();",
    )
    .execute(&mut admin)
    .await
    .unwrap();

    let refused = a_refused_bot_2_is_gone_from_reads(&store, revision).await;
    assert!(
        refused.message.contains("No space left on device"),
        "{}",
        refused.message
    );
    assert!(
        matches!(
            store.status(),
            StoreStatus::ReadOnly(ReadOnlyReason::Standby { .. })
        ),
        "{:?}",
        store.status()
    );

    // The disk has room again: the store takes the lease back and writes.
    sqlx::raw_sql("DROP TRIGGER flybot_test_full ON flybot_journal")
        .execute(&mut admin)
        .await
        .unwrap();
    crate::engines::wait_until(|| store.status() == StoreStatus::Writer).await;
    add_bot(&store, "bot-3").await;
    assert_eq!(bot_ids(&store), ["bot-1", "bot-3"]);
    store.close().await.unwrap();
    let reopened = place.open();
    assert_eq!(bot_ids(&reopened), ["bot-1", "bot-3"]);
    reopened.close().await.unwrap();
}
