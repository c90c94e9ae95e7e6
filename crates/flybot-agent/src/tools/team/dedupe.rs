//! The dedupe of repeated Bot-to-Bot lines (#641): the last 60 s of lines,
//! keyed by sender + recipient Session + the text with its whitespace
//! collapsed. Process-local, capped at 500 entries, on tokio's clock (so a
//! test runs it on a paused clock).

use flybot_core::sync::lock;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;
use tokio::time::Instant;

/// How long a line counts as a repeat.
pub const DEDUPE_WINDOW: Duration = Duration::from_secs(60);
/// The most lines remembered.
const CAP: usize = 500;

/// The recent Bot-to-Bot lines.
#[derive(Default)]
pub struct RecentLines {
    seen: Mutex<HashMap<String, Instant>>,
}

fn key(sender: &str, session_id: &str, text: &str) -> String {
    let collapsed: Vec<&str> = text.split_whitespace().collect();
    format!("{sender}\u{0}{session_id}\u{0}{}", collapsed.join(" "))
}

impl RecentLines {
    /// Notes the line; answers `false` when the same line went the same way
    /// less than 60 s ago (a repeat to drop).
    pub fn first_in_window(&self, sender: &str, session_id: &str, text: &str) -> bool {
        let now = Instant::now();
        let mut seen = lock(&self.seen);
        seen.retain(|_, at| now.duration_since(*at) < DEDUPE_WINDOW);
        let key = key(sender, session_id, text);
        if seen.contains_key(&key) {
            return false;
        }
        let oldest = (seen.len() >= CAP)
            .then(|| {
                seen.iter()
                    .min_by_key(|(_, at)| **at)
                    .map(|(k, _)| k.clone())
            })
            .flatten();
        if let Some(oldest) = oldest {
            seen.remove(&oldest);
        }
        seen.insert(key, now);
        true
    }
}
