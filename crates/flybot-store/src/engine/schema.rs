//! The PostgreSQL engine's tables, as sqlx migrations embedded in the
//! binary (no folder of SQL files needed where the host runs).

use crate::error::StoreError;
use sqlx::PgConnection;
use sqlx::migrate::{Migration, MigrationType, Migrator};
use sqlx::{AssertSqlSafe, SqlSafeStr};

fn migrator() -> Migrator {
    Migrator::with_migrations(vec![
        Migration::new(
            1,
            "journal and lease".into(),
            MigrationType::Simple,
            AssertSqlSafe(include_str!("../../migrations/0001_journal.sql")).into_sql_str(),
            false,
        ),
        Migration::new(
            2,
            "turn log".into(),
            MigrationType::Simple,
            AssertSqlSafe(include_str!("../../migrations/0002_turns.sql")).into_sql_str(),
            false,
        ),
        Migration::new(
            3,
            "snapshot".into(),
            MigrationType::Simple,
            AssertSqlSafe(include_str!("../../migrations/0003_snapshot.sql")).into_sql_str(),
            false,
        ),
        Migration::new(
            4,
            "memory, decisions, interop and usage".into(),
            MigrationType::Simple,
            AssertSqlSafe(include_str!("../../migrations/0004_records.sql")).into_sql_str(),
            false,
        ),
    ])
}

/// Brings the database's tables up to this build's.
pub(crate) async fn migrate(conn: &mut PgConnection) -> Result<(), StoreError> {
    migrator()
        .run(conn)
        .await
        .map_err(|e| format!("the database's tables could not be made: {e}").into())
}
