//! Where the host's `tracing` lines go when a binary runs it: standard
//! error through the console's queue (`console`: never blocking, never
//! panicking on a closed pipe), filtered by `FLYBOT_LOG` (an `EnvFilter`
//! spelling), `info` when unset (`DEFAULT_FILTER`); and, once the home is known, its
//! warnings and errors to the home's `diagnostics.log` too (issue 40),
//! which rotates at its limit so it stays bounded (#68).
//! `flybot` and `flybot-bench` both start with it, so they log alike.

pub mod console;

use flybot_store::diagnostics_log::DiagnosticsLog;
use std::io::Write;
use std::path::Path;
use std::sync::{Mutex, OnceLock};
use tracing::level_filters::LevelFilter;
use tracing_subscriber::EnvFilter;
use tracing_subscriber::fmt::MakeWriter;
use tracing_subscriber::prelude::*;

/// The home's diagnostics log, once `keep_diagnostics` opened it.
static DIAGNOSTICS: OnceLock<Mutex<DiagnosticsLog>> = OnceLock::new();

/// The console's filter when `FLYBOT_LOG` is unset: `info`, but
/// PostgreSQL's notices from warnings up. sqlx logs every notice at info,
/// so each start on a database already set up printed "relation
/// _sqlx_migrations already exists, skipping", which tells a person nothing.
const DEFAULT_FILTER: &str = "info,sqlx::postgres::notice=warn";

/// Installs the process's log subscriber; call once, first thing in `main`.
pub fn init_stderr_logging() {
    let filter =
        EnvFilter::try_from_env("FLYBOT_LOG").unwrap_or_else(|_| EnvFilter::new(DEFAULT_FILTER));
    let console = tracing_subscriber::fmt::layer()
        .with_writer(console::QueuedStderr)
        .with_filter(filter);
    let file = tracing_subscriber::fmt::layer()
        .with_ansi(false)
        .with_writer(DiagnosticsFile)
        .with_filter(LevelFilter::WARN);
    let _ = tracing_subscriber::registry()
        .with(console)
        .with(file)
        .try_init();
}

/// From now on, warnings and errors are kept in `home`'s diagnostics log.
pub fn keep_diagnostics(home: &Path) -> std::io::Result<()> {
    let log = DiagnosticsLog::open(home)?;
    let _ = DIAGNOSTICS.set(Mutex::new(log));
    Ok(())
}

/// Logs one line at `info`, for a binary that says it on standard output
/// too (the listening address), so the log has it even when nobody reads
/// standard output.
pub fn note(line: &str) {
    tracing::info!("{line}");
}

/// Appends one line to the diagnostics log, when one is kept.
pub fn diagnose(line: &str) {
    let _ = DiagnosticsFile.write_all(format!("{line}\n").as_bytes());
}

/// The diagnostics log as a `tracing` writer: a write before the home is
/// known, or one the disk refuses, is dropped.
#[derive(Debug, Clone, Copy, Default)]
struct DiagnosticsFile;

impl Write for DiagnosticsFile {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        if let Some(Ok(mut log)) = DIAGNOSTICS.get().map(Mutex::lock) {
            let _ = log.append(bytes);
        }
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> MakeWriter<'a> for DiagnosticsFile {
    type Writer = DiagnosticsFile;

    fn make_writer(&'a self) -> Self::Writer {
        DiagnosticsFile
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::sync::Arc;
    use tracing_subscriber::layer::Context;

    /// Keeps the target of every event it is shown.
    struct Targets(Arc<Mutex<Vec<String>>>);

    impl<S: tracing::Subscriber> tracing_subscriber::Layer<S> for Targets {
        fn on_event(&self, event: &tracing::Event<'_>, _: Context<'_, S>) {
            self.0
                .lock()
                .unwrap()
                .push(event.metadata().target().to_owned());
        }
    }

    #[test]
    fn the_default_console_keeps_the_hosts_info_and_drops_postgres_notices() {
        let shown = Arc::new(Mutex::new(Vec::new()));
        let subscriber = tracing_subscriber::registry()
            .with(Targets(shown.clone()).with_filter(EnvFilter::new(DEFAULT_FILTER)));
        tracing::subscriber::with_default(subscriber, || {
            tracing::info!(target: "sqlx::postgres::notice", "relation \"_sqlx_migrations\" already exists, skipping");
            tracing::info!(target: "flybot_host::logging", "FlyBot is listening");
            tracing::warn!(target: "sqlx::postgres::notice", "a warning the database sent");
        });
        assert_eq!(
            *shown.lock().unwrap(),
            ["flybot_host::logging", "sqlx::postgres::notice"]
        );
    }
}
