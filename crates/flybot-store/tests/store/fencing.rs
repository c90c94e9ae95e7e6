//! The lease's fence on PostgreSQL (issue 35): a leader whose lease lapsed
//! (paused past it, as by SIGSTOP) and was taken cannot write; it steps down
//! and what it acknowledged before stays. The lapse is made on the
//! database's clock (its row's expiry set to now), never by sleeping.

use crate::engines::{Place, wait_until};
use crate::support::{add_bot, bot_ids};
use flybot_protocol::ErrorCode;
use flybot_store::{ReadOnlyReason, Store, StoreStatus};
use sqlx::Connection;

async fn lapse_the_lease(url: &str) {
    let mut conn = sqlx::PgConnection::connect(url).await.unwrap();
    sqlx::query("UPDATE flybot_lease SET expires_at = clock_timestamp() - interval '1 second'")
        .execute(&mut conn)
        .await
        .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_leader_past_its_lease_is_fenced_and_loses_nothing_it_acknowledged() {
    let Some(place) = Place::postgres() else {
        return;
    };
    let url = place.db.as_ref().unwrap().url.clone();
    let other = tempfile::tempdir().unwrap();
    let leader = place.open();
    add_bot(&leader, "bot-1").await;
    let standby = Store::open(other.path(), place.options(true)).unwrap();
    // The leader "sleeps" past its lease; the standby takes it.
    lapse_the_lease(&url).await;
    wait_until(|| standby.status() == StoreStatus::Writer).await;
    add_bot(&standby, "bot-2").await;
    // The old leader wakes and writes: the fence refuses it.
    let refused = leader
        .mutate("host", |c| {
            c.set_pref("stale", Some(&serde_json::json!(true)));
            Ok(())
        })
        .await
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::ReadOnly, "{refused:?}");
    assert!(matches!(
        leader.status(),
        StoreStatus::ReadOnly(ReadOnlyReason::Standby { .. })
    ));
    // Its stale change is nowhere; what it acknowledged before is there,
    // and it now follows the new leader.
    wait_until(|| bot_ids(&leader) == ["bot-1", "bot-2"]).await;
    assert!(leader.read(|t| !t.prefs.contains_key("stale")));
    assert_eq!(bot_ids(&standby), ["bot-1", "bot-2"]);
    standby.close().await.unwrap();
    leader.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_second_leader_without_standby_is_refused_with_a_sentence() {
    let Some(place) = Place::postgres() else {
        return;
    };
    let other = tempfile::tempdir().unwrap();
    let leader = place.open();
    let refused = Store::open(other.path(), place.options(false))
        .err()
        .unwrap();
    let text = refused.to_string();
    assert!(text.contains("--standby"), "{text}");
    leader.close().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_with_a_stale_token_commits_nothing_even_mid_batch() {
    use flybot_store::engine::lease::try_acquire;
    use flybot_store::engine::postgres::{commit_batch, connect};
    let Some(place) = Place::postgres() else {
        return;
    };
    let url = place.db.as_ref().unwrap().url.clone();
    let mut conn = connect(&url).await.unwrap();
    let long = std::time::Duration::from_secs(60);
    let old = try_acquire(&mut conn, "old", long).await.unwrap().unwrap();
    assert_eq!(
        try_acquire(&mut conn, "new", long).await.unwrap(),
        None,
        "held"
    );
    let rows = |from: u64| -> Vec<(u64, u64, String)> {
        (from..from + 3)
            .map(|s| (s, 1, format!("{{\"seq\":{s}}}")))
            .collect()
    };
    assert_eq!(commit_batch(&mut conn, &old, &rows(1)).await.unwrap(), 3);
    // The old holder pauses past its lease; a new one takes it.
    lapse_the_lease(&url).await;
    let new = try_acquire(&mut conn, "new", long).await.unwrap().unwrap();
    assert!(new.token > old.token);
    // The old holder's whole batch is refused: no row of it lands.
    assert_eq!(commit_batch(&mut conn, &old, &rows(4)).await.unwrap(), 0);
    let count: i64 = sqlx::query_scalar("SELECT count(*) FROM flybot_journal")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    assert_eq!(count, 3);
    assert_eq!(commit_batch(&mut conn, &new, &rows(4)).await.unwrap(), 3);
}
