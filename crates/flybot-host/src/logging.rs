//! Where the host's `tracing` lines go when a binary runs it: stderr,
//! filtered by `FLYBOT_LOG` (an `EnvFilter` spelling), `info` when unset.
//! `flybot` and `flybot-bench` both start with it, so they log alike.

use tracing_subscriber::EnvFilter;

/// Installs the process's log subscriber; call once, first thing in `main`.
pub fn init_stderr_logging() {
    tracing_subscriber::fmt()
        .with_writer(std::io::stderr)
        .with_env_filter(
            EnvFilter::try_from_env("FLYBOT_LOG").unwrap_or_else(|_| EnvFilter::new("info")),
        )
        .init();
}
