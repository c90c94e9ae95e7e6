//! The workflow engine's pure half (#1272): a workflow is data, and every
//! function here is a function of the definition and the facts read. No
//! I/O, no clock: the store reads the files and the host reads the facts.

pub mod artifact;
pub mod canonical;
pub mod columns;
pub mod definition;
pub mod enter;
pub mod facts;
pub mod graph;
pub mod guard;
pub mod layout;
pub mod library;
pub mod merge_gate;
pub mod plan;
pub mod presets;
pub mod run_bot;
pub mod tools;
pub mod validate;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_run;
