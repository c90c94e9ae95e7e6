//! The seam between the collaboration contract and a runtime's driver
//! (#198, slice 5: "keep the message/task/permission/event contract
//! separable from the driver"). The contract's values are the journal,
//! the envelopes, `TurnEnd`, `Reported` and the projection's
//! `Observation`; a driver (OpenCode's, A2A's) turns its runtime's
//! protocol into them. Whatever drives a task uses only this trait, so a
//! second runtime changes no rule.

use crate::journal::Journal;
use crate::projection::Observation;
use std::future::Future;
use std::time::Duration;
use tokio::sync::watch;

pub use crate::opencode::driver::TurnEnd;
pub use crate::opencode::journaled::CancelStand;
pub use crate::opencode::reported::Reported;

/// One task's journaled connection to an external runtime.
pub trait CollaborationDriver: Send {
    /// The runtime's name, for reports (`opencode`, `a2a`).
    fn runtime(&self) -> &'static str;

    /// Runs the worker's turn on the requester's `text` (the request
    /// first, then answers), journaled; `stop` is the person's stop.
    fn turn(
        &mut self,
        text: &str,
        stop: &mut watch::Receiver<bool>,
        limit: Duration,
    ) -> impl Future<Output = TurnEnd> + Send;

    /// The host's cancel while no turn runs: requested first, observed
    /// only on the runtime's own evidence.
    fn cancel(&mut self) -> impl Future<Output = CancelStand> + Send;

    /// What the last turn's end asks of the board.
    fn last_observation(&self) -> Option<&Observation>;

    fn journal(&self) -> &Journal;
}

impl CollaborationDriver for crate::opencode::JournaledTask {
    fn runtime(&self) -> &'static str {
        "opencode"
    }

    fn turn(
        &mut self,
        text: &str,
        stop: &mut watch::Receiver<bool>,
        limit: Duration,
    ) -> impl Future<Output = TurnEnd> + Send {
        crate::opencode::JournaledTask::turn(self, text, stop, limit)
    }

    fn cancel(&mut self) -> impl Future<Output = CancelStand> + Send {
        crate::opencode::JournaledTask::cancel(self)
    }

    fn last_observation(&self) -> Option<&Observation> {
        crate::opencode::JournaledTask::last_observation(self)
    }

    fn journal(&self) -> &Journal {
        crate::opencode::JournaledTask::journal(self)
    }
}

impl CollaborationDriver for crate::a2a::A2aTask {
    fn runtime(&self) -> &'static str {
        "a2a"
    }

    fn turn(
        &mut self,
        text: &str,
        stop: &mut watch::Receiver<bool>,
        limit: Duration,
    ) -> impl Future<Output = TurnEnd> + Send {
        crate::a2a::A2aTask::turn(self, text, stop, limit)
    }

    fn cancel(&mut self) -> impl Future<Output = CancelStand> + Send {
        crate::a2a::A2aTask::cancel(self)
    }

    fn last_observation(&self) -> Option<&Observation> {
        crate::a2a::A2aTask::last_observation(self)
    }

    fn journal(&self) -> &Journal {
        crate::a2a::A2aTask::journal(self)
    }
}
