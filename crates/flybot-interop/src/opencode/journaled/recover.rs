//! Recovery a person can act on (#198, delivery and crash): at start, a
//! task whose journal holds an effect with no known outcome is reconciled
//! against its session's history and status; only a submission matched
//! unambiguously, with a completed answer and the session idle, is taken
//! (its reply goes through the ingress like any turn's end). Anything else
//! stays `recovery: uncertain` with what the runtime showed, and a person
//! decides: retry (the same reservation, charged to its retry counter),
//! accept what the runtime shows, or cancel. Each decision is journaled
//! before anything acts on it.

use super::JournaledTask;
use crate::cancel::{HumanDisposition, TurnKey};
use crate::journal::{Reconciliation, SendOperation};
use crate::opencode::driver::{TurnEnd, answer_in, assistant_ids, text_of};
use crate::opencode::journaled::CancelStand;
use serde_json::Value;

/// What reconciling a task found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Reconciled {
    /// Nothing was uncertain.
    Clear,
    /// The turn was matched to its submission and its end; the end went
    /// through the ingress (`last_observation` holds its projection).
    Answered(TurnEnd),
    /// Still uncertain; what the runtime showed, for the person.
    Uncertain { raw_status: String },
}

/// A person's decision on an uncertain task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RecoveryChoice {
    Retry,
    Accept,
    Cancel,
}

/// What a decision did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RecoveryDone {
    /// The reserved turn is sent again, with its own words, on the Bot's
    /// next turn.
    Retry,
    /// What the runtime shows became the turn's end (`None`: no turn was
    /// in flight).
    Accepted(Option<TurnEnd>),
    /// The work was given up; where its stop stands.
    Cancelled(CancelStand),
}

/// What the runtime shows of the turn whose words are `text`.
struct RuntimeView {
    /// User messages holding the turn's words.
    matches: Vec<String>,
    /// The completed answer after the one match.
    end: Option<TurnEnd>,
    idle: bool,
    status: String,
}

impl RuntimeView {
    fn describe(&self, session: &str) -> String {
        let submitted = match self.matches.as_slice() {
            [] => "holds no message with the turn's words".to_owned(),
            [one] => format!("holds the turn's words as message {one}"),
            many => format!("holds the turn's words {} times", many.len()),
        };
        let answered = match (&self.end, self.matches.len()) {
            (Some(_), 1) => "with a completed answer",
            (None, 1) => "with no completed answer",
            _ => "so no answer can be matched",
        };
        format!(
            "session {session} {submitted}, {answered}; its status: {}",
            self.status
        )
    }
}

impl JournaledTask {
    /// Why the task waits for a person, if it does: the journal's
    /// `recovery: uncertain`, an effect with no known outcome, or a reserved
    /// turn no submission names.
    pub fn uncertainty(&self) -> Option<String> {
        self.journal.uncertainty(&self.task_id)
    }

    async fn runtime_view(&self, text: &str) -> Result<(String, RuntimeView), String> {
        let session = self
            .journal
            .task(&self.task_id)
            .and_then(|t| t.correlation.session_id.clone())
            .ok_or("the task has no runtime session the journal knows")?;
        let history: Vec<Value> = self
            .client
            .messages(&session)
            .await
            .map_err(|e| format!("session {session}'s history: {e}"))?;
        let (idle, status) = match self.client.status(&session).await {
            Ok(status) => (status.is_idle(), format!("{status:?}")),
            Err(e) => (false, e.to_string()),
        };
        let positions: Vec<usize> = history
            .iter()
            .enumerate()
            .filter(|(_, m)| m["info"]["role"] == "user" && text_of(m) == text)
            .map(|(i, _)| i)
            .collect();
        let matches = positions
            .iter()
            .map(|i| history[*i]["info"]["id"].as_str().unwrap_or("?").to_owned())
            .collect();
        let end = match positions.as_slice() {
            [one] => answer_in(&history[*one..], &assistant_ids(&history[..*one])),
            _ => None,
        };
        Ok((
            session,
            RuntimeView {
                matches,
                end,
                idle,
                status,
            },
        ))
    }

