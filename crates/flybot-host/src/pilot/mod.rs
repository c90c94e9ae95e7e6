//! `flybot pilot` (#198): the phase-1 room pilot on a temporary home. Bot A
//! (internal, on the mock model) delegates the fixture task in the room,
//! Bot B (OpenCode, the fake or the real pinned server) asks its one
//! question there, gets the answer there, edits and tests in its own
//! workspace; Bot A verifies in a fresh copy and the task ends result-ready.
//! Only a person's `task-accept-result` (or a rejection) ends it.

pub mod a2a;
mod cast;
mod command;
mod evidence;
pub mod member;
pub mod real;
pub mod real_model;
pub mod run;
mod runtime_turns;
mod walk;

pub use command::{
    PinnedError, pilot_on_temporary_home, pilot_on_temporary_home_asking, pinned_runtime,
};
pub use run::{
    AcceptanceAsk, PilotConfig, PilotProbe, PilotRun, PilotRuntime, run_pilot, run_pilot_blocking,
    run_pilot_blocking_asking, run_pilot_probed,
};
