//! Sign-in and grants (#48, #90): members, invitations and sessions, and
//! who may use another owner's Bot. The rules are `flybot_core::access`.

pub mod grants;
pub mod sign_in;
