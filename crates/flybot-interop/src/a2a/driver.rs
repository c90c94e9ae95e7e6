//! One A2A turn under the contract (the same `Followed` / `TurnEnd` values
//! the OpenCode driver ends with): the message goes out with
//! `SendStreamingMessage` (or `SendMessage` when the card says the agent
//! does not stream); the stream is a notification source only, and the
//! turn's end is read from the task's record (`GetTask`). An agent that asks
//! for input (`TASK_STATE_INPUT_REQUIRED`) suspends the turn with its
//! question; one that asks for authorization (`TASK_STATE_AUTH_REQUIRED`)
//! is a permission the policy does not grant, reported before any remote
//! call so a journaling caller persists the deny (a cancel) around it. A
//! stop is `observed` only once the record shows `TASK_STATE_CANCELED`.

use super::card::AgentCard;
use super::client::{A2aClient, A2aError, printable};
use super::wire::{self, SendResult, StreamEvent, Task, TaskState};
use crate::opencode::driver::{Followed, TurnEnd};
use crate::opencode::reported::Reported;
use serde_json::{Value, json};
use std::time::Duration;
use tokio::sync::watch;

/// How often the record is read while the task works on without a stream.
const POLL: Duration = Duration::from_millis(100);
/// Reads of the record after a cancel before the stop counts as unobserved.
const STOP_POLLS: u32 = 30;

/// The task's one A2A conversation: FlyBot names its context, the agent
/// names the task on the first turn, and every later turn names both.
pub struct A2aSession {
    pub client: A2aClient,
    pub card: AgentCard,
    pub context_id: String,
    task_id: Option<String>,
    /// Raw states observed, in order, for the report.
    raw: Vec<String>,
    /// The last record read.
    last: Option<Task>,
}

/// What a turn's stream told before it ended.
enum Streamed {
    /// The stream closed (or was not used): read the record.
    Closed,
    Stop,
    TimedOut,
    End(TurnEnd),
}

impl A2aSession {
    pub fn open(client: A2aClient, card: AgentCard, context_id: String) -> A2aSession {
        A2aSession {
            client,
            card,
            context_id,
            task_id: None,
            raw: Vec::new(),
            last: None,
        }
    }

    /// The agent's id of the task, once it named one.
    pub fn task_id(&self) -> Option<&str> {
        self.task_id.as_deref()
    }

    /// Continues the agent's task `task_id` (its id from the journal,
    /// after a restart).
    pub fn resume_task(&mut self, task_id: String) {
        if wire::valid_id(&task_id) {
            self.task_id = Some(task_id);
        }
    }

    /// The raw states observed so far.
    pub fn raw_states(&self) -> &[String] {
        &self.raw
    }

    /// The raw states observed since the last call, taken.
    pub fn take_raw_states(&mut self) -> Vec<String> {
        std::mem::take(&mut self.raw)
    }

    /// The last record read (its artifacts are the agent's outputs).
    pub fn last_task(&self) -> Option<&Task> {
        self.last.as_ref()
    }

    fn message(&self, text: &str, message_id: &str) -> Value {
        let mut message = json!({
            "messageId": message_id,
            "role": "ROLE_USER",
            "contextId": self.context_id,
            "parts": [{"text": text}],
        });
        if let Some(task) = &self.task_id {
            message["taskId"] = Value::String(task.clone());
        }
        message
    }

    /// Takes the ids an event or a task names: the first one names the
    /// task; any other task or context is refused (no cross-talk).
    fn claim(&mut self, task_id: &str, context_id: &str) -> Result<(), TurnEnd> {
        if context_id != self.context_id || !wire::valid_id(task_id) {
            return Err(TurnEnd::Failed {
                detail: format!(
                    "the agent answered for context {}, not this task's; nothing was taken",
                    printable(context_id, 60)
                ),
            });
        }
        match &self.task_id {
            None => {
                self.task_id = Some(task_id.to_owned());
                Ok(())
            }
            Some(ours) if ours == task_id => Ok(()),
            Some(_) => Err(TurnEnd::Failed {
                detail: format!(
                    "the agent answered for task {}, not this one; nothing was taken",
                    printable(task_id, 60)
                ),
            }),
        }
    }

