//! PostgreSQL going away under load (issue 35): every connection of the
//! team's database is cut, as a restart cuts them, while 32 writers work.
//! Writes wait and go through on a new connection; none is written twice,
//! the chain replays whole, and the store still writes afterwards. (The
//! cut is scoped to this test's database, so tests beside it run on.)

use crate::engines::Place;
use crate::support::add_bot;
use flybot_store::StoreStatus;
use flybot_store::replay_to;
use sqlx::Connection;
use std::sync::{Arc, Mutex};

async fn cut_every_connection(admin_url: &str, database: &str) {
    let mut conn = sqlx::PgConnection::connect(admin_url).await.unwrap();
    sqlx::query(
        "SELECT pg_terminate_backend(pid) FROM pg_stat_activity \
         WHERE datname = $1 AND pid <> pg_backend_pid()",
    )
    .bind(database)
    .execute(&mut conn)
    .await
    .unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn cut_connections_under_load_tear_nothing_and_the_store_reconnects() {
    let Some(place) = Place::postgres() else {
        return;
    };
    let url = place.db.as_ref().unwrap().url.clone();
    let admin = std::env::var("FLYBOT_TEST_PG").unwrap();
    let database = url.rsplit('/').next().unwrap().to_owned();
    let store = place.open();
    let acked = Arc::new(Mutex::new(Vec::new()));
    let mut writers = Vec::new();
    for w in 0..32 {
        let (store, acked) = (store.clone(), acked.clone());
        writers.push(tokio::spawn(async move {
            for n in 0..6 {
                let id = format!("bot-{w:02}-{n}");
                let made = store
                    .mutate("host", |c| {
                        c.put_bot(&crate::support::bot(&id, crate::support::OWNER));
                        Ok(())
                    })
                    .await;
                if made.is_ok() {
                    acked.lock().unwrap().push(id);
                }
            }
        }));
    }
    for _ in 0..3 {
        tokio::task::yield_now().await;
        cut_every_connection(&admin, &database).await;
    }
    for w in writers {
        w.await.unwrap();
    }
    assert_eq!(store.status(), StoreStatus::Writer);
    add_bot(&store, "bot-after").await;
    let live = store.read(|t| t.clone());
    for id in acked.lock().unwrap().iter() {
        assert!(live.bots.contains_key(id), "{id} was acknowledged");
    }
    store.close().await.unwrap();
    let text = place.journal().await;
    let replayed = replay_to(&text, live.journal_seq).unwrap();
    assert_eq!(
        serde_json::to_value(&replayed).unwrap(),
        serde_json::to_value(&live).unwrap(),
        "the database holds exactly the acknowledged team"
    );
}
