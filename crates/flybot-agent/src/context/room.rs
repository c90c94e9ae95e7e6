//! Making room before a step (#796, #917, #1285, #1447): measure the
//! request against the lines; past the check line ask the steward (with its
//! retries and cooldowns) and condense in place or move to a fresh part,
//! all inside the `compactDeadlineMs` deadline.

use super::moves::{checkpoint, move_on, older_span};
use super::parts::PartRecord;
use super::summary::{StewardAsk, ask_steward, transcript};
use super::view::part_messages;
use crate::model::{ModelError, ModelRequest, ToolSpec};
use crate::session::runtime::Cell;
use crate::turn::request::estimate_messages;
use crate::turn::{TurnEnvironment, TurnSetup};
use flybot_core::context::{
    Lines, STEWARD_ATTEMPTS, StewardFailure, Verdict, after_steward_failure, lines_for,
    read_verdict, stays_after_checkpoint, steward_retry_wait_ms,
};
use std::time::Duration;
use tokio::time::Instant;

/// Why a step has no request.
#[derive(Debug)]
pub(crate) enum NoRequest {
    /// Making room ran out of its deadline (#1285): the turn ends normally
    /// and its input is queued again.
    DeadlineRanOut { ms: u64 },
    /// The part's older entries could not be read back from the log.
    Unreadable(std::io::Error),
}

/// What one step runs with while the steward works.
pub(crate) struct Room<'a> {
    pub cell: &'a Cell,
    pub env: &'a dyn TurnEnvironment,
    pub setup: &'a TurnSetup,
    pub specs: &'a [ToolSpec],
}

impl Room<'_> {
    /// Makes the Session hold the current part's live entries (issue 13):
    /// the running turn builds each step's request from memory, and the
    /// turn's end lets them go.
    fn load_part(&self) -> std::io::Result<()> {
        let after = self.cell.with_parts(|parts| parts.current().live_after());
        self.cell.with_log(|log| log.load_after(after))
    }

    /// The request from the current part (loaded by `load_part`), and its
    /// estimated size.
    pub(crate) fn request(&self) -> (ModelRequest, usize) {
        let view = self.cell.with_parts(|parts| parts.current());
        let messages = self.cell.with_log(|log| {
            part_messages(
                &self.setup.system_prompt,
                &view,
                log.held_after(view.live_after()),
                self.specs,
                self.setup.window,
            )
        });
        // One system message, first, and no two user messages in a row:
        // strict chat templates refuse both.
        let messages = crate::turn::strict::strict_order(messages);
        let size = estimate_messages(&messages, self.specs);
        let request = ModelRequest {
            model: self.setup.model.clone(),
            messages,
            tools: self.specs.to_vec(),
            max_tokens: Some(self.setup.window.reply_tokens),
            thinking: self.setup.thinking,
        };
        (request, size)
    }

    pub(crate) fn lines(&self) -> Lines {
        let window = self.setup.window;
        lines_for(
            window.context_tokens,
            window.reply_tokens,
            self.setup.context.check_ratio,
        )
    }

    /// A part snapshots the pinned block once, at its first step; the
    /// model call does not wait for the snapshot's sync.
    fn snapshot_pinned(&self) {
        let Some(live) = &self.setup.context.pinned else {
            return;
        };
        self.cell.with_parts(|parts| {
            let view = parts.current();
            if view.pinned.is_none() {
                let record = PartRecord::Pinned {
                    part: view.part,
                    text: live.clone(),
                };
                if let Err(e) = parts.append_behind(record) {
                    tracing::warn!("the pinned snapshot was not recorded: {e}");
                }
            }
        });
    }

    /// Counts a failed round; answers what it does.
    pub(crate) fn failed_round(&self, size: usize, can_pass: bool) -> StewardFailure {
        let lines = self.lines();
        self.cell.with_parts(|parts| {
            parts.failures_in_row += 1;
            let verdict = after_steward_failure(size, lines, can_pass, parts.failures_in_row);
            if let StewardFailure::CoolDown { ms } = verdict {
                parts.cooldown_until = Some(Instant::now() + Duration::from_millis(ms));
            }
            verdict
        })
    }

    fn succeeded(&self) {
        self.cell.with_parts(|parts| {
            parts.failures_in_row = 0;
            parts.cooldown_until = None;
        });
    }

    /// One steward question with its retries (#1447): a failure that can
    /// pass is asked again up to three times, waiting the provider's
    /// retry-after capped at 5 s. `Err` carries whether it could pass.
    async fn ask(&self, size: usize) -> Result<Verdict, (bool, String)> {
        let lines = self.lines();
        let checkpoints = self.cell.with_parts(|p| p.current().checkpoints);
        let latest = self
            .cell
            .with_log(|log| log.latest(6))
            .map_err(|e| (false, format!("the Session's log could not be read ({e})")))?;
        let latest = transcript(&latest, 1_500);
        let question = StewardAsk {
            size,
            check: lines.check,
            hard: lines.hard,
            checkpoints,
            latest: &latest,
        };
        let provider = self
            .setup
            .context
            .steward_provider
            .clone()
            .unwrap_or_else(|| self.setup.provider.clone());
        for attempt in 1..=STEWARD_ATTEMPTS {
            match ask_steward(provider.as_ref(), &self.setup.model, &question).await {
                Ok(answer) => {
                    return read_verdict(&answer)
                        .ok_or((false, "its answer was neither condense nor move".to_owned()));
                }
                Err(error) => {
                    let (can_pass, retry_after) = passing(&error);
                    if !can_pass || attempt == STEWARD_ATTEMPTS {
                        return Err((can_pass, error.to_string()));
                    }
                    let wait = steward_retry_wait_ms(attempt, retry_after);
                    tokio::time::sleep(Duration::from_millis(wait)).await;
                }
            }
        }
        Err((true, "no attempt was made".to_owned()))
    }

    /// Asks, and condenses or moves as the steward says.
    async fn round(&self, size: usize) {
        match self.ask(size).await {
            Ok(Verdict::Condense) => {
                self.succeeded();
                if !checkpoint(self).await {
                    return;
                }
                let (_, left) = self.request();
                if stays_after_checkpoint(left, self.lines()) {
                    return;
                }
                // #1447: the steward is asked again before the part moves.
                match self.ask(left).await {
                    Ok(Verdict::Condense) => {}
                    Ok(Verdict::MoveOn) => move_on(self, None).await,
                    Err((can_pass, why)) => self.after_failure(left, can_pass, why).await,
                }
            }
            Ok(Verdict::MoveOn) => {
                self.succeeded();
                move_on(self, None).await;
            }
            Err((can_pass, why)) => self.after_failure(size, can_pass, why).await,
        }
    }

    async fn after_failure(&self, size: usize, can_pass: bool, why: String) {
        if self.failed_round(size, can_pass) == StewardFailure::MoveOn {
            let reason =
                format!("the context steward could not be asked whether to keep it ({why})");
            move_on(self, Some(reason)).await;
        }
    }
}