    fn note(&mut self, state: TaskState) {
        self.raw.push(state.raw().to_owned());
    }

    /// Sends `text` as message `message_id` and follows the turn to its
    /// end, leaving every further remote call (a deny, a cancel) to the
    /// caller, as `Followed` says.
    pub async fn follow(
        &mut self,
        text: &str,
        message_id: &str,
        stop: &mut watch::Receiver<bool>,
        limit: Duration,
    ) -> Followed {
        let deadline = tokio::time::Instant::now() + limit;
        let message = self.message(text, message_id);
        let streamed = if self.card.streaming {
            match self.client.stream_message(message).await {
                Ok(mut events) => self.read_stream(&mut events, stop, deadline).await,
                Err(e) => Streamed::End(refused_or_uncertain(e)),
            }
        } else {
            match self.client.send_message(message).await {
                Ok(SendResult::Task(task)) => match self.claim(&task.id, &task.context_id) {
                    Ok(()) => Streamed::Closed,
                    Err(end) => Streamed::End(end),
                },
                Ok(SendResult::Message(_)) => Streamed::End(no_task()),
                Err(e) => Streamed::End(refused_or_uncertain(e)),
            }
        };
        match streamed {
            Streamed::End(end) => Followed::End(end),
            Streamed::Stop => Followed::StopAsked,
            Streamed::TimedOut => Followed::TimedOut {
                limit_secs: limit.as_secs(),
            },
            Streamed::Closed => self.read_record(stop, deadline, limit).await,
        }
    }

    async fn read_stream(
        &mut self,
        events: &mut tokio::sync::mpsc::Receiver<Result<StreamEvent, A2aError>>,
        stop: &mut watch::Receiver<bool>,
        deadline: tokio::time::Instant,
    ) -> Streamed {
        let mut stop_live = true;
        if *stop.borrow() {
            return Streamed::Stop;
        }
        loop {
            tokio::select! {
                event = events.recv() => match event {
                    None => return Streamed::Closed,
                    Some(Err(e)) => return Streamed::End(refused_or_uncertain(e)),
                    Some(Ok(event)) => {
                        let Some((task, context)) = event.ids() else {
                            return Streamed::End(no_task());
                        };
                        let (task, context) = (task.to_owned(), context.to_owned());
                        if let Err(end) = self.claim(&task, &context) {
                            return Streamed::End(end);
                        }
                        let state = match &event {
                            StreamEvent::Task(t) => Some(t.status.state),
                            StreamEvent::StatusUpdate(u) => Some(u.status.state),
                            StreamEvent::ArtifactUpdate(_) | StreamEvent::Message(_) => None,
                        };
                        if let Some(state) = state {
                            self.note(state);
                            if state.interrupted() || state.terminal() {
                                return Streamed::Closed;
                            }
                        }
                    }
                },
                changed = stop.changed(), if stop_live => match changed {
                    Ok(()) if *stop.borrow() => return Streamed::Stop,
                    Ok(()) => {}
                    // No one can stop the turn any more.
                    Err(_) => stop_live = false,
                },
                () = tokio::time::sleep_until(deadline) => return Streamed::TimedOut,
            }
        }
    }

    /// Reads the record until the task waits for FlyBot or ends.
    async fn read_record(
        &mut self,
        stop: &mut watch::Receiver<bool>,
        deadline: tokio::time::Instant,
        limit: Duration,
    ) -> Followed {
        let Some(task_id) = self.task_id.clone() else {
            return Followed::End(no_task());
        };
        let mut stop_live = true;
        loop {
            let task = match self.client.get_task(&task_id).await {
                Ok(task) => task,
                Err(e) => return Followed::End(refused_or_uncertain(e)),
            };
            if let Err(end) = self.claim(&task.id, &task.context_id) {
                return Followed::End(end);
            }
            if let Some(reason) = wire::refuse_task(&task) {
                return Followed::End(TurnEnd::Failed { detail: reason });
            }
            let state = task.status.state;
            self.note(state);
            self.last = Some(task.clone());
            if let Some(followed) = ended(&task) {
                return followed;
            }
            tokio::select! {
                changed = stop.changed(), if stop_live => match changed {
                    Ok(()) if *stop.borrow() => return Followed::StopAsked,
                    Ok(()) => {}
                    Err(_) => stop_live = false,
                },
                () = tokio::time::sleep_until(deadline) => {
                    return Followed::TimedOut { limit_secs: limit.as_secs() };
                }
                () = tokio::time::sleep(POLL) => {}
            }
        }
    }

