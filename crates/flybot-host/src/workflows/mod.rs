//! Workflows as data, run by the host (#1272, #1299, #1316): the library of
//! definitions (`library`), who saved them (`authors`), a job's cards and
//! facts (`job`), starting and editing a job (`start`), the hidden run Bots
//! (`run_bot`), the beat that re-plans after every board write (`beat`) and
//! the Bots' workflow tools (`tools`). The rules are
//! `flybot_core::workflow`; this service runs them on the board.

pub mod authors;
pub mod beat;
pub mod job;
pub mod library;
pub mod run_bot;
pub mod start;
pub mod tools;

use crate::board::Board;
use crate::team::Team;
use std::path::PathBuf;

/// The workflow service: the board its jobs write to, the home its
/// definitions live in, and the model a run Bot gets. Cheap to clone.
#[derive(Clone)]
pub struct Workflows {
    pub board: Board,
    pub home: PathBuf,
    /// The host's models; a run Bot gets the default one at its start.
    pub models: std::sync::Arc<flybot_agent::model::config::ProviderRegistry>,
}

impl Workflows {
    pub fn team(&self) -> &Team {
        self.board.team()
    }
}
