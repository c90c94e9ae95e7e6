//! The store's promises on both engines (issue 35): one suite, each test
//! run once on the home folder and once on a fresh PostgreSQL database (the
//! `_postgres` copy skips, saying why, when `FLYBOT_TEST_PG` is unset).

use crate::support::{add_bot, bot_ids, options};
use flybot_protocol::ErrorCode;
use flybot_store::engine::postgres::journal_text;
use flybot_store::engine::test_database::{TestDatabase, test_database};
use flybot_store::replay_to;
use flybot_store::{Engine, PostgresOptions, ReadOnlyReason, Store, StoreOptions, StoreStatus};
use std::time::Duration;

/// Where a test's team lives: a temporary home, and for PostgreSQL a fresh
/// database of its own.
pub struct Place {
    pub dir: tempfile::TempDir,
    pub db: Option<TestDatabase>,
}

impl Place {
    pub fn folder() -> Place {
        Place {
            dir: tempfile::tempdir().unwrap(),
            db: None,
        }
    }

    /// `None` when no test cluster is configured (the test skips).
    pub fn postgres() -> Option<Place> {
        Some(Place {
            dir: tempfile::tempdir().unwrap(),
            db: Some(test_database()?),
        })
    }

    /// A store's options here; `standby` for a second PostgreSQL host.
    pub fn options(&self, standby: bool) -> StoreOptions {
        let engine = match &self.db {
            None => Engine::Folder,
            Some(db) => Engine::Postgres(PostgresOptions {
                standby,
                lease: Duration::from_millis(500),
                ..PostgresOptions::new(db.url.clone())
            }),
        };
        StoreOptions {
            state_journal: true,
            engine,
            ..options()
        }
    }

    pub fn open(&self) -> Store {
        Store::open(self.dir.path(), self.options(false)).unwrap()
    }

    /// A second host on the same team: a reader of the same home, or a
    /// standby on the same database (with a home folder of its own).
    pub fn open_second(&self, other_home: &std::path::Path) -> Store {
        match &self.db {
            None => Store::open(self.dir.path(), self.options(true)).unwrap(),
            Some(_) => Store::open(other_home, self.options(true)).unwrap(),
        }
    }

    /// The whole journal as `journal.jsonl` would hold it.
    pub async fn journal(&self) -> String {
        match &self.db {
            None => std::fs::read_to_string(self.dir.path().join("journal.jsonl")).unwrap(),
            Some(db) => journal_text(&db.url).await.unwrap(),
        }
    }
}

/// Runs a test body `async fn(Place)` on both engines.
macro_rules! both_engines {
    ($body:ident) => {
        mod $body {
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn folder() {
                super::$body($crate::engines::Place::folder()).await;
            }
            #[tokio::test(flavor = "multi_thread", worker_threads = 4)]
            async fn postgres() {
                let Some(place) = $crate::engines::Place::postgres() else {
                    return;
                };
                super::$body(place).await;
            }
        }
    };
}

both_engines!(an_acknowledged_change_survives_a_reopen);
async fn an_acknowledged_change_survives_a_reopen(place: Place) {
    let store = place.open();
    add_bot(&store, "bot-1").await;
    add_bot(&store, "bot-2").await;
    let seq = store.revision();
    store.close().await.unwrap();
    let again = place.open();
    assert_eq!(again.status(), StoreStatus::Writer);
    assert_eq!(bot_ids(&again), ["bot-1", "bot-2"]);
    assert_eq!(again.revision(), seq);
    again.close().await.unwrap();
}

both_engines!(thirty_two_at_once_each_once_and_the_chain_holds);
async fn thirty_two_at_once_each_once_and_the_chain_holds(place: Place) {
    let store = place.open();
    let start = store.revision();
    let mut tasks = Vec::new();
    for i in 0..32 {
        let store = store.clone();
        tasks.push(tokio::spawn(async move {
            add_bot(&store, &format!("bot-{i:02}")).await;
        }));
    }
    for task in tasks {
        task.await.unwrap();
    }
    assert_eq!(store.revision(), start + 32);
    let live = store.read(|team| team.clone());
    store.close().await.unwrap();
    // The journal replays to the live team at its last seq: every change
    // once, the digest chain unbroken.
    let text = place.journal().await;
    let replayed = replay_to(&text, start + 32).unwrap();
    assert_eq!(replayed.bots.len(), 32);
    assert_eq!(replayed.journal_digest, live.journal_digest);
    assert_eq!(
        serde_json::to_value(&replayed).unwrap(),
        serde_json::to_value(&live).unwrap()
    );
}

