//! What this kernel gives the sandbox, checked once: the Landlock ABI (a
//! throwaway thread restricts itself to learn it), seccomp filters, and
//! whether the host may make cgroups for its children.

use crate::SandboxError;
use crate::cgroup::{Controller, host_base};
use landlock::{
    AccessFs, LandlockStatus, Ruleset, RulesetAttr, RulesetCreatedAttr, path_beneath_rules,
};
use std::sync::OnceLock;

/// What the sandbox can enforce here.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Support {
    /// The kernel's Landlock ABI (0: none).
    pub landlock_abi: i32,
    pub seccomp: bool,
    /// A child gets its own `pids` cgroup (else RLIMIT_NPROC only).
    pub cgroup_pids: bool,
    /// A child gets its own `memory` cgroup (else RLIMIT_AS only).
    pub cgroup_memory: bool,
}

impl Support {
    /// Why children cannot be sandboxed here, if they cannot.
    pub fn missing(&self) -> Option<String> {
        if self.landlock_abi < crate::rules::NEEDED as i32 {
            return Some(format!(
                "Landlock ABI {} (Linux 6.7 or later with Landlock enabled gives ABI 4, which is needed)",
                self.landlock_abi
            ));
        }
        (!self.seccomp).then(|| "no seccomp filters in this kernel".to_owned())
    }
}

/// The kernel's support, checked on first use.
pub fn support() -> &'static Support {
    static SUPPORT: OnceLock<Support> = OnceLock::new();
    SUPPORT.get_or_init(|| Support {
        landlock_abi: landlock_abi(),
        seccomp: std::fs::read_to_string("/proc/self/status")
            .is_ok_and(|s| s.lines().any(|l| l.starts_with("Seccomp_filters:"))),
        cgroup_pids: host_base(Controller::Pids).is_some(),
        cgroup_memory: host_base(Controller::Memory).is_some(),
    })
}

/// The sandbox is usable, or why not.
pub fn check() -> Result<(), SandboxError> {
    match support().missing() {
        Some(why) => Err(SandboxError::Unsupported(why)),
        None => Ok(()),
    }
}

/// Restricts a throwaway thread with a rule that allows all it handles,
/// to read the ABI the kernel reports.
fn landlock_abi() -> i32 {
    let probe = || -> Result<i32, landlock::RulesetError> {
        let status = Ruleset::default()
            .handle_access(AccessFs::Execute)?
            .create()?
            .add_rules(path_beneath_rules(["/"], AccessFs::Execute))?
            .restrict_self()?;
        Ok(match status.landlock {
            LandlockStatus::Available { effective_abi, .. } => effective_abi as i32,
            LandlockStatus::NotEnabled | LandlockStatus::NotImplemented => 0,
        })
    };
    std::thread::spawn(move || probe().unwrap_or(0))
        .join()
        .unwrap_or(0)
}
