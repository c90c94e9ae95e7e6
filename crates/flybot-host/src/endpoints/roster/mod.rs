//! The roster's endpoints: Bots and rooms, (the member a change acts for is
//! `crate::actor`, #47). The rules are `flybot_core::access`, `main_bots`, `names` and
//! `rooms::participants`.

pub mod bots;
pub mod rooms;
