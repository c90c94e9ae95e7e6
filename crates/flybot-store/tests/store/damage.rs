//! Damage to the journal on both engines (issue 35): a change that is not
//! JSON, or one whose `prev` does not follow the chain, is never written
//! over. The folder opens read-only and says which line; PostgreSQL
//! refuses the start and says which row. Either way the journal is left
//! as it was found, for a person to look at. A team a newer FlyBot wrote
//! is not written over either (#47).

use crate::engines::Place;
use crate::support::add_bot;
use flybot_store::{ReadOnlyReason, Store, StoreStatus};
use sqlx::{Connection, Row};

/// Rewrites the journal's line at `seq` with `damage`. On PostgreSQL the
/// snapshot row goes too, so a start reads the rows from the first (the
/// snapshot row is a shortcut, and a database restored without it must
/// still be checked whole).
async fn damage_at(place: &Place, seq: u64, damage: impl Fn(&str) -> String) {
    match &place.db {
        None => {
            let path = place.dir.path().join("journal.jsonl");
            let text = std::fs::read_to_string(&path).unwrap();
            let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
            let at = lines
                .iter()
                .position(|l| l.contains(&format!("\"seq\":{seq},")))
                .unwrap();
            lines[at] = damage(&lines[at]);
            std::fs::write(&path, lines.join("\n") + "\n").unwrap();
        }
        Some(db) => {
            let mut conn = sqlx::PgConnection::connect(&db.url).await.unwrap();
            sqlx::query("DELETE FROM flybot_snapshot")
                .execute(&mut conn)
                .await
                .unwrap();
            let line: String = sqlx::query("SELECT line FROM flybot_journal WHERE seq = $1")
                .bind(seq as i64)
                .fetch_one(&mut conn)
                .await
                .unwrap()
                .get(0);
            sqlx::query("UPDATE flybot_journal SET line = $2 WHERE seq = $1")
                .bind(seq as i64)
                .bind(damage(&line))
                .execute(&mut conn)
                .await
                .unwrap();
        }
    }
}

/// Opens the damaged team and answers why it will not write: a start
/// refused, or a store that opened read-only and refuses a change.
async fn refusal_of_a_damaged_team(place: &Place) -> String {
    match Store::open(place.dir.path(), place.options(false)) {
        Err(refused) => refused.to_string(),
        Ok(store) => {
            let why = match store.status() {
                StoreStatus::ReadOnly(ReadOnlyReason::Damaged { why }) => why,
                other => panic!("a damaged journal opened as {other:?}"),
            };
            let refused = store
                .mutate("host", |c| {
                    c.set_pref("x", Some(&serde_json::json!(1)));
                    Ok(())
                })
                .await
                .unwrap_err();
            assert!(refused.message.contains(&why), "{}", refused.message);
            store.close().await.unwrap();
            why
        }
    }
}

async fn a_team_of_two_bots(place: &Place) {
    let store = place.open();
    add_bot(&store, "bot-1").await;
    add_bot(&store, "bot-2").await;
    store.close().await.unwrap();
}

both_engines!(a_change_that_is_not_json_is_named_and_never_written_over);
async fn a_change_that_is_not_json_is_named_and_never_written_over(place: Place) {
    a_team_of_two_bots(&place).await;
    damage_at(&place, 1, |_| "this is not json".to_owned()).await;
    let before = place.journal().await;
    let why = refusal_of_a_damaged_team(&place).await;
    assert!(why.contains("line 2"), "{why}");
    assert_eq!(
        place.journal().await,
        before,
        "the journal was written over"
    );
}

both_engines!(a_change_off_the_chain_is_named_and_never_written_over);
async fn a_change_off_the_chain_is_named_and_never_written_over(place: Place) {
    a_team_of_two_bots(&place).await;
    // The first change's bytes change, so the second's `prev` no longer
    // names it.
    damage_at(&place, 1, |line| {
        line.replace("\"actor\":\"host\"", "\"actor\":\"hoxt\"")
    })
    .await;
    let before = place.journal().await;
    let why = refusal_of_a_damaged_team(&place).await;
    assert!(why.contains("line 3") && why.contains("prev"), "{why}");
    assert_eq!(
        place.journal().await,
        before,
        "the journal was written over"
    );
}

both_engines!(a_team_a_newer_flybot_wrote_is_never_written_over);
/// Rule #47.
async fn a_team_a_newer_flybot_wrote_is_never_written_over(place: Place) {
    a_team_of_two_bots(&place).await;
    // The team as a start reads it first: `state.json`, or the snapshot row.
    match &place.db {
        None => {
            let path = place.dir.path().join("state.json");
            let text = std::fs::read_to_string(&path).unwrap();
            std::fs::write(&path, text.replacen("\"version\": 2", "\"version\": 3", 1)).unwrap();
        }
        Some(db) => {
            let mut conn = sqlx::PgConnection::connect(&db.url).await.unwrap();
            let done = sqlx::query(
                "UPDATE flybot_snapshot SET line = replace(line, '\"version\":2', '\"version\":3')",
            )
            .execute(&mut conn)
            .await
            .unwrap();
            assert_eq!(done.rows_affected(), 1);
        }
    }
    let before = place.journal().await;
    let why = refusal_of_a_damaged_team(&place).await;
    assert!(why.contains("newer FlyBot (version 3)"), "{why}");
    assert_eq!(
        place.journal().await,
        before,
        "the journal was written over"
    );
}
