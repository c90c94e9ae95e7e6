//! The conversations: a Bot's own chat (the agent runtime, #642, #1509) and
//! a room's channel (issue 5): `send`, `messages` and `cancel`, and
//! `room-stop` for a whole round, `answer-question` for a room's dock
//! (#550); `search` across them (issue 31).

pub mod own_chat;
pub mod past;
pub mod room_chat;
pub mod room_question;
pub mod room_stop;
pub mod search;
