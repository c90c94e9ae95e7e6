//! [`confine`]: a command made ready to start inside its [`Policy`]. The
//! ruleset, the filters and the cgroups are made here, in the host; the
//! child only applies them between fork and exec (`in_child`), with calls
//! that neither allocate nor lock on the success path.

use crate::cgroup::{self, Cgroup, Controller};
use crate::group::ProcessGroup;
use crate::mode::{Mode, mode};
use crate::policy::{Limits, Policy};
use crate::{SandboxError, rules, seccomp};
use landlock::{RulesetCreated, RulesetStatus};
use rustix::process::{Pid, Resource, Rlimit, Signal};
use seccompiler::BpfProgram;
use std::fs::File;
use std::io;
use std::sync::Mutex;
use tokio::process::{Child, Command};

/// What holds one child: its process group (killed when this drops), its
/// cgroups and its private temporary folder (removed when this drops).
#[derive(Debug)]
pub struct ChildSandbox {
    group: ProcessGroup,
    pids: Option<Cgroup>,
    memory: Option<Cgroup>,
    limits: Limits,
    described: String,
    tmp: tempfile::TempDir,
}

impl ChildSandbox {
    /// Arms the group once the child runs (its pid is the group's id).
    pub fn started(&mut self, pid: Option<u32>) {
        self.group = ProcessGroup::new(pid);
    }

    /// The child's process group, while armed.
    pub fn group(&self) -> &ProcessGroup {
        &self.group
    }

    pub fn group_mut(&mut self) -> &mut ProcessGroup {
        &mut self.group
    }

    /// The mechanism that holds the child, for a report.
    pub fn describe(&self) -> &str {
        &self.described
    }

    /// The child's private temporary folder (its `TMPDIR`).
    pub fn tmp(&self) -> &std::path::Path {
        self.tmp.path()
    }

    /// A sentence for the turn when the child ran into one of its limits
    /// (`signal`: the one that ended it, if any).
    pub fn limit_reached(&self, signal: Option<i32>) -> Option<String> {
        if let Some(pids) = &self.pids
            && cgroup::times_hit(pids, Controller::Pids) > 0
        {
            return Some(format!(
                "The sandbox's limit of {} processes was reached: starting another process failed.",
                self.limits.processes
            ));
        }
        if let Some(memory) = &self.memory
            && cgroup::times_hit(memory, Controller::Memory) > 0
        {
            return Some(format!(
                "The sandbox's memory limit of {} MiB was reached: the kernel stopped the process.",
                self.limits.memory_bytes >> 20
            ));
        }
        (signal == Some(libc::SIGXCPU)).then(|| {
            format!(
                "The sandbox's limit of {} CPU seconds was reached.",
                self.limits.cpu_seconds
            )
        })
    }
}

impl Drop for ChildSandbox {
    fn drop(&mut self) {
        self.group.signal(Signal::KILL);
        // A process that left the group (setsid) is still in the cgroup.
        if let Some(pids) = &self.pids {
            cgroup::kill_members(pids);
        }
        // Busy until the last process is reaped; a later `make` tidies it.
        for cgroup in [&self.pids, &self.memory].into_iter().flatten() {
            let _ = std::fs::remove_dir(&cgroup.dir);
        }
    }
}

