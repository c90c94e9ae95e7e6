//! The quiet poll (#1064, #1161): a home that stays open reads one open
//! link's lobby about once a minute, so a lost or unread knock still seats
//! its guest; when the homeserver says to slow down (HTTP 429 with its
//! `retry_after_ms`, or a sentence naming minutes) it waits that long, up
//! to ten minutes, before the next quiet read; a read that did not answer
//! is tried on the next tick. The rule is pure: the time comes in.

/// How often a quiet read happens.
pub const POLL_EVERY_MS: u64 = 60_000;
/// The longest cool-down a homeserver can ask for.
pub const COOL_DOWN_MAX_MS: u64 = 10 * 60_000;

/// How one quiet read went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Looked {
    /// Read (whatever it seated).
    Read,
    /// The homeserver asked to wait, this long if it said.
    RateLimited(Option<u64>),
    /// No answer: the next tick tries again.
    Unanswered,
}

/// What a failed read's error says about waiting.
pub fn looked_from(error: &str) -> Looked {
    if let Some(ms) = error
        .split("retry_after_ms=")
        .nth(1)
        .and_then(|rest| rest.split(|c: char| !c.is_ascii_digit()).next())
        .and_then(|ms| ms.parse().ok())
    {
        return Looked::RateLimited(Some(ms));
    }
    let lower = error.to_lowercase();
    if lower.contains("429") || lower.contains("too many attempts") {
        let minutes = lower
            .split_whitespace()
            .collect::<Vec<_>>()
            .windows(2)
            .find(|w| w[1].starts_with("minute"))
            .and_then(|w| w[0].parse::<u64>().ok());
        return Looked::RateLimited(minutes.map(|m| m * 60_000));
    }
    Looked::Unanswered
}

/// When the next quiet read may happen, after one at `now`.
pub fn next_look(now: u64, looked: Looked) -> u64 {
    match looked {
        Looked::Read => now + POLL_EVERY_MS,
        Looked::RateLimited(wait) => now + wait.unwrap_or(POLL_EVERY_MS).min(COOL_DOWN_MAX_MS),
        Looked::Unanswered => now,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    /// Rule #1161.
    fn a_rate_limited_read_waits_out_the_cool_down_up_to_ten_minutes() {
        let now = 1_000_000;
        assert_eq!(next_look(now, Looked::Read), now + 60_000);
        let limited = looked_from(
            "the homeserver could not be reached (HTTP 429 Too Many Requests retry_after_ms=180000)",
        );
        assert_eq!(limited, Looked::RateLimited(Some(180_000)));
        assert_eq!(next_look(now, limited), now + 180_000);
        let sentence = looked_from("Too many attempts. Try again in 3 minutes.");
        assert_eq!(next_look(now, sentence), now + 180_000);
        let huge = Looked::RateLimited(Some(3_600_000));
        assert_eq!(next_look(now, huge), now + COOL_DOWN_MAX_MS);
        let silent = looked_from("the homeserver could not be reached (connection refused)");
        assert_eq!(next_look(now, silent), now, "tried on the next tick");
    }
}
