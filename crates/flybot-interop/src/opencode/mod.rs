//! The OpenCode participant (#198): the pinned version and its API
//! document check, a loopback-only client, the turn driver, the generated
//! configuration and the supervised `opencode serve` child. A scripted fake
//! server is test support behind the `testing` feature.

pub mod client;
pub mod config;
pub mod driver;
#[cfg(feature = "testing")]
pub mod fake;
#[cfg(feature = "testing")]
mod fake_command;
pub mod journaled;
pub mod locate;
pub mod pin;
pub mod process;
pub mod project_config;
pub mod reported;
pub mod spec;

pub use client::OpenCodeClient;
pub use driver::{DriverSession, Followed, Submitted, TurnEnd};
pub use journaled::{
    CancelStand, JournaledTask, Parties, Reconciled, RecoveryChoice, RecoveryDone,
};
pub use pin::{Capability, DocCheck, PINNED_VERSION, check_doc, check_doc_against};
pub use reported::Reported;
