//! The room's steering interrupt (#1650, core `interrupt_due`): a person's
//! line lands while the speaking member's oldest open tool wait is over
//! 60 s old, so that member's turn is let go, once per wait, as a Stop lets
//! it go (`ds-bot/stopped`, no inbox kept); the line waits in the room and
//! is answered in the next round.

use flybot_agent::session::Sessions;
use flybot_core::rooms::steer::interrupt_due;

/// Cancels the member turn of `session_id` when its oldest open wait is due;
/// answers whether it did.
pub fn interrupt_long_wait(sessions: &Sessions, session_id: &str, now: u64) -> bool {
    let Some((call_id, age)) = sessions.oldest_open_wait(session_id) else {
        return false;
    };
    let age = u64::try_from(age.as_millis()).unwrap_or(u64::MAX);
    interrupt_due(Some(now.saturating_sub(age)), now)
        && sessions.interrupt_wait(session_id, &call_id)
}
