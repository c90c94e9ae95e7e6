//! `Approvals`: what a person answers for a waiting turn (#540, #754): the
//! tool approvals the turns wait on (`turns::approver`) and the held sends
//! (`rooms::hold`), with the agent runtime a released send is delivered to.

use crate::team::Team;
use crate::turns::approver::Waits;
use flybot_agent::session::Sessions;

/// The approvals service. Cheap to clone.
#[derive(Clone)]
pub struct Approvals {
    pub team: Team,
    pub sessions: Sessions,
    /// The turns waiting on an answer, by approval id.
    pub(crate) waits: Waits,
}
