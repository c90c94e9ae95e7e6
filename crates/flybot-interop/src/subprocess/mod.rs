//! The subprocess participant's supervision (#198, #216): the `external`
//! record, the stdio line protocol, one supervised peer per (room, Bot) and
//! its process group.

pub mod group;
pub mod peer;
pub mod spec;
pub mod supervisor;
pub mod wire;

pub use peer::{Graces, Launch, PeerAnswer, StopEnd};
pub use spec::{SpecRefusal, SubprocessSpec, parse_external};
pub use supervisor::{SeatKey, SeatOutcome, SeatState, Supervisor};
pub use wire::HostLine;
