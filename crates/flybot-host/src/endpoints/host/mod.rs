//! The host's own surfaces: shared preferences and diagnostics (#49), the
//! usage ledger (#903) and Test connection (#409).

pub mod models;
pub mod prefs;
pub mod test_model;
pub mod usage;
