//! Ledger tests on a real `usage.sqlite` in a temporary home: creation,
//! the version-2 upgrade, the newer-file refusal, incomplete rows, NULL
//! usage and a sample row's round trip.

use super::*;
use sqlx::{ConnectOptions, Connection, Row, SqliteConnection};
use std::path::Path;

fn sample_row() -> CallRow {
    CallRow {
        id: "session-1:turn-1:0".into(),
        session_id: "session-1".into(),
        bot_id: "bot-ada".into(),
        at_ms: 1_760_000_000_123,
        provider: "deepseek".into(),
        model: "deepseek-chat".into(),
        usage: TokenUsage {
            input_tokens: Some(1_843),
            output_tokens: Some(212),
            cached_tokens: Some(1_024),
            reasoning_tokens: Some(0),
        },
        harness: "default".into(),
        issue_pr: "#903".into(),
        tool_calls: Some(3),
        wall_ms: Some(2_417),
    }
}

async fn raw(home: &Path) -> SqliteConnection {
    let result = sqlx::sqlite::SqliteConnectOptions::new()
        .filename(home.join(USAGE_FILE))
        .create_if_missing(true)
        .connect()
        .await;
    match result {
        Ok(conn) => conn,
        Err(error) => panic!("raw connection: {error}"),
    }
}

async fn version_of(home: &Path) -> i64 {
    let mut conn = raw(home).await;
    let row = sqlx::query("SELECT value FROM ledger_meta WHERE name = 'version'")
        .fetch_one(&mut conn)
        .await
        .unwrap();
    let version = row.try_get::<i64, _>("value").unwrap();
    conn.close().await.unwrap();
    version
}

/// A version-2 ledger: the token columns, no #903 fields, one old row.
async fn write_version_2(home: &Path, with_meta: bool) {
    let mut conn = raw(home).await;
    sqlx::query(
        "CREATE TABLE calls (id TEXT PRIMARY KEY, session_id TEXT NOT NULL, bot_id TEXT NOT NULL,
         at_ms BIGINT NOT NULL, provider TEXT NOT NULL, model TEXT NOT NULL,
         input_tokens BIGINT, output_tokens BIGINT, cached_tokens BIGINT, reasoning_tokens BIGINT)",
    )
    .execute(&mut conn)
    .await
    .unwrap();
    sqlx::query(
        "INSERT INTO calls VALUES ('old-1', 's-old', 'b-old', 5, 'openai', 'gpt-4o', 10, NULL, NULL, NULL)",
    )
    .execute(&mut conn)
    .await
    .unwrap();
    if with_meta {
        sqlx::query("CREATE TABLE ledger_meta (name TEXT PRIMARY KEY, value BIGINT NOT NULL)")
            .execute(&mut conn)
            .await
            .unwrap();
        sqlx::query("INSERT INTO ledger_meta VALUES ('version', 2)")
            .execute(&mut conn)
            .await
            .unwrap();
    }
    conn.close().await.unwrap();
}

/// Issue 13 ("Memory stays bounded"): the ledger's page cache is capped,
/// so the host's memory does not grow with the rows it has written.
#[tokio::test]
async fn the_ledgers_page_cache_is_capped_at_512_kib_13() {
    let home = tempfile::tempdir().unwrap();
    let ledger = UsageLedger::open(home.path()).await.unwrap();
    let mut conn = ledger.file().unwrap().lock().await;
    let row = sqlx::query("PRAGMA cache_size")
        .fetch_one(&mut *conn)
        .await
        .unwrap();
    assert_eq!(row.get::<i64, _>(0), -512);
}

#[tokio::test]
async fn usage_ledger_sample_row_round_trip() {
    let home = tempfile::tempdir().unwrap();
    let ledger = UsageLedger::open(home.path()).await.unwrap();
    assert_eq!(ledger.read_only_version(), None);
    ledger.record(sample_row()).await.unwrap();
    // The same id again (a re-folded turn) is kept once.
    ledger.record(sample_row()).await.unwrap();
    let rows = ledger.rows(&CallFilter::default()).await.unwrap();
    assert_eq!(rows, vec![sample_row()]);
    drop(ledger);
    assert_eq!(version_of(home.path()).await, LEDGER_VERSION);

    // Reopening the same file reads the same row back.
    let ledger = UsageLedger::open(home.path()).await.unwrap();
    let rows = ledger.rows(&CallFilter::default()).await.unwrap();
    assert_eq!(rows, vec![sample_row()]);
}