both_engines!(replay_from_any_seq_gives_the_team_at_that_seq);
/// Rule #511.
async fn replay_from_any_seq_gives_the_team_at_that_seq(place: Place) {
    let store = place.open();
    let mut teams = vec![(store.revision(), store.read(|t| t.clone()))];
    for i in 0..4 {
        add_bot(&store, &format!("bot-{i}")).await;
        teams.push((store.revision(), store.read(|t| t.clone())));
    }
    let text = place.journal().await;
    for (seq, team) in &teams {
        let replayed = replay_to(&text, *seq).unwrap();
        assert_eq!(
            serde_json::to_value(&replayed).unwrap(),
            serde_json::to_value(team).unwrap(),
            "seq {seq}"
        );
    }
    store.close().await.unwrap();
}

both_engines!(a_second_host_only_reads_follows_and_takes_over);
/// Rules #14, #1027.
async fn a_second_host_only_reads_follows_and_takes_over(place: Place) {
    let other = tempfile::tempdir().unwrap();
    let first = place.open();
    add_bot(&first, "bot-1").await;
    let second = place.open_second(other.path());
    assert!(
        matches!(
            second.status(),
            StoreStatus::ReadOnly(
                ReadOnlyReason::OtherWriter { .. } | ReadOnlyReason::Standby { .. }
            )
        ),
        "{:?}",
        second.status()
    );
    let refused = second
        .mutate("host", |c| {
            c.set_pref("x", Some(&serde_json::json!(1)));
            Ok(())
        })
        .await
        .unwrap_err();
    assert_eq!(refused.code, ErrorCode::ReadOnly);
    // The second follows what the first saves.
    add_bot(&first, "bot-2").await;
    wait_until(|| bot_ids(&second) == ["bot-1", "bot-2"]).await;
    first.close().await.unwrap();
    // It takes over: on its next write (the folder, #1027), or as soon as
    // the lease is let go (PostgreSQL).
    let mut tries = 0;
    loop {
        let wrote = second
            .mutate("host", |c| {
                c.set_pref("after", Some(&serde_json::json!(true)));
                Ok(())
            })
            .await;
        if wrote.is_ok() {
            break;
        }
        tries += 1;
        assert!(tries < 200, "never took over: {wrote:?}");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    assert_eq!(second.status(), StoreStatus::Writer);
    assert_eq!(bot_ids(&second), ["bot-1", "bot-2"]);
    assert!(
        second.takeover_notice().is_some(),
        "a takeover says so once"
    );
    assert_eq!(second.takeover_notice(), None);
    second.close().await.unwrap();
}

/// Waits (polling every 20 ms, at most 4 s) for `done`.
pub async fn wait_until(mut done: impl FnMut() -> bool) {
    for _ in 0..200 {
        if done() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the condition never held");
}

/// `store copy` both ways (issue 35): a home with history and a live team
/// goes to PostgreSQL and back; every step reads back to the same team at
/// the same seq and chain digest.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn store_copy_round_trips_a_home_both_ways_by_digest() {
    use flybot_store::engine::copy::{folder_to_postgres, postgres_to_folder};
    use flybot_store::engine::records::copy::of_folder;
    let Some(db_place) = Place::postgres() else {
        return;
    };
    let url = db_place.db.as_ref().unwrap().url.clone();
    let source = Place::folder();
    let store = source.open();
    crate::support::add_bot(&store, "bot-1").await;
    store
        .mutate("host", |c| {
            c.put_room(&crate::support::room("room-1", &[crate::support::OWNER]));
            c.set_pref("theme", Some(&serde_json::json!("dark")));
            Ok(())
        })
        .await
        .unwrap();
    // A Session's log goes with the team.
    let src = source.dir.path().to_owned();
    tokio::task::spawn_blocking(move || {
        let records = (1..=2)
            .map(|seq| {
                flybot_store::turn_log::Record::new(
                    &src,
                    &src.join("sessions/s1/log.jsonl"),
                    &serde_json::json!({"seq": seq}),
                )
                .unwrap()
            })
            .collect();
        flybot_store::turn_log::TurnLog::for_home(&src)
            .write_durable(records, None)
            .unwrap();
    })
    .await
    .unwrap();
    // Every other kind of record goes with it too.
    crate::records::every_kind_of_record(&store, source.dir.path()).await;
    let team = store.read(|t| t.clone());
    store.close().await.unwrap();
    let records = of_folder(source.dir.path()).await.unwrap();
    assert_eq!(records.count(), 8, "{records:?}");

    let there = folder_to_postgres(source.dir.path(), &url, 1)
        .await
        .unwrap();
    assert_eq!(there.seq, team.journal_seq);
    assert_eq!(Some(there.digest.clone()), team.journal_digest);
    assert_eq!(there.records, records.count());
    // A store on the database opens on the same team and goes on writing;
    // its home's copy of the records is brought up to the database's.
    let on_pg = Store::open(db_place.dir.path(), db_place.options(false)).unwrap();
    assert_eq!(
        serde_json::to_value(on_pg.read(|t| t.clone())).unwrap(),
        serde_json::to_value(&team).unwrap()
    );
    let copied_home = of_folder(db_place.dir.path()).await.unwrap();
    assert_eq!(copied_home.files, records.files);
    assert_eq!(copied_home.lines, records.lines);
    crate::support::add_bot(&on_pg, "bot-2").await;
    let grown = on_pg.read(|t| t.clone());
    on_pg.close().await.unwrap();
    // Copying into a database that holds a team is refused.
    assert!(
        folder_to_postgres(source.dir.path(), &url, 1)
            .await
            .is_err()
    );

    let back = tempfile::tempdir().unwrap();
    let home = back.path().join("home");
    let returned = postgres_to_folder(&url, &home, 1).await.unwrap();
    assert_eq!(Some(returned.digest), grown.journal_digest);
    assert_eq!(returned.records, records.count());
    assert_eq!(
        of_folder(&home).await.unwrap(),
        records,
        "every record came back"
    );
    let log = std::fs::read_to_string(home.join("sessions/s1/log.jsonl")).unwrap();
    assert_eq!(
        log, "{\"seq\":1}\n{\"seq\":2}\n",
        "the Session log came back"
    );
    let reopened = Store::open(&home, options()).unwrap();
    assert_eq!(reopened.status(), StoreStatus::Writer);
    assert_eq!(
        serde_json::to_value(reopened.read(|t| t.clone())).unwrap(),
        serde_json::to_value(&grown).unwrap()
    );
    reopened.close().await.unwrap();
}

/// The snapshot row (issue 35): a start on PostgreSQL reads it and the rows
/// after it only. Here the rows before it are removed, and the team a start
/// reads is still the team that was saved, its chain going on.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_start_on_postgres_reads_the_snapshot_row_and_only_the_rows_after_it() {
    use sqlx::{Connection, Row};
    let Some(place) = Place::postgres() else {
        return;
    };
    let url = place.db.as_ref().unwrap().url.clone();
    let mut options = place.options(false);
    if let Engine::Postgres(pg) = &mut options.engine {
        pg.snapshot_every = 5;
    }
    let store = Store::open(place.dir.path(), options.clone()).unwrap();
    for i in 0..12 {
        add_bot(&store, &format!("bot-{i:02}")).await;
    }
    let live = store.read(|t| t.clone());
    store.close().await.unwrap();
    let mut conn = sqlx::PgConnection::connect(&url).await.unwrap();
    let seq: i64 = sqlx::query("SELECT seq FROM flybot_snapshot")
        .fetch_one(&mut conn)
        .await
        .unwrap()
        .get(0);
    assert_eq!(
        seq as u64, live.journal_seq,
        "a clean stop brings it up to date"
    );
    sqlx::query("DELETE FROM flybot_journal WHERE seq <= $1")
        .bind(seq)
        .execute(&mut conn)
        .await
        .unwrap();
    let again = Store::open(place.dir.path(), options).unwrap();
    assert_eq!(
        serde_json::to_value(again.read(|t| t.clone())).unwrap(),
        serde_json::to_value(&live).unwrap()
    );
    add_bot(&again, "bot-after").await;
    assert_eq!(again.revision(), live.journal_seq + 1);
    again.close().await.unwrap();
}
