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

impl Approvals {
    /// At a start, marks the tool approvals a crash left waiting cancelled
    /// (#540): their turns died with the process that ran them. Only the
    /// home's writer.
    pub(crate) async fn clear_crashed_asks(&self) {
        if self.team.store().status() != flybot_store::StoreStatus::Writer {
            return;
        }
        let left = self
            .team
            .read(|s| !flybot_core::approvals::bounds::left_by_a_crash(s, 0).is_empty());
        if !left {
            return;
        }
        let cleared = self
            .team
            .mutate("host", |change| {
                let now = change.now_ms();
                for record in flybot_core::approvals::bounds::left_by_a_crash(change.state(), now) {
                    change.put_approval(&record.id, &record);
                }
                Ok(())
            })
            .await;
        if let Err(e) = cleared {
            tracing::warn!(
                "approvals a crash left waiting were not cleared: {}",
                e.message
            );
        }
    }
}