    /// `CancelTask`, then the record until it shows the task canceled.
    /// `Ok(raw)` is the state observed; `Err` says why no stop was seen.
    pub async fn cancel_observed(&mut self) -> Result<String, String> {
        let Some(task_id) = self.task_id.clone() else {
            return Err("the agent never named a task, so there is none to cancel".to_owned());
        };
        if let Err(e) = self.client.cancel_task(&task_id).await {
            return Err(e.to_string());
        }
        for _ in 0..STOP_POLLS {
            if let Ok(task) = self.client.get_task(&task_id).await
                && task.id == task_id
            {
                self.note(task.status.state);
                if task.status.state == TaskState::Canceled {
                    return Ok(TaskState::Canceled.raw().to_owned());
                }
            }
            tokio::time::sleep(POLL).await;
        }
        Err("the agent's record never showed the task canceled".to_owned())
    }

    /// Runs one turn with no journal: every remote call unjournaled.
    pub async fn turn(
        &mut self,
        text: &str,
        message_id: &str,
        stop: &mut watch::Receiver<bool>,
        limit: Duration,
    ) -> TurnEnd {
        match self.follow(text, message_id, stop, limit).await {
            Followed::End(end) => end,
            Followed::StopAsked => TurnEnd::Stopped {
                observed: self.cancel_observed().await.is_ok(),
            },
            Followed::RequestAsked { permission, .. } => {
                let _ = self.cancel_observed().await;
                TurnEnd::Refused { permission }
            }
            Followed::TimedOut { limit_secs } => {
                let _ = self.cancel_observed().await;
                crate::opencode::driver::no_answer_within(limit_secs)
            }
            Followed::BudgetSpent { reason } => TurnEnd::Failed { detail: reason },
        }
    }
}

/// The turn's end a record shows, or `None` while the task works on.
fn ended(task: &Task) -> Option<Followed> {
    let message = task.status.message.as_ref();
    let words = message.map(|m| wire::text_of(&m.parts)).unwrap_or_default();
    let message_id = message
        .map(|m| m.message_id.clone())
        .filter(|id| wire::valid_id(id))
        .unwrap_or_else(|| task.id.clone());
    let end = match task.status.state {
        TaskState::Submitted | TaskState::Working => return None,
        TaskState::InputRequired => TurnEnd::Text {
            text: words,
            message_id,
            reported: Reported::Question,
        },
        TaskState::AuthRequired => {
            return Some(Followed::RequestAsked {
                permission: format!("authorization ({})", printable(&words, 200)),
                request_id: task.id.clone(),
                question: None,
            });
        }
        TaskState::Completed => TurnEnd::Text {
            text: words,
            message_id,
            // #198, completion evidence: what the record holds decides; an
            // answer without an output is not a result.
            reported: if task.artifacts.is_empty() {
                Reported::AnswerOnly
            } else {
                Reported::AnswerWithChanges
            },
        },
        TaskState::Canceled => TurnEnd::Failed {
            detail: "the agent cancelled the task itself".to_owned(),
        },
        TaskState::Failed | TaskState::Rejected => TurnEnd::Failed {
            detail: format!(
                "the agent's task ended {}: {}",
                task.status.state.raw(),
                printable(&words, 200)
            ),
        },
    };
    Some(Followed::End(end))
}

fn no_task() -> TurnEnd {
    TurnEnd::Failed {
        detail:
            "the agent answered with a plain message and no task, so there is nothing to follow"
                .to_owned(),
    }
}

/// A transport error leaves the call's effect unknown; any other refusal
/// is a known failure.
fn refused_or_uncertain(error: A2aError) -> TurnEnd {
    if error.ambiguous() {
        TurnEnd::Uncertain {
            detail: error.to_string(),
        }
    } else {
        TurnEnd::Failed {
            detail: error.to_string(),
        }
    }
}
