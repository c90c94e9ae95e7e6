//! The context steward's rules (#796, #917, #1233, #1285, #1447): where a
//! conversation's check line and hard line sit, how the steward's answer is
//! read, how a failed steward request is retried or cooled down, and when a
//! checkpoint leaves a part small enough to stay. Sizes are estimated
//! tokens; times are milliseconds handed in.

/// The check line's share of the usable window (#796, #1233).
pub const DEFAULT_CHECK_RATIO: f64 = 0.45;
/// The hard line's share of the usable window.
pub const HARD_RATIO: f64 = 0.95;
/// Attempts at one steward request (#1447).
pub const STEWARD_ATTEMPTS: u32 = 3;
/// The longest wait between two steward attempts (#1447).
pub const STEWARD_RETRY_MAX_MS: u64 = 5_000;
/// The cooldowns after failed steward rounds in a row, below the hard line.
pub const STEWARD_COOLDOWN_MS: [u64; 2] = [60_000, 300_000];
/// The deadline of making room before a step (#1285, `compactDeadlineMs`).
pub const COMPACT_DEADLINE_MS: u64 = 300_000;

/// Where a conversation is judged, in tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Lines {
    /// The window less the room the reply needs.
    pub usable: usize,
    /// Past this the steward is asked.
    pub check: usize,
    /// Past this nothing waits: the part moves on if it cannot shrink.
    pub hard: usize,
}

/// The lines of a model with `window` tokens keeping `reply` for the answer.
/// `check_ratio` (config `checkRatio`) sets the check line's share; a share
/// at or above the hard line's never lifts the check line above it (#796).
pub fn lines_for(window: u32, reply: u32, check_ratio: Option<f64>) -> Lines {
    let usable = window.saturating_sub(reply) as usize;
    let ratio = check_ratio
        .filter(|r| r.is_finite() && *r > 0.0)
        .unwrap_or(DEFAULT_CHECK_RATIO)
        .min(HARD_RATIO);
    Lines {
        usable,
        check: (usable as f64 * ratio) as usize,
        hard: (usable as f64 * HARD_RATIO) as usize,
    }
}

/// What the steward decided.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Verdict {
    /// A checkpoint summary replaces the older span; the part stays.
    Condense,
    /// The conversation continues in a fresh part with a handoff note.
    MoveOn,
}

/// Reads the steward's answer: its first word that is `condense` or `move`.
pub fn read_verdict(answer: &str) -> Option<Verdict> {
    answer
        .split(|c: char| !c.is_alphabetic())
        .find_map(|word| match word.to_lowercase().as_str() {
            "condense" => Some(Verdict::Condense),
            "move" => Some(Verdict::MoveOn),
            _ => None,
        })
}

/// The wait before steward attempt `attempt + 1` after a failure that can
/// pass: the provider's retry-after capped at 5 s, else a backoff that grows
/// by attempt (#1447).
pub fn steward_retry_wait_ms(attempt: u32, provider_retry_after_ms: Option<u64>) -> u64 {
    provider_retry_after_ms
        .unwrap_or(500 * u64::from(attempt.max(1)))
        .min(STEWARD_RETRY_MAX_MS)
}

/// What a steward failure that outlasted its attempts does (#1447).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StewardFailure {
    /// Below the hard line, a failure that can pass: the part stays and the
    /// steward is asked again only after this many milliseconds.
    CoolDown { ms: u64 },
    /// Over the hard line, or a failure retrying cannot change: the part
    /// moves on, and the handoff says the steward could not be asked.
    MoveOn,
}

/// Judges a failed steward round. `failures_in_row` counts this one.
pub fn after_steward_failure(
    size: usize,
    lines: Lines,
    can_pass: bool,
    failures_in_row: u32,
) -> StewardFailure {
    if !can_pass || size >= lines.hard {
        return StewardFailure::MoveOn;
    }
    let at = (failures_in_row.max(1) as usize - 1).min(STEWARD_COOLDOWN_MS.len() - 1);
    StewardFailure::CoolDown {
        ms: STEWARD_COOLDOWN_MS[at],
    }
}

/// #917: after a checkpoint the part stays when what is left of the prompt
/// (the remaining surface plus the tool schemas, estimated afresh) is under
/// the check line.
pub fn stays_after_checkpoint(remaining_with_tools: usize, lines: Lines) -> bool {
    remaining_with_tools < lines.check
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    /// Rule #796.
    fn check_line_is_45_percent_of_the_usable_window_and_never_above_the_hard_line() {
        let lines = lines_for(16_000, 2_000, None);
        assert_eq!(
            lines,
            Lines {
                usable: 14_000,
                check: 6_300,
                hard: 13_300
            }
        );
        assert_eq!(lines_for(16_000, 2_000, Some(0.8)).check, 11_200);
        assert_eq!(lines_for(16_000, 2_000, Some(1.5)).check, 13_300);
        assert_eq!(lines_for(16_000, 2_000, Some(f64::NAN)).check, 6_300);
    }

    #[test]
    /// Rule #917.
    fn a_checkpoint_keeps_the_part_only_when_the_prompt_left_is_under_the_check_line() {
        let lines = lines_for(10_000, 0, None);
        assert!(stays_after_checkpoint(4_499, lines));
        assert!(!stays_after_checkpoint(4_500, lines));
    }

    #[test]
    /// Rule #1447.
    fn steward_retry_waits_the_retry_after_capped_at_5_s_then_cools_down_60_then_300() {
        assert_eq!(steward_retry_wait_ms(1, Some(2_000)), 2_000);
        assert_eq!(steward_retry_wait_ms(1, Some(90_000)), 5_000);
        assert_eq!(steward_retry_wait_ms(2, None), 1_000);
        let lines = lines_for(10_000, 0, None);
        assert_eq!(
            after_steward_failure(5_000, lines, true, 1),
            StewardFailure::CoolDown { ms: 60_000 }
        );
        assert_eq!(
            after_steward_failure(5_000, lines, true, 2),
            StewardFailure::CoolDown { ms: 300_000 }
        );
        assert_eq!(
            after_steward_failure(5_000, lines, true, 7),
            StewardFailure::CoolDown { ms: 300_000 }
        );
        assert_eq!(
            after_steward_failure(9_500, lines, true, 1),
            StewardFailure::MoveOn
        );
        assert_eq!(
            after_steward_failure(5_000, lines, false, 1),
            StewardFailure::MoveOn
        );
    }

    #[test]
    fn the_steward_s_answer_is_its_first_condense_or_move() {
        assert_eq!(read_verdict("Condense."), Some(Verdict::Condense));
        assert_eq!(read_verdict("I would MOVE on"), Some(Verdict::MoveOn));
        assert_eq!(read_verdict("keep going"), None);
    }
}
