//! A child's process group: signalled as a whole through `kill(2)` on the
//! negative id (rustix, no `kill(1)` process per signal), and killed when
//! its handle drops.

use rustix::process::{Pid, Signal};

/// Sends `signal` to every process of group `pgid`; a gone group is fine.
pub fn signal_group(pgid: u32, signal: Signal) {
    let Some(pid) = i32::try_from(pgid).ok().and_then(Pid::from_raw) else {
        return;
    };
    match rustix::process::kill_process_group(pid, signal) {
        Ok(()) | Err(rustix::io::Errno::SRCH) => {}
        Err(error) => tracing::warn!(pgid, ?signal, %error, "could not signal a process group"),
    }
}

/// The group a child leads (`process_group(0)`: its id is the child's pid).
#[derive(Debug)]
pub struct ProcessGroup {
    pgid: Option<u32>,
}

impl ProcessGroup {
    pub fn new(pgid: Option<u32>) -> ProcessGroup {
        ProcessGroup { pgid }
    }

    /// The group's id while armed.
    pub fn id(&self) -> Option<u32> {
        self.pgid
    }

    /// Sends `signal` to every process of the group.
    pub fn signal(&self, signal: Signal) {
        if let Some(pgid) = self.pgid {
            signal_group(pgid, signal);
        }
    }

    /// The group is gone (its leader was reaped and the group killed): its
    /// id may be reused, so it is never signalled again.
    pub fn disarm(&mut self) {
        self.pgid = None;
    }
}

impl Drop for ProcessGroup {
    fn drop(&mut self) {
        self.signal(Signal::KILL);
    }
}
