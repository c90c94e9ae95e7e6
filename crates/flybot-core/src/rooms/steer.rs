//! A person's line while a member speaks (#1267), the room's 60 s
//! steering interrupt (#1650) and the page's Stop round (#1679): the one
//! rule that decides what a line or a stop does to a room's round
//! ([`route_line`]); the host only applies its answer.

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

/// What a room is doing when a person's line or Stop arrives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RoomNow {
    /// A round runs (or was just claimed by this arrival's send).
    pub running: bool,
    /// A member speaks now.
    pub speaking: bool,
    /// Since when the speaking member's oldest open tool wait waits, if any.
    pub oldest_wait_since: Option<u64>,
    pub now: u64,
}

/// What arrives at a room mid-round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Arrival<'a> {
    /// A person's line (`send`).
    Line(&'a str),
    /// The page's Stop round (`room-stop`).
    StopRound,
}

/// What the host does with an arrival (#1267, #1650, #1679).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Route {
    /// No round runs: the line opens one.
    OpenRound,
    /// Into the speaking member's turn, shown in the round once (#1267).
    Steer,
    /// A stop word: the speaker's turn is cancelled and the line waits for
    /// the next round, which nobody retries behind the person (#1679).
    StopSpeaker,
    /// The speaker's wait is over 60 s old: its turn is let go and the line
    /// is answered in the next round (#1650).
    Interrupt,
    /// A round runs but nobody speaks now: the line waits for the next.
    NextRound,
    /// Stop round: the speaker is cancelled, the members still to speak are
    /// skipped and the waiting lines open no next round.
    HaltRound,
    /// Stop round with no round running: nothing to stop.
    Nothing,
}

/// The one rule for a line or a stop that reaches a room mid-round.
pub fn route_line(room: &RoomNow, arrival: Arrival<'_>) -> Route {
    match (arrival, room.running, room.speaking) {
        (Arrival::StopRound, false, _) => Route::Nothing,
        (Arrival::StopRound, true, _) => Route::HaltRound,
        (Arrival::Line(_), false, _) => Route::OpenRound,
        (Arrival::Line(_), true, false) => Route::NextRound,
        (Arrival::Line(text), true, true) => match mid_line(text) {
            MidLine::Stop => Route::StopSpeaker,
            MidLine::Steer if interrupt_due(room.oldest_wait_since, room.now) => Route::Interrupt,
            MidLine::Steer => Route::Steer,
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    /// Rule #1267.
    fn a_line_while_a_member_speaks_steers_and_a_stop_word_cancels() {
        assert_eq!(mid_line("also check the tests"), MidLine::Steer);
        assert_eq!(mid_line("停下"), MidLine::Stop);
        assert_eq!(mid_line("stop it"), MidLine::Stop);
        assert!(mid_line_note("Build").contains("while you were speaking"));
    }

    #[test]
    /// Rule #1650.
    fn the_room_lets_a_member_go_after_a_sixty_second_wait() {
        assert!(!interrupt_due(None, 100_000));
        assert!(!interrupt_due(Some(40_000), 100_000));
        assert!(interrupt_due(Some(39_999), 100_000));
    }

    /// The whole table of [`route_line`]: each row a room's state, what
    /// arrives, and where it goes (#1267, #1650, #1679).
    #[test]
    /// Rules #1267, #1650, #1679.
    fn route_line_table() {
        let now = 100_000;
        let room = |running, speaking, wait: Option<u64>| RoomNow {
            running,
            speaking,
            oldest_wait_since: wait,
            now,
        };
        let rows: [(RoomNow, Arrival<'_>, Route); 11] = [
            (
                room(false, false, None),
                Arrival::Line("hello"),
                Route::OpenRound,
            ),
            (
                room(false, false, None),
                Arrival::Line("stop"),
                Route::OpenRound,
            ),
            (
                room(true, false, None),
                Arrival::Line("hello"),
                Route::NextRound,
            ),
            (
                room(true, false, Some(0)),
                Arrival::Line("hello"),
                Route::NextRound,
            ),
            (
                room(true, true, None),
                Arrival::Line("also the tests"),
                Route::Steer,
            ),
            (
                room(true, true, Some(40_000)),
                Arrival::Line("also the tests"),
                Route::Steer,
            ),
            (
                room(true, true, Some(39_999)),
                Arrival::Line("also the tests"),
                Route::Interrupt,
            ),
            (
                room(true, true, Some(39_999)),
                Arrival::Line("停下"),
                Route::StopSpeaker,
            ),
            (
                room(true, true, None),
                Arrival::Line("stop it"),
                Route::StopSpeaker,
            ),
            (room(true, true, None), Arrival::StopRound, Route::HaltRound),
            (room(false, false, None), Arrival::StopRound, Route::Nothing),
        ];
        for (state, arrival, expected) in rows {
            assert_eq!(
                route_line(&state, arrival),
                expected,
                "{state:?} {arrival:?}"
            );
        }
        assert_eq!(
            route_line(&room(true, false, None), Arrival::StopRound),
            Route::HaltRound
        );
    }
}
