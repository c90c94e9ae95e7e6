//! Trimming after a snapshot (issue 35, #511) on both engines: a journal
//! past its cap folds its oldest changes into a base line, replay works
//! from every seq it still holds (one before is outside), a start reads
//! the same team, and a second host follows across the fold. On
//! PostgreSQL the turn log's superseded notes go too, and a new home
//! still reads every log line and the newest note.

use crate::engines::{Place, wait_until};
use crate::support::{add_bot, bot_ids, pretty};
use flybot_store::inflight::SessionNote;
use flybot_store::turn_log::{Record, TurnLog};
use flybot_store::{Engine, ReplayError, Store, StoreOptions, replay_to};
use sqlx::{Connection, Row};

/// The place's options with a small journal cap and, on PostgreSQL, a
/// snapshot row every five changes.
fn capped(place: &Place) -> StoreOptions {
    let mut options = StoreOptions {
        journal_max_bytes: 2_000,
        ..place.options(false)
    };
    if let Engine::Postgres(pg) = &mut options.engine {
        pg.snapshot_every = 5;
    }
    options
}

both_engines!(a_journal_past_its_cap_folds_and_replays_from_every_seq_it_keeps);
async fn a_journal_past_its_cap_folds_and_replays_from_every_seq_it_keeps(place: Place) {
    let other = tempfile::tempdir().unwrap();
    let options = capped(&place);
    let store = Store::open(place.dir.path(), options.clone()).unwrap();
    let second = place.open_second(other.path());
    let mut seen = Vec::new();
    for i in 0..30 {
        add_bot(&store, &format!("bot-{i:02}")).await;
        store.saves_settled().await;
        seen.push((store.revision(), store.read(pretty)));
    }
    let text = place.journal().await;
    let base: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(base["op"], "base");
    let first = base["seq"].as_u64().unwrap();
    assert!(
        first > 0,
        "nothing was folded: {} lines",
        text.lines().count()
    );
    for (seq, team) in &seen {
        match replay_to(&text, *seq) {
            Ok(replayed) => assert_eq!(&pretty(&replayed), team, "seq {seq}"),
            Err(ReplayError::SeqOutside { .. }) => assert!(*seq < first, "seq {seq}"),
            Err(other) => panic!("seq {seq}: {other}"),
        }
    }
    // The second host follows across the fold.
    let all = bot_ids(&store);
    wait_until(|| bot_ids(&second) == all).await;
    let (revision, team) = seen.last().cloned().unwrap();
    store.close().await.unwrap();
    second.close().await.unwrap();
    let reopened = Store::open(place.dir.path(), options).unwrap();
    assert_eq!(reopened.revision(), revision);
    assert_eq!(reopened.read(pretty), team);
    reopened.close().await.unwrap();
}

fn note(turn: &str) -> SessionNote {
    SessionNote {
        session_id: "session-1".to_owned(),
        turn_id: Some(turn.to_owned()),
        items: vec![serde_json::json!({"text": turn})],
        queued: Vec::new(),
    }
}

async fn turn_rows(url: &str) -> Vec<String> {
    let mut conn = sqlx::PgConnection::connect(url).await.unwrap();
    sqlx::query("SELECT line FROM flybot_turns ORDER BY id")
        .fetch_all(&mut conn)
        .await
        .unwrap()
        .iter()
        .map(|row| row.get(0))
        .collect()
}

