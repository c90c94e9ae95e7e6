//! The host's own surfaces: shared preferences and diagnostics (#49), the
//! usage ledger (#903), Test connection (#409), and the About block's build
//! facts, how far behind the build is when the owner turned the check on,
//! and the diagnostics log download (#374, #68).

pub mod about;
pub mod behind;
pub mod models;
pub mod prefs;
pub mod test_model;
pub mod usage;
