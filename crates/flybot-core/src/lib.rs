//! FlyBot's pure rules. Nothing here does I/O, reads a clock or needs a
//! runtime: every rule is a function of the team and its inputs, so it is
//! tested without one.

pub mod access;
pub mod approvals;
pub mod attachments;
pub mod busy_ack;
pub mod connectors;
pub mod context;
pub mod fences;
pub mod harness;
pub mod hex;
pub mod main_bots;
pub mod memory;
pub mod names;
pub mod prefs;
pub mod rooms;
pub mod roster;
pub mod schedules;
pub mod secret_shape;
pub mod secrets;
pub mod shared_surfaces;
pub mod social;
pub mod sync;
pub mod tasks;
pub mod unseen;
pub mod visibility;
pub mod workflow;