/// On PostgreSQL the turn log's rows are the logs' only durable record:
/// the snapshot's trim keeps every log line and the newest note of each
/// Session and room, and drops the notes they supersede.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn superseded_turn_notes_go_and_a_new_home_still_reads_every_line() {
    let Some(place) = Place::postgres() else {
        return;
    };
    let url = place.db.as_ref().unwrap().url.clone();
    let store = Store::open(place.dir.path(), capped(&place)).unwrap();
    add_bot(&store, "bot-1").await;
    let home = place.dir.path().to_owned();
    tokio::task::spawn_blocking(move || {
        let log = TurnLog::for_home(&home);
        let path = home.join("sessions/session-1/log.jsonl");
        for seq in 1..=3 {
            let line = Record::new(&home, &path, &serde_json::json!({"seq": seq})).unwrap();
            log.write_durable(vec![line], Some(&note(&format!("turn-{seq}"))))
                .unwrap();
        }
        for round in ["round-1", "round-2"] {
            log.write_room_run(
                "room-1",
                Some(&serde_json::json!({"round": round})),
                flybot_store::turn_log::Urgency::Now,
            )
            .unwrap();
        }
        log.write_durable(Vec::new(), None).unwrap();
    })
    .await
    .unwrap();
    let before = turn_rows(&url).await;
    let notes = |rows: &[String]| rows.iter().filter(|r| r.starts_with("{\"note\":")).count();
    let runs = |rows: &[String]| rows.iter().filter(|r| r.starts_with("{\"room\":")).count();
    assert_eq!((notes(&before), runs(&before)), (3, 2), "{before:#?}");
    // A change and a clean stop write the snapshot row, and trim.
    add_bot(&store, "bot-2").await;
    store.close().await.unwrap();
    let after = turn_rows(&url).await;
    assert_eq!((notes(&after), runs(&after)), (1, 1), "{after:#?}");
    assert!(
        after.iter().any(|r| r.contains("turn-3")),
        "the newest note stays"
    );
    assert!(
        after.iter().any(|r| r.contains("round-2")),
        "the newest run stays"
    );
    assert_eq!(after.len(), before.len() - 3, "every log line stays");
    // A host on a new home (it takes the lease the first let go) opens
    // its turn log from the rows: every line of the Session's log, and
    // the newest note only.
    let other = tempfile::tempdir().unwrap();
    let next = place.open_second(other.path());
    let home = other.path().to_owned();
    tokio::task::spawn_blocking(move || TurnLog::for_home(&home).open().unwrap())
        .await
        .unwrap();
    let log = other.path().join("sessions/session-1/log.jsonl");
    assert_eq!(
        std::fs::read_to_string(&log).unwrap(),
        "{\"seq\":1}\n{\"seq\":2}\n{\"seq\":3}\n"
    );
    let inflight = flybot_store::turn_log::read_journal_inflight(other.path()).unwrap();
    assert!(format!("{inflight:?}").contains("turn-3"), "{inflight:?}");
    next.close().await.unwrap();
}

/// A standby that stood still (as one stopped with SIGSTOP) while the
/// leader folded the rows it had not read into a base line reads the team
/// whole when it moves again: the rows after its seq are gone, so no row
/// by row catch-up could reach the leader's team.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_standby_behind_a_fold_reads_the_team_whole_and_matches_the_leader() {
    let Some(place) = Place::postgres() else {
        return;
    };
    let other = tempfile::tempdir().unwrap();
    let store = Store::open(place.dir.path(), capped(&place)).unwrap();
    let standby_options = place.options(true);
    let standby_faults = standby_options.faults.clone();
    let standby = Store::open(other.path(), standby_options).unwrap();
    add_bot(&store, "bot-00").await;
    wait_until(|| bot_ids(&standby) == ["bot-00"]).await;
    standby_faults.stop_following(true);
    wait_until(|| standby_faults.standing_still()).await;
    let behind = standby.revision();
    for i in 1..30 {
        add_bot(&store, &format!("bot-{i:02}")).await;
        store.saves_settled().await;
    }
    let text = place.journal().await;
    let base: serde_json::Value = serde_json::from_str(text.lines().next().unwrap()).unwrap();
    assert_eq!(base["op"], "base");
    assert!(
        base["seq"].as_u64().unwrap() > behind + 1,
        "the rows after the standby's seq {behind} were folded: {base}"
    );
    assert_eq!(standby.revision(), behind, "a stopped standby read nothing");

    standby_faults.stop_following(false);
    let leader_team = store.read(pretty);
    wait_until(|| standby.revision() == store.revision()).await;
    assert_eq!(standby.read(pretty), leader_team);
    assert_eq!(bot_ids(&standby).len(), 30);
    standby.close().await.unwrap();
    store.close().await.unwrap();
}
