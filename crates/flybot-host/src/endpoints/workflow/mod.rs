//! Workflows as data (#1272, #1299, #1316): the library's endpoints and a
//! job's. The service is `crate::workflows`; the rules `flybot_core::workflow`.

pub mod jobs;
pub mod library;