    /// Reconciles the task's unresolved effects against the runtime (#198:
    /// "query the known session/message history and reconcile the recorded
    /// turn; do not submit again"); each finding is journaled.
    pub async fn reconcile(&mut self) -> Reconciled {
        self.last_observation = None;
        let Some(why) = self.uncertainty() else {
            return Reconciled::Clear;
        };
        let Some(exec) = self.journal.task(&self.task_id) else {
            return Reconciled::Clear;
        };
        let active = exec.active_turn_key();
        let text = exec.active_turn_text.clone();
        let unresolved: Vec<(u64, SendOperation, Option<TurnKey>)> = self
            .journal
            .unresolved_sends()
            .into_iter()
            .filter(|(_, s)| s.task_id == self.task_id && !s.host_settled())
            .map(|(id, s)| (id, s.operation.clone(), s.turn.clone()))
            .collect();
        let mut still = Vec::new();
        let mut answered = None;
        for (send, operation, turn) in unresolved {
            let found = match (&operation, &text) {
                (SendOperation::SubmitTurn, Some(text)) if turn == active => {
                    match self.runtime_view(text).await {
                        Ok((_, view))
                            if view.matches.len() == 1 && view.idle && view.end.is_some() =>
                        {
                            answered = view.end.clone();
                            Reconciliation::Matched {
                                remote_ref: view.matches[0].clone(),
                            }
                        }
                        Ok((session, view)) => Reconciliation::Unmatched {
                            raw_status: view.describe(&session),
                        },
                        Err(raw_status) => Reconciliation::Unmatched { raw_status },
                    }
                }
                _ => Reconciliation::Unmatched {
                    raw_status: format!(
                        "no outcome was recorded for its {operation:?} call, which the runtime cannot be asked about"
                    ),
                },
            };
            if let Reconciliation::Unmatched { raw_status } = &found {
                still.push(raw_status.clone());
            }
            let _ = self.journal.reconcile(send, found, (self.clock)());
        }
        match (still.is_empty(), answered, active) {
            (true, Some(end), Some(turn)) if self.uncertainty().is_none() => {
                let opener = self.opener_of(&turn);
                Reconciled::Answered(self.outbound(opener, turn, end))
            }
            (true, _, _) => match self.uncertainty() {
                None => Reconciled::Clear,
                Some(raw_status) => Reconciled::Uncertain { raw_status },
            },
            (false, _, _) => Reconciled::Uncertain {
                raw_status: if still.is_empty() {
                    why
                } else {
                    still.join("; ")
                },
            },
        }
    }

    /// A person's decision (`by` is their id), journaled before it acts.
    /// `Err` is the sentence of a refusal, with nothing written.
    pub async fn decide_recovery(
        &mut self,
        choice: RecoveryChoice,
        by: &str,
    ) -> Result<RecoveryDone, String> {
        if self.uncertainty().is_none() {
            return Err("its journal holds no uncertain turn; reload the board".to_owned());
        }
        let now = (self.clock)();
        let exec = self
            .journal
            .task(&self.task_id)
            .ok_or("its journal holds no such task")?;
        let active = exec.active_turn_key();
        let text = exec.active_turn_text.clone();
        let disposition = match choice {
            RecoveryChoice::Retry => {
                let turn = active
                    .as_ref()
                    .ok_or("no turn is reserved to send again; accept or cancel instead")?;
                if text.is_none() {
                    return Err("the turn's words were not kept; accept or cancel instead".into());
                }
                let retry = crate::budgets::Charge::Retry {
                    turn_id: turn.turn_id.clone(),
                };
                exec.budget
                    .check(&self.journal.state().limits, &retry, now)
                    .map_err(|limit| format!("{limit}; accept or cancel instead"))?;
                HumanDisposition::Resubmit
            }
            RecoveryChoice::Accept => HumanDisposition::AssumeDone,
            RecoveryChoice::Cancel => HumanDisposition::Abandon,
        };
        self.journal
            .dispose(&self.task_id, disposition, by, now)
            .map_err(|e| e.to_string())?;
        match choice {
            RecoveryChoice::Retry => {
                self.journal
                    .retry_turn(&self.task_id, now)
                    .map_err(|e| e.to_string())?;
                Ok(RecoveryDone::Retry)
            }
            RecoveryChoice::Accept => {
                let (Some(turn), Some(text)) = (active, text) else {
                    return Ok(RecoveryDone::Accepted(None));
                };
                let shown = match self.runtime_view(&text).await {
                    Ok((_, RuntimeView { end: Some(end), .. })) => Ok(end),
                    Ok((session, view)) => Err(view.describe(&session)),
                    Err(raw) => Err(raw),
                };
                let end = shown.unwrap_or_else(|raw| TurnEnd::Failed {
                    detail: format!("the runtime shows no answer to this turn ({raw})"),
                });
                let opener = self.opener_of(&turn);
                Ok(RecoveryDone::Accepted(Some(
                    self.outbound(opener, turn, end),
                )))
            }
            RecoveryChoice::Cancel => Ok(RecoveryDone::Cancelled(self.cancel().await)),
        }
    }
}
