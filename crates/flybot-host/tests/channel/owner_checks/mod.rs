//! Every owner check, once, in core (issue 29), end to end: each test is
//! named after the rule it keeps, and each refusal is checked with its code
//! and that the home did not change.

pub mod connectors;
mod models;
mod private_home;
mod standing_grants;
mod team_list;
mod unseen;
mod workflow_library;
