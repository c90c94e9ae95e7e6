//! Work driven by the board (issue 5): `track_tasks` as the host runs it
//! (`track`), the one write path (`write`), the claim line in the member's
//! voice (#1253, `claim_lines`), a
//! dispatch line that is a board assign (#1254, `dispatch`) and the task
//! drive that wakes each owner's next card in its own chat (#1109, #1172,
//! #1205, `drive`), and a room card's question shown in its room (#550,
//! `questions`), and that work in the work view (#553, `handed`), and the
//! timer that expires ended leases (#1729, `lease_clock`) and the pruning of
//! finished cards (#1252, `prune`). The rules are `flybot_core::tasks` and
//! `flybot_core::rooms`; this module runs them on the host.

pub mod claim_lines;
pub mod drive;
pub mod handed;
pub mod lease_clock;
pub mod prune;
pub mod questions;
pub mod round_board;
pub mod track;
pub mod write;

pub use drive::TaskDrive;
pub(crate) use track::HostTasks;
pub use write::Board;
