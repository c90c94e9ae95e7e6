//! The claim is public (#1253): a board write that moves a room card out of
//! open into claimed or working appends one short line to the room log in
//! the member's voice. Logged, never posted into the room's Session: no
//! turn, no round. The same line for the same card stays quiet within
//! `CLAIM_CUE_REPEAT_MS`; the last cue is kept on the card as `claimCue`.
//! `write_rule` is the one path the host's own board writes take: the rule
//! in one change, its worker effects, `tasks.written`, then the claim lines.

use crate::host::{Host, HostEvent};
use flybot_core::rooms::claim::{ClaimCue, claim_line, is_claim_move, should_post};
use flybot_core::rooms::log::{AuthorKind, LineKind};
use flybot_core::tasks::Outcome;
use flybot_protocol::ApiError;
use flybot_protocol::state::{TaskStatus, TeamState};
use flybot_store::room_log::NewLine;
use std::collections::BTreeMap;

/// The card field the last claim line is kept in.
pub const CLAIM_CUE: &str = "claimCue";

/// Statuses of the cards an outcome writes, as they were before it.
pub type Before = BTreeMap<String, Option<TaskStatus>>;

/// Runs `rule` as one change (a refusal writes nothing), then announces it
/// and posts its claim lines.
pub async fn write_rule(
    host: &Host,
    journal: &str,
    rule: impl FnOnce(&TeamState, u64) -> Result<Outcome, ApiError>,
) -> Result<Outcome, ApiError> {
    let out = write_quietly(host, journal, rule).await?;
    announce(host, out.writes.iter().map(|t| t.id.clone()).collect());
    Ok(out)
}

/// `write_rule` without `tasks.written`: a call of several writes announces
/// once, after the last, so the drive never wakes a member between two
/// parts of one plan.
pub async fn write_quietly(
    host: &Host,
    journal: &str,
    rule: impl FnOnce(&TeamState, u64) -> Result<Outcome, ApiError>,
) -> Result<Outcome, ApiError> {
    let (out, before) = host
        .mutate(journal, |change| {
            let out = rule(change.state(), change.now_ms())?;
            let before: Before = out
                .writes
                .iter()
                .map(|t| {
                    let was = change.state().tasks.get(&t.id).map(|old| old.status);
                    (t.id.clone(), was)
                })
                .collect();
            for task in &out.writes {
                change.put_task(task);
            }
            Ok((out, before))
        })
        .await?;
    host.apply_task_effects(&out.effects);
    post_claim_lines(host, &before, &out).await;
    Ok(out)
}

/// Tells the drive and the board's readers which cards were written.
pub fn announce(host: &Host, task_ids: Vec<String>) {
    if !task_ids.is_empty() {
        host.emit(HostEvent::TasksWritten { task_ids });
    }
}

/// Appends the claim line of every room card the outcome claimed.
pub async fn post_claim_lines(host: &Host, before: &Before, out: &Outcome) {
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
        let appended = host.rooms().append(
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
        let kept = host
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