#[tokio::test]
async fn usage_ledger_unknown_usage_is_null_not_zero() {
    let home = tempfile::tempdir().unwrap();
    let ledger = UsageLedger::open(home.path()).await.unwrap();
    let mut row = sample_row();
    row.usage = TokenUsage {
        input_tokens: Some(0),
        output_tokens: None,
        cached_tokens: None,
        reasoning_tokens: None,
    };
    ledger.record(row.clone()).await.unwrap();
    assert_eq!(
        ledger.rows(&CallFilter::default()).await.unwrap(),
        vec![row]
    );
    drop(ledger);

    let mut conn = raw(home.path()).await;
    let stored = sqlx::query(
        "SELECT input_tokens, output_tokens IS NULL AS output_null, cached_tokens IS NULL AS cached_null FROM calls",
    )
    .fetch_one(&mut conn)
    .await
    .unwrap();
    assert_eq!(
        stored.try_get::<Option<i64>, _>("input_tokens").unwrap(),
        Some(0)
    );
    assert!(stored.try_get::<bool, _>("output_null").unwrap());
    assert!(stored.try_get::<bool, _>("cached_null").unwrap());
}

#[tokio::test]
async fn usage_ledger_refuses_incomplete_rows_and_writes_nothing() {
    let home = tempfile::tempdir().unwrap();
    let ledger = UsageLedger::open(home.path()).await.unwrap();
    type Spoil = fn(&mut CallRow);
    let cases: [(Spoil, &[&str]); 6] = [
        (|r| r.provider.clear(), &["provider"]),
        (|r| r.model = " ".into(), &["model"]),
        (|r| r.harness.clear(), &["harness"]),
        (|r| r.tool_calls = None, &["tool_calls"]),
        (|r| r.wall_ms = None, &["wall_ms"]),
        (
            |r| {
                r.provider.clear();
                r.wall_ms = None;
            },
            &["provider", "wall_ms"],
        ),
    ];
    for (spoil, expected) in cases {
        let mut row = sample_row();
        spoil(&mut row);
        match ledger.record(row).await {
            Err(UsageError::IncompleteRow { missing }) => assert_eq!(missing, expected),
            other => panic!("expected IncompleteRow {expected:?}, got {other:?}"),
        }
    }
    let mut no_id = sample_row();
    no_id.id.clear();
    assert!(matches!(
        ledger.record(no_id).await,
        Err(UsageError::MissingId)
    ));
    // An empty issue_pr is "no signal", not a missing field.
    let mut no_issue = sample_row();
    no_issue.issue_pr.clear();
    let message = UsageError::IncompleteRow {
        missing: vec!["tool_calls"],
    }
    .to_string();
    assert!(message.contains("missing tool_calls"), "{message}");
    assert!(
        ledger
            .rows(&CallFilter::default())
            .await
            .unwrap()
            .is_empty()
    );
    ledger.record(no_issue).await.unwrap();
}

#[tokio::test]
async fn usage_ledger_upgrades_version_2() {
    for with_meta in [true, false] {
        let home = tempfile::tempdir().unwrap();
        write_version_2(home.path(), with_meta).await;
        let ledger = UsageLedger::open(home.path()).await.unwrap();
        let rows = ledger.rows(&CallFilter::default()).await.unwrap();
        assert_eq!(rows.len(), 1);
        let old = &rows[0];
        assert_eq!(old.id, "old-1");
        assert_eq!(old.usage.input_tokens, Some(10));
        assert_eq!(old.usage.output_tokens, None);
        assert_eq!(old.harness, "default");
        assert_eq!(old.issue_pr, "");
        assert_eq!(old.tool_calls, None, "never measured, so unknown");
        assert_eq!(old.wall_ms, None);
        ledger.record(sample_row()).await.unwrap();
        assert_eq!(ledger.rows(&CallFilter::default()).await.unwrap().len(), 2);
        drop(ledger);
        assert_eq!(version_of(home.path()).await, 3);
    }
}