/// Whether a failed request can pass if asked again, and the provider's
/// retry-after in milliseconds.
fn passing(error: &ModelError) -> (bool, Option<u64>) {
    match error {
        ModelError::RateLimited { retry_after } => {
            (true, retry_after.map(|d| d.as_millis() as u64))
        }
        ModelError::RateLimitExhausted { .. } | ModelError::Timeout | ModelError::Transport(_) => {
            (true, None)
        }
        ModelError::Provider { status, .. } => (*status >= 500, None),
        ModelError::Budget
        | ModelError::Auth
        | ModelError::MissingKey
        | ModelError::NoModel
        | ModelError::Unsupported { .. }
        | ModelError::BadResponse(_)
        | ModelError::Cancelled => (false, None),
    }
}

/// The step's request, after making room when it is past the check line.
pub(crate) async fn make_room(room: &Room<'_>) -> Result<ModelRequest, NoRequest> {
    room.snapshot_pinned();
    room.load_part().map_err(NoRequest::Unreadable)?;
    let (request, size) = room.request();
    let lines = room.lines();
    if size <= lines.check {
        return Ok(request);
    }
    // Nothing older than the running turn is in the part: neither a
    // checkpoint nor a fresh part would make it smaller, so the steward is
    // not asked and the window fit is the last safety.
    if older_span(room).0.is_empty() {
        return Ok(request);
    }
    let cooling = room
        .cell
        .with_parts(|p| p.cooldown_until.is_some_and(|until| Instant::now() < until));
    if cooling && size < lines.hard {
        return Ok(request);
    }
    let deadline = room.setup.context.compact_deadline;
    if tokio::time::timeout(deadline, room.round(size))
        .await
        .is_err()
    {
        return Err(NoRequest::DeadlineRanOut {
            ms: deadline.as_millis() as u64,
        });
    }
    Ok(room.request().0)
}
