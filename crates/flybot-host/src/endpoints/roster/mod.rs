//! The roster's endpoints: Bots and rooms, (the member a change acts for is
//! `crate::actor`, #47). The rules are `flybot_core::roster` (update and
//! delete a Bot, update a room), `access`, `main_bots` and `names`.

pub mod bots;
pub mod rooms;
