//! The task board's endpoints (#54, #207, #1058, #1154, #1247, #1691,
//! #1729, #1730): the board, a card's moves, the pull queues and projects.
//! Every write goes through `Board::write`; the rules are
//! `flybot_core::tasks`.

pub mod board;
pub mod moves;
pub mod project_assistant;
pub mod projects;
pub mod queue;
pub mod recovery;
