//! `TeamAccess`: what the team tools may reach of the running host. The host
//! implements it; the agent crate never names the host.

use flybot_store::Store;

/// The host as the team tools see it.
pub trait TeamAccess: Send + Sync {
    /// The team's store: reads, and changes through `Store::mutate`.
    fn store(&self) -> &Store;
}
