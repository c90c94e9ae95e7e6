//! The one door every process an agent causes goes through (issue 30): the
//! Bot's shell tool, `opencode serve` and what its agent runs, stdio MCP
//! servers, subprocess peers and test runs in fresh copies.
//!
//! [`confine`] prepares a `tokio::process::Command` with a [`Policy`]: the
//! child leads its own process group, gets a private temporary folder, and
//! between fork and exec it asks for SIGKILL when the host dies, takes its
//! rlimits, joins its own cgroups (process count, memory) where the host may
//! make them, and installs Landlock (files and TCP ports) and a seccomp
//! filter (UDP, raw and Unix sockets, listening, namespaces, io_uring). The
//! [`ChildSandbox`] it answers is kept beside the child: dropping it kills
//! the group, and it tells which limit a child ran into.
//!
//! Without Landlock (ABI 4) or seccomp nothing starts, unless the owner set
//! `sandbox = "off"` ([`set_mode`]).

mod cgroup;
mod group;
mod mode;
mod orphans;
mod policy;
mod probe;
mod rules;
mod seccomp;
mod spawn;

pub use group::{ProcessGroup, signal_group};
pub use mode::{Mode, mode, set_mode, standing_warning};
pub use orphans::{MARKER_VAR, set_owner_marker, sweep_orphans};
pub use policy::{Limits, Network, Policy, path_roots, program_roots};
pub use probe::{Support, support};
pub use rustix::process::Signal;
pub use spawn::{ChildSandbox, confine, spawn};

/// Why a child was not started inside the sandbox.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum SandboxError {
    /// The kernel lacks what the sandbox needs; nothing is started unguarded.
    #[error(
        "this host cannot sandbox the process ({0}), so it is not started; the owner may set sandbox = \"off\" in config.toml to run agent processes unguarded"
    )]
    Unsupported(String),
    #[error("the sandbox could not be set up: {0}")]
    Setup(String),
}

impl From<SandboxError> for std::io::Error {
    fn from(error: SandboxError) -> std::io::Error {
        std::io::Error::other(error.to_string())
    }
}
