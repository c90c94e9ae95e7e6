//! A child's own cgroups, where the host may make them: one under the
//! host's `pids` cgroup (`pids.max`: a fork bomb stops at the limit, for
//! root too, which RLIMIT_NPROC does not bind) and one under its `memory`
//! cgroup (the kernel stops a hog at the limit). cgroup v1 and v2 both;
//! where neither can be made the rlimits stand alone. Each is named
//! `flybot-<host pid>-<n>-<home tag>`, so a start of the same home can
//! empty and remove what a crashed host left (`orphans`), and never touches
//! another home's. The child joins them itself between fork and exec,
//! through a `cgroup.procs` opened here.

use std::fs::File;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

static NEXT: AtomicU64 = AtomicU64::new(0);

/// One controller's cgroup of one child.
#[derive(Debug)]
pub struct Cgroup {
    pub dir: PathBuf,
    /// Opened for writing, close-on-exec; the child writes "0" into it.
    pub procs: File,
}

/// A controller the sandbox uses, and its limit file in v1 and v2.
#[derive(Debug, Clone, Copy)]
pub enum Controller {
    Pids,
    Memory,
}

impl Controller {
    fn name(self) -> &'static str {
        match self {
            Controller::Pids => "pids",
            Controller::Memory => "memory",
        }
    }

    fn limit_file(self, v2: bool) -> &'static str {
        match (self, v2) {
            (Controller::Pids, _) => "pids.max",
            (Controller::Memory, false) => "memory.limit_in_bytes",
            (Controller::Memory, true) => "memory.max",
        }
    }
}

/// The folder of the host's own cgroup of `controller`, and whether it is
/// v2, or `None` where the controller is not mounted or not delegated.
pub fn host_base(controller: Controller) -> Option<(PathBuf, bool)> {
    let own = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    for line in own.lines() {
        let mut parts = line.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        let path = path.trim_start_matches('/');
        if controllers.split(',').any(|c| c == controller.name()) {
            let dir = Path::new("/sys/fs/cgroup")
                .join(controller.name())
                .join(path);
            return dir.is_dir().then_some((dir, false));
        }
    }
    // v2: the unified tree, where the controller is enabled for children.
    let path = own.lines().find_map(|l| l.strip_prefix("0::"))?;
    let path = path.trim_start_matches('/');
    ["/sys/fs/cgroup/unified", "/sys/fs/cgroup"]
        .iter()
        .map(|mount| Path::new(mount).join(path))
        .find(|dir| {
            std::fs::read_to_string(dir.join("cgroup.subtree_control"))
                .is_ok_and(|s| s.split_whitespace().any(|c| c == controller.name()))
        })
        .map(|dir| (dir, true))
}

/// Makes a child's cgroup of `controller` limited to `limit`; `None` where
/// the host may not (then the rlimits stand alone).
pub fn make(controller: Controller, limit: u64) -> Option<Cgroup> {
    let (base, v2) = host_base(controller)?;
    tidy(&base, Some(std::process::id()));
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let dir = base.join(format!(
        "flybot-{}-{n}-{}",
        std::process::id(),
        crate::orphans::home_tag()
    ));
    let made = std::fs::create_dir(&dir)
        .and_then(|()| std::fs::write(dir.join(controller.limit_file(v2)), limit.to_string()))
        .and_then(|()| {
            std::fs::OpenOptions::new()
                .write(true)
                .open(dir.join("cgroup.procs"))
        });
    match made {
        Ok(procs) => Some(Cgroup { dir, procs }),
        Err(error) => {
            tracing::debug!(?controller, %error, "no cgroup for a child; rlimits only");
            let _ = std::fs::remove_dir(&dir);
            None
        }
    }
}

/// Kills every process in `cgroup` (one that left its process group).
pub fn kill_members(cgroup: &Cgroup) {
    let procs = std::fs::read_to_string(cgroup.dir.join("cgroup.procs")).unwrap_or_default();
    for pid in procs.lines().filter_map(|l| l.trim().parse::<i32>().ok()) {
        if let Some(pid) = rustix::process::Pid::from_raw(pid) {
            let _ = rustix::process::kill_process(pid, rustix::process::Signal::KILL);
        }
    }
}

/// How often the child ran into the limit: `pids.events`' `max`, the
/// memory cgroup's `oom_kill`.
pub fn times_hit(cgroup: &Cgroup, controller: Controller) -> u64 {
    let (file, key) = match controller {
        Controller::Pids => ("pids.events", "max"),
        Controller::Memory if cgroup.dir.join("memory.events").exists() => {
            ("memory.events", "oom_kill")
        }
        Controller::Memory => ("memory.oom_control", "oom_kill"),
    };
    std::fs::read_to_string(cgroup.dir.join(file))
        .ok()
        .and_then(|text| {
            text.lines().find_map(|line| {
                let (name, value) = line.split_once(' ')?;
                (name == key).then(|| value.trim().parse().ok()).flatten()
            })
        })
        .unwrap_or(0)
}

/// Removes the empty `flybot-<pid>-<n>` cgroups under `base`: this host's
/// (`own`), whose children have all been reaped, or, with `own` `None`, a
/// dead host's after `orphans` killed what was in them. A busy one stays.
pub fn tidy(base: &Path, own: Option<u32>) {
    let Ok(entries) = std::fs::read_dir(base) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name();
        let Some(pid) = host_pid_of(&name.to_string_lossy()) else {
            continue;
        };
        let remove = match own {
            Some(own) => own == pid,
            // A dead host of this home only: a live host may be about to
            // put a child into its empty cgroup.
            None => {
                name.to_string_lossy()
                    .ends_with(&format!("-{}", crate::orphans::home_tag()))
                    && !Path::new(&format!("/proc/{pid}")).exists()
            }
        };
        if remove {
            let _ = std::fs::remove_dir(entry.path());
        }
    }
}

/// The host pid in a `flybot-<pid>-<n>` name.
pub fn host_pid_of(name: &str) -> Option<u32> {
    let rest = name.strip_prefix("flybot-")?;
    rest.split_once('-')?.0.parse().ok()
}
