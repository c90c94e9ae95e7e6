//! The Landlock ruleset of one child, built in the host before the fork
//! and only enforced in the child (`restrict_self` between fork and exec).
//! Taken from codex-rs `linux-sandbox`: a read-only system with writable
//! roots; unlike it, the whole disk is not readable, only the system's
//! programs and libraries, so a home under `/root` or `/tmp` stays closed.

use crate::SandboxError;
use crate::policy::{Network, Policy};
use landlock::{
    ABI, Access, AccessFs, AccessNet, CompatLevel, Compatible, NetPort, Ruleset, RulesetAttr,
    RulesetCreated, RulesetCreatedAttr, Scope, path_beneath_rules,
};
use std::path::{Path, PathBuf};

/// Read and executed by every child: the system's programs, libraries and
/// settings, and the kernel's views of the process. Never `/tmp`, `/root`,
/// `/home`, `/var` or `/run`, where homes and sockets live.
pub const SYSTEM_READ: [&str; 11] = [
    "/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc", "/opt", "/proc", "/sys",
];

/// Device files every child may read and write (and `ioctl`, for a tty).
const DEVICES: [&str; 8] = [
    "/dev/null",
    "/dev/zero",
    "/dev/full",
    "/dev/random",
    "/dev/urandom",
    "/dev/tty",
    "/dev/ptmx",
    "/dev/pts",
];

/// The ABI this ruleset asks for; an older kernel enforces what it has,
/// down to ABI 4 (TCP rules, Linux 6.7), below which nothing starts.
const WANTED: ABI = ABI::V6;
pub const NEEDED: ABI = ABI::V4;

/// Whether `path` lies in a folder every child reads anyway.
pub fn is_system(path: &Path) -> bool {
    SYSTEM_READ.iter().any(|s| path.starts_with(s))
}

/// The ruleset `policy` asks for, with `tmp` writable too.
pub fn ruleset(policy: &Policy, tmp: &Path) -> Result<RulesetCreated, SandboxError> {
    let unsupported =
        |e: landlock::RulesetError| SandboxError::Unsupported(format!("Landlock: {e}"));
    let setup = |e: landlock::RulesetError| SandboxError::Setup(format!("Landlock: {e}"));
    let handled = Ruleset::default()
        .set_compatibility(CompatLevel::HardRequirement)
        .handle_access(AccessFs::from_all(NEEDED))
        .map_err(unsupported)?;
    // Open leaves TCP unhandled (any port); the rest handle it all.
    let handled = match policy.network {
        Network::Open => handled,
        Network::Off | Network::Loopback { .. } => handled
            .handle_access(AccessNet::from_all(NEEDED))
            .map_err(unsupported)?,
    };
    let created = handled
        // Ioctl on devices (ABI 5) and the scopes (ABI 6) where the kernel has them.
        .set_compatibility(CompatLevel::BestEffort)
        .handle_access(AccessFs::from_all(WANTED))
        .map_err(setup)?
        .scope(Scope::AbstractUnixSocket | Scope::Signal)
        .map_err(setup)?
        .create()
        .map_err(unsupported)?;
    let device_access = AccessFs::ReadFile | AccessFs::WriteFile | AccessFs::IoctlDev;
    let mut writable: Vec<PathBuf> = policy.writable.clone();
    writable.push(tmp.to_path_buf());
    let created = created
        .add_rules(path_beneath_rules(SYSTEM_READ, AccessFs::from_read(WANTED)))
        .map_err(setup)?
        .add_rules(path_beneath_rules(
            &policy.readable,
            AccessFs::from_read(WANTED),
        ))
        .map_err(setup)?
        .add_rules(path_beneath_rules(DEVICES, device_access))
        .map_err(setup)?
        .add_rules(path_beneath_rules(&writable, AccessFs::from_all(WANTED)))
        .map_err(setup)?;
    let ports: Vec<NetPort> = match policy.network {
        Network::Off | Network::Open => Vec::new(),
        Network::Loopback {
            connect_port,
            serve,
        } => {
            let mut ports = vec![NetPort::new(connect_port, AccessNet::ConnectTcp)];
            if serve {
                // Port 0: the kernel picks an ephemeral port (OpenCode's
                // `--port 0`); no fixed port may be bound.
                ports.push(NetPort::new(0, AccessNet::BindTcp));
            }
            ports
        }
    };
    created
        .add_rules(ports.into_iter().map(Ok::<_, landlock::RulesetError>))
        .map_err(setup)
}

/// A sentence naming what the ruleset holds, for a report.
pub fn describe(policy: &Policy) -> String {
    let folders: Vec<String> = policy
        .writable
        .iter()
        .map(|p| p.display().to_string())
        .collect();
    let network = match policy.network {
        Network::Off => "no network".to_owned(),
        Network::Open => "outbound TCP and UDP anywhere".to_owned(),
        Network::Loopback {
            connect_port,
            serve: false,
        } => format!("TCP connect to port {connect_port} only"),
        Network::Loopback {
            connect_port,
            serve: true,
        } => format!("TCP connect to port {connect_port} only, one ephemeral listening port"),
    };
    let udp = if policy.network == Network::Open {
        ""
    } else {
        "UDP, "
    };
    format!(
        "Landlock ABI {}: writes only {} and a private temporary folder; {network}; seccomp: no {udp}raw or Unix sockets",
        crate::support().landlock_abi,
        folders.join(", ")
    )
}