#[tokio::test]
async fn usage_ledger_newer_version_is_read_only() {
    let home = tempfile::tempdir().unwrap();
    let ledger = UsageLedger::open(home.path()).await.unwrap();
    ledger.record(sample_row()).await.unwrap();
    drop(ledger);
    let mut conn = raw(home.path()).await;
    sqlx::query("UPDATE ledger_meta SET value = 4 WHERE name = 'version'")
        .execute(&mut conn)
        .await
        .unwrap();
    conn.close().await.unwrap();

    let ledger = UsageLedger::open(home.path()).await.unwrap();
    assert_eq!(ledger.read_only_version(), Some(4));
    let mut another = sample_row();
    another.id = "other".into();
    let error = ledger.record(another).await.unwrap_err();
    assert!(matches!(error, UsageError::NewerLedger { found: 4 }));
    assert_eq!(
        error.to_string(),
        "usage.sqlite is ledger version 4, newer than this FlyBot understands (3); it was opened read-only and nothing is recorded"
    );
    // Still readable, and untouched.
    assert_eq!(
        ledger.rows(&CallFilter::default()).await.unwrap(),
        vec![sample_row()]
    );
    drop(ledger);
    assert_eq!(version_of(home.path()).await, 4);
}

#[tokio::test]
async fn usage_ledger_refuses_a_version_it_cannot_upgrade() {
    let home = tempfile::tempdir().unwrap();
    write_version_2(home.path(), true).await;
    let mut conn = raw(home.path()).await;
    sqlx::query("UPDATE ledger_meta SET value = 1 WHERE name = 'version'")
        .execute(&mut conn)
        .await
        .unwrap();
    conn.close().await.unwrap();
    let error = UsageLedger::open(home.path()).await.err().unwrap();
    assert!(
        matches!(error, UsageError::UnknownVersion { found: 1 }),
        "{error}"
    );
}

#[tokio::test]
async fn usage_ledger_rows_filter() {
    let home = tempfile::tempdir().unwrap();
    let ledger = UsageLedger::open(home.path()).await.unwrap();
    let mut later = sample_row();
    later.id = "b".into();
    later.bot_id = "bot-bo".into();
    later.at_ms += 10;
    ledger.record(later.clone()).await.unwrap();
    ledger.record(sample_row()).await.unwrap();
    let all = ledger.rows(&CallFilter::default()).await.unwrap();
    assert_eq!(all, vec![sample_row(), later.clone()], "oldest call first");
    let by_bot = CallFilter {
        bot_id: Some("bot-bo".into()),
        ..CallFilter::default()
    };
    assert_eq!(ledger.rows(&by_bot).await.unwrap(), vec![later.clone()]);
    let since = CallFilter {
        since_ms: Some(later.at_ms),
        session_id: Some("session-1".into()),
        ..CallFilter::default()
    };
    assert_eq!(ledger.rows(&since).await.unwrap(), vec![later]);
}

#[tokio::test]
async fn usage_fold_then_record() {
    let home = tempfile::tempdir().unwrap();
    let ledger = UsageLedger::open(home.path()).await.unwrap();
    let events = [
        TurnEventSummary::TurnStarted {
            session_id: "s".into(),
            bot_id: "b".into(),
            turn_id: "t".into(),
            at_ms: 0,
            text: "https://github.com/acme/app/issues/4".into(),
            harness: None,
            issue_pr: None,
        },
        TurnEventSummary::ModelCallStarted {
            provider: "mock".into(),
            model: "mock".into(),
            at_ms: 1,
        },
        TurnEventSummary::ModelCallEnded(ModelCallEnd {
            at_ms: 5,
            usage: TokenUsage::default(),
        }),
    ];
    let rows = fold_calls(&events);
    for row in rows.clone() {
        ledger.record(row).await.unwrap();
    }
    // Folding and recording the same turn again (a pickup) adds nothing.
    for row in fold_calls(&events) {
        ledger.record(row).await.unwrap();
    }
    assert_eq!(ledger.rows(&CallFilter::default()).await.unwrap(), rows);
}
