//! The pilot's interop side (#198): the fixture task and its evidence, the
//! scripted peers' lines, and the evidence report the contract asks for.

pub mod fixture;
pub mod report;
pub mod script;
