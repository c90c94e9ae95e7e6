//! A fresh PostgreSQL database per test (the `testing` feature only), made
//! in the private cluster `scripts/test` starts and names in
//! `FLYBOT_TEST_PG`, and dropped when the handle goes, so tests run in
//! parallel without seeing each other's rows.

use sqlx::{Connection, Executor, PgConnection};

/// The variable naming the test cluster's maintenance database.
pub const TEST_PG_VAR: &str = "FLYBOT_TEST_PG";

/// One test's database; dropped with the handle.
pub struct TestDatabase {
    admin_url: String,
    name: String,
    /// The URL a store opens.
    pub url: String,
}

/// A new empty database, or `None` (after printing why) when no test
/// cluster is configured. A skip must say why in the test's own output.
#[allow(clippy::print_stderr)]
pub fn test_database() -> Option<TestDatabase> {
    let Ok(admin_url) = std::env::var(TEST_PG_VAR) else {
        eprintln!(
            "skipped: {TEST_PG_VAR} is not set (scripts/test starts a private PostgreSQL and sets it)"
        );
        return None;
    };
    let mut random = [0u8; 8];
    getrandom::fill(&mut random).ok()?;
    let name = format!("flybot_test_{}", crate::hex(&random));
    let statement = format!("CREATE DATABASE {name}");
    run_admin(&admin_url, statement);
    let url = match admin_url.rfind('/') {
        Some(slash) if slash > "postgres://".len() => format!("{}/{name}", &admin_url[..slash]),
        _ => format!("{admin_url}/{name}"),
    };
    Some(TestDatabase {
        admin_url,
        name,
        url,
    })
}

/// Runs one statement on the maintenance database, on a thread of its own
/// so a test inside a runtime may call it.
#[allow(clippy::print_stderr)]
pub(crate) fn run_admin(admin_url: &str, statement: String) {
    let admin_url = admin_url.to_owned();
    let done = std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| e.to_string())?;
        rt.block_on(async {
            let mut conn = PgConnection::connect(&admin_url)
                .await
                .map_err(|e| e.to_string())?;
            conn.execute(sqlx::AssertSqlSafe(statement))
                .await
                .map_err(|e| e.to_string())?;
            Ok::<_, String>(())
        })
    })
    .join();
    if let Ok(Err(why)) = done {
        eprintln!("the test database statement failed: {why}");
    }
}

impl Drop for TestDatabase {
    fn drop(&mut self) {
        run_admin(
            &self.admin_url,
            format!("DROP DATABASE IF EXISTS {} WITH (FORCE)", self.name),
        );
    }
}