/// Confines `command` (call it last, once the environment is set): its
/// own process group, killed on drop, a private `TMPDIR`, and between fork
/// and exec the limits, the cgroups, Landlock and seccomp. Keep the answer
/// with the child.
pub fn confine(command: &mut Command, policy: &Policy) -> Result<ChildSandbox, SandboxError> {
    let sandboxed = mode() == Mode::On;
    if sandboxed {
        crate::probe::check()?;
    }
    let setup = |e: io::Error| SandboxError::Setup(e.to_string());
    let tmp = tempfile::Builder::new()
        .prefix("flybot-child-")
        .tempdir()
        .map_err(setup)?;
    let limits = policy.limits;
    let pids = cgroup::make(Controller::Pids, limits.processes);
    let memory = cgroup::make(Controller::Memory, limits.memory_bytes);
    let joins = [&pids, &memory]
        .into_iter()
        .flatten()
        .map(|c| c.procs.try_clone())
        .collect::<io::Result<Vec<File>>>()
        .map_err(setup)?;
    let (ruleset, filters) = if sandboxed {
        (
            Some(rules::ruleset(policy, tmp.path())?),
            seccomp::programs(policy.network)?,
        )
    } else {
        (None, Vec::new())
    };
    let rlimits = rlimits(&limits, pids.is_some(), memory.is_some());
    for name in ["TMPDIR", "TMP", "TEMP"] {
        command.env(name, tmp.path());
    }
    if let Some(marker) = crate::orphans::owner_marker() {
        command.env(crate::orphans::MARKER_VAR, marker);
    }
    command.process_group(0).kill_on_drop(true);
    let parent = rustix::process::getpid();
    let ruleset = Mutex::new(ruleset);
    // SAFETY: `pre_exec` runs the closure in the forked child before exec,
    // where only async-signal-safe work is sound. `in_child` makes plain
    // system calls (prctl, setrlimit, write, landlock_restrict_self,
    // seccomp) on values built before the fork; it allocates only to
    // report an error, and the one lock it takes is owned by this closure
    // alone, so no other thread can have held it at the fork.
    #[allow(unsafe_code)]
    unsafe {
        command.pre_exec(move || in_child(parent, &rlimits, &joins, &ruleset, &filters));
    }
    let described = if sandboxed {
        rules::describe(policy)
    } else {
        "no sandbox (sandbox = \"off\" in config.toml)".to_owned()
    };
    Ok(ChildSandbox {
        group: ProcessGroup::new(None),
        pids,
        memory,
        limits,
        described,
        tmp,
    })
}

/// Confines and starts `command`; the sandbox's group is armed.
pub fn spawn(mut command: Command, policy: &Policy) -> io::Result<(Child, ChildSandbox)> {
    let mut sandbox = confine(&mut command, policy)?;
    let child = command.spawn()?;
    sandbox.started(child.id());
    Ok((child, sandbox))
}

/// The rlimits of `limits`: processes and memory as rlimits where no
/// cgroup holds them, CPU time always, and no core files.
fn rlimits(limits: &Limits, pids_cgroup: bool, memory_cgroup: bool) -> Vec<(Resource, u64, u64)> {
    let mut set = vec![
        (Resource::Cpu, limits.cpu_seconds, limits.cpu_seconds + 1),
        (Resource::Core, 0, 0),
    ];
    if !pids_cgroup {
        set.push((Resource::Nproc, limits.processes, limits.processes));
    }
    if !memory_cgroup && limits.address_space {
        set.push((Resource::As, limits.memory_bytes, limits.memory_bytes));
    }
    set
}

/// Between fork and exec, in the child.
fn in_child(
    parent: Pid,
    rlimits: &[(Resource, u64, u64)],
    joins: &[File],
    ruleset: &Mutex<Option<RulesetCreated>>,
    filters: &[BpfProgram],
) -> io::Result<()> {
    rustix::process::set_parent_process_death_signal(Some(Signal::KILL))?;
    // The host may have died between the fork and the line above.
    if rustix::process::getppid() != Some(parent) {
        return Err(io::Error::other("the host ended while the child started"));
    }
    for (resource, soft, hard) in rlimits {
        let limit = Rlimit {
            current: Some(*soft),
            maximum: Some(*hard),
        };
        rustix::process::setrlimit(*resource, limit)?;
    }
    for procs in joins {
        rustix::io::write(procs, b"0")?;
    }
    let taken = ruleset.lock().ok().and_then(|mut r| r.take());
    if let Some(ruleset) = taken {
        let status = ruleset.restrict_self().map_err(io::Error::other)?;
        if status.ruleset == RulesetStatus::NotEnforced {
            return Err(io::Error::other("Landlock was not enforced"));
        }
    }
    for filter in filters {
        seccompiler::apply_filter(filter).map_err(io::Error::other)?;
    }
    Ok(())
}
