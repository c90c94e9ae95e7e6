//! The claim is public (#1253): a board write that moves a room card out of
//! open into claimed or working appends one short line to the room log in
//! the member's voice. Logged, never posted into the room's Session: no
//! turn, no round. The same line for the same card stays quiet within
//! `CLAIM_CUE_REPEAT_MS`; the last cue is kept on the card as `claimCue`.
//! `Board::write` posts them after every board write.

use crate::rooms::RoomLogs;
use crate::team::Team;
use flybot_core::rooms::claim::{ClaimCue, claim_line, is_claim_move, should_post};
use flybot_core::rooms::log::{AuthorKind, LineKind};
use flybot_core::tasks::Outcome;
use flybot_protocol::state::TaskStatus;
use flybot_store::room_log::NewLine;
use std::collections::BTreeMap;

/// The card field the last claim line is kept in; no reader sees it.
pub use flybot_protocol::task_view::CLAIM_CUE;

/// Statuses of the cards an outcome writes, as they were before it.
pub type Before = BTreeMap<String, Option<TaskStatus>>;

/// Appends the claim line of every room card the outcome claimed.
pub async fn post_claim_lines(team: &Team, logs: &RoomLogs, before: &Before, out: &Outcome) {
    let now = flybot_store::system_now_ms();
    for task in &out.writes {
        let was = before.get(&task.id).copied().flatten();
        let Some(room_id) = task.room_id.as_deref() else {
            continue;
        };
        if !is_claim_move(was.unwrap_or(TaskStatus::Open), task.status) {
            continue;
        }
        let text = claim_line(task);
        let prev: Option<ClaimCue> = task
            .extra
            .get(CLAIM_CUE)
            .and_then(|v| serde_json::from_value(v.clone()).ok());
        if !should_post(prev.as_ref(), &text, now) {
            continue;
        }
        let appended = logs.append(
            room_id,
            NewLine {
                author_id: task.bot_id.clone(),
                author_kind: AuthorKind::LocalBot,
                kind: LineKind::Claim,
                text: text.clone(),
                at: now,
                hop: 0,
            },
        );
        let line = match appended {
            Ok(line) => line,
            Err(e) => {
                tracing::warn!("the claim line of {} could not be logged: {e}", task.id);
                continue;
            }
        };
        let cue = ClaimCue {
            seq: line.seq,
            at: now,
            text,
        };
        let id = task.id.clone();
        let kept = team
            .mutate("host", |change| {
                if let Some(mut card) = change.state().tasks.get(&id).cloned() {
                    card.extra.insert(
                        CLAIM_CUE.to_owned(),
                        serde_json::to_value(&cue).unwrap_or_default(),
                    );
                    change.put_task(&card);
                }
                Ok(())
            })
            .await;
        if let Err(e) = kept {
            tracing::warn!(
                "the claim cue of {} could not be kept: {}",
                task.id,
                e.message
            );
        }
    }
}
