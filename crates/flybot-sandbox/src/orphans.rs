//! What a crashed host left running is ended at the next start. Every
//! child carries `FLYBOT_SANDBOX_OWNER=<marker>` (the host names its home
//! once, [`set_owner_marker`]), and a start kills every process whose
//! environment holds this home's marker, then every process left in a
//! dead host's `flybot-<pid>-<n>` cgroup (a child cannot leave its cgroup:
//! `/sys` is read-only to it). The parent-death signal already takes the
//! direct children of a `kill -9`; this takes what they started.

use crate::cgroup::{Controller, host_base, host_pid_of, tidy};
use rustix::process::{Pid, Signal};
use std::collections::BTreeSet;
use std::sync::Mutex;

/// The variable every child carries.
pub const MARKER_VAR: &str = "FLYBOT_SANDBOX_OWNER";

static MARKER: Mutex<Option<String>> = Mutex::new(None);

/// Names the host's home for every child started afterwards.
pub fn set_owner_marker(marker: &str) {
    if let Ok(mut held) = MARKER.lock() {
        *held = Some(marker.to_owned());
    }
}

/// The marker children carry now, if the host named one.
pub(crate) fn owner_marker() -> Option<String> {
    MARKER.lock().ok().and_then(|m| m.clone())
}

/// A short tag of the home's marker (FNV-1a), in each child's cgroup name.
pub(crate) fn home_tag() -> String {
    let marker = owner_marker().unwrap_or_default();
    let hash = marker.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("{:08x}", hash >> 32)
}

/// Kills every process a previous host of `marker` left, and the
/// processes in dead hosts' cgroups; answers how many were killed.
pub fn sweep_orphans(marker: &str) -> usize {
    let needle = format!("{MARKER_VAR}={marker}");
    let own = std::process::id();
    let mut left: BTreeSet<u32> = BTreeSet::new();
    for pid in all_pids() {
        let Ok(environ) = std::fs::read(format!("/proc/{pid}/environ")) else {
            continue;
        };
        if environ.split(|b| *b == 0).any(|v| v == needle.as_bytes()) {
            left.insert(pid);
        }
    }
    let bases: Vec<_> = [Controller::Pids, Controller::Memory]
        .into_iter()
        .filter_map(host_base)
        .collect();
    for (base, _) in &bases {
        left.extend(in_dead_cgroups(base));
    }
    left.remove(&own);
    let killed = left.into_iter().filter(|pid| kill(*pid)).count();
    for (base, _) in &bases {
        tidy(base, None);
    }
    killed
}

fn all_pids() -> Vec<u32> {
    std::fs::read_dir("/proc")
        .map(|entries| {
            entries
                .flatten()
                .filter_map(|e| e.file_name().to_str()?.parse().ok())
                .collect()
        })
        .unwrap_or_default()
}

fn kill(pid: u32) -> bool {
    i32::try_from(pid)
        .ok()
        .and_then(Pid::from_raw)
        .is_some_and(|pid| rustix::process::kill_process(pid, Signal::KILL).is_ok())
}

/// The processes in each `flybot-<pid>-<n>` cgroup under `base` whose
/// host is gone.
fn in_dead_cgroups(base: &std::path::Path) -> Vec<u32> {
    let Ok(entries) = std::fs::read_dir(base) else {
        return Vec::new();
    };
    let mut left = Vec::new();
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let Some(host) = host_pid_of(&name) else {
            continue;
        };
        // Another home's leftovers are its own start's to end.
        if !name.ends_with(&format!("-{}", home_tag())) {
            continue;
        }
        if host == std::process::id() || std::path::Path::new(&format!("/proc/{host}")).exists() {
            continue;
        }
        let procs = std::fs::read_to_string(entry.path().join("cgroup.procs")).unwrap_or_default();
        left.extend(procs.lines().filter_map(|l| l.trim().parse::<u32>().ok()));
    }
    left
}
