//! A person's line while a member speaks (#1267) and the room's 60 s
//! steering interrupt (#1650).

use super::INTERRUPT_AFTER_MS;
use super::mentions::is_stop;

/// `ROOM_MID_LINE`: the note a steered line carries into the running turn.
pub fn mid_line_note(room_name: &str) -> String {
    format!(
        "[Group chat \"{room_name}\" · the user sent this while you were speaking; answer it now]"
    )
}

/// What a person's line does to the member speaking now (#1267).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MidLine {
    /// Delivered into the running turn as a steer, shown in the round once.
    Steer,
    /// Only a stop word: the speaking slot is superseded, its turn cancelled,
    /// nothing it said is posted; the line opens the next round afresh.
    Stop,
}

/// The slot label a stopped turn shows.
pub const STOPPED_LABEL: &str = "(stopped by the user)";

pub fn mid_line(text: &str) -> MidLine {
    if is_stop(text) {
        MidLine::Stop
    } else {
        MidLine::Steer
    }
}

/// #1650: a person's line lands on the room while the member the round waits
/// on has a live wait older than 60 s: that turn is let go.
pub fn interrupt_due(oldest_open_wait_since: Option<u64>, now: u64) -> bool {
    oldest_open_wait_since.is_some_and(|since| now.saturating_sub(since) > INTERRUPT_AFTER_MS)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_line_while_a_member_speaks_steers_and_a_stop_word_cancels_1267() {
        assert_eq!(mid_line("also check the tests"), MidLine::Steer);
        assert_eq!(mid_line("停下"), MidLine::Stop);
        assert_eq!(mid_line("stop it"), MidLine::Stop);
        assert!(mid_line_note("Build").contains("while you were speaking"));
    }

    #[test]
    fn the_room_lets_a_member_go_after_a_sixty_second_wait_1650() {
        assert!(!interrupt_due(None, 100_000));
        assert!(!interrupt_due(Some(40_000), 100_000));
        assert!(interrupt_due(Some(39_999), 100_000));
    }
}
