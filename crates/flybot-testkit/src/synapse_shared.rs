//! The run's shared Synapse (issue 38 keeps CI under 20 minutes): a
//! Synapse start costs 2.3-2.8 s of CPU and the suite made about 70.
//! `./scripts/test` names a folder in `FLYBOT_TEST_SYNAPSE_SHARED` and stops
//! the server in it when the run ends. The first test that asks for a
//! server starts it there, holding the folder's lock; every later test
//! joins it. Each test's users are named with a tag of its own, so no test
//! sees another's users, rooms or invites. A test that stops its server
//! takes one of its own (`start_private_synapse`).

use crate::ports::free_loopback_port;
use crate::synapse::{Place, Synapse, start_on};
use std::path::{Path, PathBuf};

const SHARED_VAR: &str = "FLYBOT_TEST_SYNAPSE_SHARED";

/// The run's shared folder, when `./scripts/test` made one.
pub(crate) fn folder() -> Option<PathBuf> {
    std::env::var_os(SHARED_VAR)
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
}

/// The shared server, started now if no test did yet (or it is gone),
/// with a tag for this test's users.
pub(crate) async fn join(folder: PathBuf) -> Option<Synapse> {
    let lock_path = folder.join("lock");
    let lock = tokio::task::spawn_blocking(move || {
        let file = std::fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&lock_path)
            .expect("the shared Synapse's lock file opens");
        file.lock().expect("the shared Synapse's lock is taken");
        file
    })
    .await
    .expect("the lock is taken off the runtime");
    let mut synapse = match recorded(&folder) {
        Some((port, key)) => match Synapse::joined(folder.join("server"), port, key).await {
            Some(running) => running,
            None => start(&folder).await?,
        },
        None => start(&folder).await?,
    };
    drop(lock);
    let tag = crate::synapse::random_bytes::<4>();
    synapse.tag = format!("-{}", flybot_core::hex::lower_hex(&tag));
    Some(synapse)
}

/// Starts the shared server and records where it is.
async fn start(folder: &Path) -> Option<Synapse> {
    let server = folder.join("server");
    std::fs::create_dir_all(&server).expect("the shared Synapse's folder is made");
    let synapse = start_on(free_loopback_port, "", Place::Shared(server)).await?;
    let record = format!("{} {}", synapse.port, synapse.key_version);
    std::fs::write(folder.join("server.txt"), record).expect("the shared Synapse is recorded");
    // For `./scripts/test` to stop it (Synapse writes its pid file only
    // when it daemonizes).
    let pid = synapse.pid().map(|p| p.to_string()).unwrap_or_default();
    std::fs::write(folder.join("server.pid"), pid).expect("the shared Synapse's pid is kept");
    Some(synapse)
}

/// The port and key version of the server a test started, if any.
fn recorded(folder: &Path) -> Option<(u16, String)> {
    let text = std::fs::read_to_string(folder.join("server.txt")).ok()?;
    let (port, key) = text.trim().split_once(' ')?;
    Some((port.parse().ok()?, key.to_owned()))
}
