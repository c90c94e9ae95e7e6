//! Binding a server's address for `flybot serve` and `flybot mock-model
//! serve`: the listener, and the one stdout line (flushed at once) that says
//! where it listens, which scripts wait for before they connect.

use anyhow::Context;
use std::net::SocketAddr;
use tokio::net::TcpListener;

/// Listens on `listen` and prints `announce(address)` on stdout.
pub async fn listen_and_announce(
    listen: &str,
    announce: impl FnOnce(SocketAddr) -> String,
) -> anyhow::Result<TcpListener> {
    let listener = TcpListener::bind(listen)
        .await
        .with_context(|| format!("could not listen on {listen}"))?;
    let address = listener
        .local_addr()
        .context("the listener has no address")?;
    let line = announce(address);
    flybot_host::logging::note(&line);
    say!("{line}");
    Ok(listener)
}
