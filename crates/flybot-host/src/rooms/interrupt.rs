//! The room's steering interrupt (#1650): a person's
//! line lands (core `route_line` decides) while the speaking member's oldest open tool wait is over
//! 60 s old, so that member's turn is let go, once per wait, as a Stop lets
//! it go (`ds-bot/stopped`, no inbox kept); the line waits in the room and
//! is answered in the next round.

use flybot_agent::session::Sessions;

/// Since when `session_id`'s oldest open wait waits, at `now`, with its
/// call id: what core `route_line` reads to decide #1650.
pub fn oldest_wait(sessions: &Sessions, session_id: &str, now: u64) -> Option<(String, u64)> {
    let (call_id, age) = sessions.oldest_open_wait(session_id)?;
    let age = u64::try_from(age.as_millis()).unwrap_or(u64::MAX);
    Some((call_id, now.saturating_sub(age)))
}

/// Lets the member turn of `session_id` go at its wait `call_id` (#1650);
/// answers whether it did (once per wait).
pub fn let_go(sessions: &Sessions, session_id: &str, call_id: &str) -> bool {
    sessions.interrupt_wait(session_id, call_id)
}
