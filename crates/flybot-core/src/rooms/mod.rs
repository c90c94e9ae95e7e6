//! Group rooms, pure half (issue 5): typed participants and membership
//! windows (#50), the log line, reach (#90, #948, #1126), held sends (#52,
//! #754), round planning (#557, #804, #913, #932, #1267, #1650, #1679), what
//! a member's turn sees (#894, #1203, #1213, #1251) and work on the board
//! (#1109, #1172, #1253, #1254).
//!
//! Nothing here does I/O or reads a clock: time is an argument, and the host
//! writes what a rule answers.

pub mod assign;
pub mod board;
pub mod claim;
pub mod context;
pub mod covers;
pub mod dispatch;
pub mod face;
pub mod group_questions;
pub mod hold;
pub mod log;
pub mod mentions;
pub mod notice_seen;
pub mod participants;
pub mod presence;
pub mod reach;
pub mod report;
pub mod round;
pub mod round_view;
pub mod standing;
pub mod steer;
pub mod wake;

#[cfg(test)]
mod fixture;

/// Turns each member may take in one round (#557).
pub const ROOM_TURNS_EACH: u32 = 2;
/// Turns the room's admin may take in one round (#557).
pub const ROOM_ADMIN_TURNS_EACH: u32 = 4;
/// Member turns one round may hold in all, the bound the admin-mention
/// exception (#804) still answers to.
pub const ROOM_ROUND_TURNS_MAX: u32 = 24;
/// Rounds Bots may start before the person speaks again; past it a line
/// that names nobody is quiet (#557, #932).
pub const ROOM_LATE_ROUNDS: u32 = 10;
/// A Bot-to-Bot chain ends at this hop (#557).
pub const MAX_HOPS: u32 = 6;
/// A first look at a room: the newest lines (#1203).
pub const ROOM_FIRST_LOOK: usize = 12;
/// Lines since the member last saw the room (#1203).
pub const ROOM_DELTA_MAX: usize = 24;
/// Of those, lines from before the round (#1203).
pub const ROOM_EARLIER_MAX: usize = 8;
/// The characters the room's lines may take in one turn (#1203).
pub const ROOM_CONTEXT_BUDGET: usize = 4_000;
/// Cards in the board snapshot (#1203).
pub const ROOM_BOARD_CARDS: usize = 8;
/// Member lines in the presence block (#1213).
pub const ROOM_PRESENCE_LINES: usize = 8;
/// Characters of the presence block (#1213).
pub const ROOM_PRESENCE_BUDGET: usize = 400;
/// The same claim line for the same card is not posted again within this
/// (#1253).
pub const CLAIM_CUE_REPEAT_MS: u64 = 30 * 60 * 1000;
/// A room's member turn waiting longer than this on a live wait is let go
/// when a person's line arrives (#1650).
pub const INTERRUPT_AFTER_MS: u64 = 60 * 1000;
/// A task wake that changed nothing waits this long before the next (#1109).
pub const WAKE_BACKOFF_MS: [u64; 4] = [30_000, 120_000, 600_000, 1_800_000];
