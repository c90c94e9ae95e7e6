//! The spellings a room log line carries (#50, #932, #1253): who wrote it
//! and what it is. The line itself and its rules live in `flybot-core`
//! (`rooms::log`); these two values also travel in the channel's answers.

use serde::{Deserialize, Serialize};

/// Who wrote a line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum AuthorKind {
    Human,
    LocalBot,
    RemoteBot,
    /// The room itself: a notice, a failure line, a stop notice.
    System,
}

/// What a line is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LineKind {
    /// What a person or a Bot said.
    Chat,
    /// A member's claim of a card, in its own voice (#1253): logged, no turn.
    Claim,
    /// A room event (failure, stop, join, leave): calls nobody (#932).
    Event,
}
