//! A child's process group: signalled as a whole, and killed when dropped.
//!
//! Signals go through `kill(1)` with a negative pid (the group), as the
//! workspace tool sandbox does, rather than the `nix` crate: it keeps the
//! workspace free of a new dependency and of `unsafe`, and a stop is rare
//! enough that one short-lived process per signal costs nothing.

use std::process::Stdio;

/// The group a child leads (`process_group(0)`: its id is the child's pid).
#[derive(Debug)]
pub struct ProcessGroup {
    pgid: Option<u32>,
}

impl ProcessGroup {
    pub fn new(pgid: Option<u32>) -> Self {
        ProcessGroup { pgid }
    }

    /// Sends `signal` (`TERM`, `KILL`) to every process of the group.
    pub fn signal(&self, signal: &str) {
        let Some(pgid) = self.pgid else { return };
        let result = std::process::Command::new("kill")
            .args(["-s", signal, "--", &format!("-{pgid}")])
            .current_dir("/")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        if let Err(error) = result {
            tracing::warn!(pgid, signal, %error, "could not signal a peer's process group");
        }
    }
}

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        self.signal("KILL");
    }
}
