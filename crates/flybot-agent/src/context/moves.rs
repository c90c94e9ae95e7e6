//! The steward's two moves: a checkpoint (a summary replaces the part's
//! older span, #917) and a move to a fresh part (committed before its
//! handoff runs, rolled back when the handoff fails, #1245).

use super::parts::PartRecord;
use super::room::Room;
use super::summary::{summarize, transcript};
use crate::session::{LogEntry, SessionEvent};

/// The reason a part moves when the steward said so.
const GREW_LONG: &str = "the previous part grew long";

/// The seq of the running turn's `turn/start`.
fn current_turn_start(entries: &[LogEntry]) -> u64 {
    entries
        .iter()
        .rev()
        .find(|e| matches!(e.event, SessionEvent::TurnStart { .. }))
        .map_or(0, |e| e.seq)
}

/// The span before the running turn, as a transcript; where it starts.
pub(crate) fn older_span(room: &Room<'_>) -> (String, u64) {
    let view = room.cell.with_parts(|p| p.current());
    let max_chars = room.lines().usable * 3 / 2;
    room.cell.with_log(|log| {
        // The part is loaded (`make_room`), the running turn with it.
        let live = log.held_after(view.live_after());
        let start = current_turn_start(live);
        let span_end = live.partition_point(|e| e.seq < start);
        (transcript(&live[..span_end], max_chars), start)
    })
}

fn summary_tokens(room: &Room<'_>) -> u32 {
    room.setup.window.reply_tokens.clamp(64, 1_024)
}

/// Writes a checkpoint of the part's older span; `false` when there was
/// nothing to condense or the summary failed (a failed round, cooled down).
pub(crate) async fn checkpoint(room: &Room<'_>) -> bool {
    let (span, start) = older_span(room);
    let view = room.cell.with_parts(|p| p.current());
    if span.is_empty() {
        return false;
    }
    let before = view
        .checkpoint
        .as_ref()
        .map(|(_, s)| s.as_str())
        .or(view.note.as_deref());
    let summary = summarize(
        room.setup.provider.as_ref(),
        &room.setup.model,
        before,
        &span,
        summary_tokens(room),
    )
    .await;
    let summary = match summary {
        Ok(summary) => summary,
        Err(error) => {
            tracing::warn!("a checkpoint summary failed: {error}");
            room.failed_round(room.request().1, true);
            return false;
        }
    };
    let record = PartRecord::Checkpoint {
        part: view.part,
        upto_seq: start.saturating_sub(1),
        summary,
        at: room.env.now_ms(),
    };
    room.cell
        .with_parts(|parts| parts.append(record))
        .map_err(|e| tracing::warn!("a checkpoint was not recorded: {e}"))
        .is_ok()
}

/// Moves the conversation to a fresh part of the same Session: the part is
/// committed first, then its handoff note is written; a failed note rolls
/// the part back, so the earlier part stays current.
pub(crate) async fn move_on(room: &Room<'_>, reason: Option<String>) {
    let (span, start) = older_span(room);
    let view = room.cell.with_parts(|p| p.current());
    let part = view.part + 1;
    let committed = room.cell.with_parts(|parts| {
        parts.append(PartRecord::Start {
            part,
            from_seq: start,
            at: room.env.now_ms(),
            reason: reason.unwrap_or_else(|| GREW_LONG.to_owned()),
        })
    });
    if let Err(e) = committed {
        tracing::warn!("a fresh part could not be committed: {e}");
        return;
    }
    let before = view
        .checkpoint
        .as_ref()
        .map(|(_, s)| s.as_str())
        .or(view.note.as_deref());
    let note = if span.is_empty() {
        Ok(before
            .unwrap_or("Nothing came before this turn.")
            .to_owned())
    } else {
        summarize(
            room.setup.provider.as_ref(),
            &room.setup.model,
            before,
            &span,
            summary_tokens(room),
        )
        .await
        .map_err(|e| e.to_string())
    };
    let handed = note.and_then(|note| {
        room.cell
            .with_parts(|parts| parts.append(PartRecord::Handoff { part, note }))
            .map_err(|e| e.to_string())
    });
    if let Err(why) = handed {
        tracing::warn!("the handoff of part {part} failed, so the part is rolled back: {why}");
        if let Err(e) = room
            .cell
            .with_parts(|parts| parts.append(PartRecord::Rollback { part }))
        {
            tracing::warn!("the rollback of part {part} was not recorded: {e}");
        }
        room.failed_round(room.request().1, true);
        return;
    }
    if let Some(live) = &room.setup.context.pinned {
        let pinned = PartRecord::Pinned {
            part,
            text: live.clone(),
        };
        if let Err(e) = room.cell.with_parts(|parts| parts.append(pinned)) {
            tracing::warn!("the pinned snapshot of part {part} was not recorded: {e}");
        }
    }
}
