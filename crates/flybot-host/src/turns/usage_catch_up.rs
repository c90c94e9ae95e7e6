//! The usage ledger's catch-up at start. The ledger leaves its syncs to
//! SQLite's checkpoints (issue 19: no sync per turn), so a power cut may
//! take back its newest rows, and a kill between a turn's end and its row
//! loses that row. The Session logs the rows are folded from are durable
//! and a row's id is stable (`session:turn:call`), so a start folds again
//! every turn that ended since the ledger's newest row, less a margin, and
//! the ledger keeps each row once: what is durable stays durable.

use super::usage::{UsageRecorder, record_turn};
use flybot_agent::session::{LogEntry, SessionEvent};
use flybot_store::sessions::sessions_dir;
use std::collections::BTreeSet;
use std::path::Path;
use std::time::{Duration, UNIX_EPOCH};

/// How far before the ledger's newest row the catch-up looks again.
pub const CATCH_UP_MARGIN_MS: i64 = 60_000;

/// Folds again the turns that ended since the ledger's newest row.
pub(crate) async fn catch_up(recorder: &UsageRecorder, home: &Path) {
    let Some(ledger) = recorder.usage.ledger().await else {
        return;
    };
    let since = match ledger.newest_at_ms().await {
        Ok(newest) => newest.map_or(0, |at| at.saturating_sub(CATCH_UP_MARGIN_MS).max(0)),
        Err(e) => {
            tracing::warn!("the usage ledger could not be read for its catch-up: {e}");
            return;
        }
    };
    let since = u64::try_from(since).unwrap_or(0);
    let mut folded = 0usize;
    for session_id in sessions_written_since(home, since) {
        let Ok(entries) = recorder.sessions.transcript(&session_id, 0) else {
            continue;
        };
        for turn_id in turns_ended_since(&entries, since) {
            record_turn(recorder, session_id.clone(), turn_id).await;
            folded += 1;
        }
    }
    if folded > 0 {
        tracing::info!("the usage ledger caught up on {folded} turns ended since its newest row");
    }
}

/// The Sessions whose log file changed at or after `since_ms`.
fn sessions_written_since(home: &Path, since_ms: u64) -> Vec<String> {
    let since = UNIX_EPOCH + Duration::from_millis(since_ms);
    let Ok(folder) = std::fs::read_dir(sessions_dir(home)) else {
        return Vec::new();
    };
    folder
        .filter_map(Result::ok)
        .filter(|file| {
            file.metadata()
                .and_then(|meta| meta.modified())
                .is_ok_and(|modified| modified >= since)
        })
        .filter_map(|file| {
            let name = file.file_name().into_string().ok()?;
            name.strip_suffix(".jsonl").map(str::to_owned)
        })
        .collect()
}

/// The turns of `entries` that ended at or after `since_ms`.
fn turns_ended_since(entries: &[LogEntry], since_ms: u64) -> BTreeSet<String> {
    entries
        .iter()
        .filter(|entry| entry.at >= since_ms)
        .filter_map(|entry| match &entry.event {
            SessionEvent::TurnEnd { turn_id, .. } => Some(turn_id.clone()),
            _ => None,
        })
        .collect()
}
