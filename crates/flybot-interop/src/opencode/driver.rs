//! One OpenCode turn under the contract: `prompt_async`, then the `/event`
//! stream as a notification source and polling of status and history as the
//! record. Idle alone is not completion evidence: a turn ends with a text
//! only when the history holds a new completed assistant message. A
//! question the runtime asks (its question request) suspends the turn: it
//! is rejected there and the session stopped, and the turn ends with the
//! question's words for the room to answer in the next turn. An
//! unexpected permission, a question, a stop and a time limit are reported
//! by `follow` before any remote call, so a journaling caller can persist
//! the deny and the abort around them; `await_end` makes those calls
//! unjournaled. `observed` is set only once the runtime shows the session
//! stopped.

use super::client::{OpenCodeClient, SessionStatus};
use super::pin::{Capability, DocCheck};
use super::reported::{Reported, question_in, question_text, reported_in};
use serde_json::Value;
use std::collections::BTreeSet;
use std::time::Duration;
use tokio::sync::watch;

/// How often status and history are polled.
const POLL: Duration = Duration::from_millis(200);
/// Polls of "idle with no new answer" before the turn is a failure.
const IDLE_POLLS: u32 = 10;

/// How a turn ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TurnEnd {
    /// Words the runtime ended the turn with: a new completed assistant
    /// message (its text and id), or its question request (the question's
    /// text and the request's id); `reported` says which, and whether the
    /// turn changed a file.
    Text {
        text: String,
        message_id: String,
        reported: Reported,
    },
    /// A permission the policy does not allow: denied, the turn stopped.
    Refused { permission: String },
    /// The person stopped it; `observed` once the runtime showed the stop.
    Stopped { observed: bool },
    /// A known failure (an assistant error, idle with no answer, a limit).
    Failed { detail: String },
    /// The operation is blocked (pin mismatch, missing capability).
    Blocked { reason: String },
    /// The connection was lost or a write was ambiguous: not retried.
    Uncertain { detail: String },
}

/// How following a turn ended. Every remote call a variant asks for is
/// left to the caller: the contract (#198, execution journal) wants each
/// one's intent persisted before it and its outcome after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Followed {
    End(TurnEnd),
    /// The person asked to stop; nothing was aborted yet.
    StopAsked,
    /// OpenCode asked a permission (or, when `question`, asked a question)
    /// the policy does not allow. #198's capability failure row: it is
    /// denied, the turn stops and ends `Refused { permission }`. Nothing was
    /// denied or aborted yet.
    RequestAsked {
        /// The permission's name, or `question`.
        permission: String,
        /// The id the deny reply names.
        request_id: String,
        /// `Some` with the question's text when the runtime asked one.
        question: Option<String>,
    },
    /// The turn passed its time limit; nothing was aborted yet. The turn
    /// ends `no_answer_within(limit_secs)` once it is.
    TimedOut {
        limit_secs: u64,
    },
    /// A reported step (a finished tool call) was refused by the budget;
    /// nothing was aborted yet.
    BudgetSpent {
        reason: String,
    },
}

/// Where a followed turn asks its budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BudgetPoint {
    /// A step of the runtime finished (a tool call): it is charged.
    StepDone,
    /// A poll of the runtime's status: the budget is read, nothing charged.
    Poll,
}

/// What a point of the turn costs: `Err` with the refusal's sentence once
/// the budget has none left (the turn in flight is then aborted).
pub type ProgressCharge<'a> = &'a mut (dyn FnMut(BudgetPoint) -> Result<(), String> + Send);

/// The end of a turn that passed its time limit.
pub fn no_answer_within(limit_secs: u64) -> TurnEnd {
    TurnEnd::Failed {
        detail: format!("no answer within {limit_secs} s"),
    }
}

/// The end of a turn in which the runtime asked `question` (its question
/// request: the turn is suspended, the question the room's to answer) or a
/// permission the policy refused.
pub fn asked_or_refused(
    permission: String,
    request_id: String,
    question: Option<String>,
) -> TurnEnd {
    match question {
        Some(text) => TurnEnd::Text {
            text,
            message_id: request_id,
            reported: Reported::Question,
        },
        None => TurnEnd::Refused { permission },
    }
}

/// A turn whose prompt the runtime took: the assistant messages before it
/// and the event stream opened before the prompt.
pub struct Submitted {
    before: BTreeSet<String>,
    /// The user messages the history held before the prompt.
    before_users: BTreeSet<String>,
    events: Option<tokio::sync::mpsc::Receiver<Value>>,
}

/// A session the driver drives.
pub struct DriverSession {
    pub client: OpenCodeClient,
    pub check: DocCheck,
    pub session_id: String,
}

pub(crate) fn assistant_ids(history: &[Value]) -> BTreeSet<String> {
    history
        .iter()
        .filter(|m| m["info"]["role"] == "assistant")
        .filter_map(|m| m["info"]["id"].as_str().map(str::to_owned))
        .collect()
}

fn ids_of_role(history: &[Value], role: &str) -> BTreeSet<String> {
    history
        .iter()
        .filter(|m| m["info"]["role"] == role)
        .filter_map(|m| m["info"]["id"].as_str().map(str::to_owned))
        .collect()
}

pub(crate) fn text_of(message: &Value) -> String {
    message["parts"]
        .as_array()
        .map(|parts| {
            parts
                .iter()
                .filter(|p| p["type"] == "text")
                .filter_map(|p| p["text"].as_str())
                .collect::<Vec<_>>()
                .join("\n")
        })
        .unwrap_or_default()
}

/// What the history shows of the turn: a new assistant message that has
/// completed (its text or its error).
pub(crate) fn answer_in(history: &[Value], before: &BTreeSet<String>) -> Option<TurnEnd> {
    let message = history.iter().rev().find(|m| {
        m["info"]["role"] == "assistant"
            && m["info"]["id"]
                .as_str()
                .is_some_and(|id| !before.contains(id))
    })?;
    let id = message["info"]["id"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    // The runtime's question request, recorded in the history: the turn
    // asked, whatever became of the call after.
    if let Some(text) = question_in(history, before) {
        return Some(TurnEnd::Text {
            text,
            message_id: id,
            reported: Reported::Question,
        });
    }
    if let Some(error) = message["info"].get("error").filter(|e| !e.is_null()) {
        let name = error["name"].as_str().unwrap_or("error");
        return Some(TurnEnd::Failed {
            detail: format!("OpenCode's answer ended with {name}"),
        });
    }
    message["info"]["time"]["completed"].as_u64()?;
    Some(TurnEnd::Text {
        text: text_of(message),
        message_id: id,
        reported: reported_in(history, before),
    })
}

impl DriverSession {
    /// Creates the task's one dedicated session.
    pub async fn open(
        client: OpenCodeClient,
        check: DocCheck,
        title: &str,
    ) -> Result<Self, TurnEnd> {
        if let Some(reason) = check.blocked(Capability::Session) {
            return Err(TurnEnd::Blocked { reason });
        }
        let session_id = client
            .create_session(title)
            .await
            .map_err(|e| TurnEnd::Uncertain {
                detail: e.to_string(),
            })?;
        Ok(DriverSession {
            client,
            check,
            session_id,
        })
    }

    /// Attaches to a session created (and journaled) by the caller.
    pub fn attach(client: OpenCodeClient, check: DocCheck, session_id: String) -> Self {
        DriverSession {
            client,
            check,
            session_id,
        }
    }

    /// Runs one turn with `text`.
    pub async fn turn(
        &self,
        text: &str,
        stop: &mut watch::Receiver<bool>,
        limit: Duration,
    ) -> TurnEnd {
        match self.submit(text).await {
            Ok(submitted) => {
                self.await_end(submitted, stop, limit, &mut |_| Ok(()))
                    .await
            }
            Err(end) => end,
        }
    }

    /// Checks the capabilities, reads the history, opens the event stream
    /// and sends `prompt_async`. `Err` is the turn's end (blocked, or an
    /// ambiguous submission that is never sent again).
    pub async fn submit(&self, text: &str) -> Result<Submitted, TurnEnd> {
        for capability in [Capability::Prompt, Capability::History, Capability::Status] {
            if let Some(reason) = self.check.blocked(capability) {
                return Err(TurnEnd::Blocked { reason });
            }
        }
        let (before, before_users) = match self.client.messages(&self.session_id).await {
            Ok(history) => (assistant_ids(&history), ids_of_role(&history, "user")),
            Err(e) => {
                return Err(TurnEnd::Uncertain {
                    detail: e.to_string(),
                });
            }
        };
        // Events are optional: without them the poll alone reconciles.
        let events = match self.check.allows(Capability::Events) {
            true => self.client.events().await.ok(),
            false => None,
        };
        match self.client.prompt_async(&self.session_id, text).await {
            Ok(()) => {}
            // The server answered and refused it: it did not happen, and
            // the reservation stays for a retransmission. A 404 is a
            // session the runtime lost, which a person looks at instead.
            Err(
                e @ super::client::ClientError::Status {
                    status: 400..=403 | 405..=499,
                    ..
                },
            ) => {
                return Err(TurnEnd::Blocked {
                    reason: format!(
                        "{e}: the prompt was refused and not taken; the next line sends it again under the same reservation"
                    ),
                });
            }
            // Accepted or not is unknown: never submitted again blindly.
            Err(e) => {
                return Err(TurnEnd::Uncertain {
                    detail: e.to_string(),
                });
            }
        }
        Ok(Submitted {
            before,
            before_users,
            events,
        })
    }

    /// OpenCode's `messageID` of the prompt just submitted: the user
    /// message the history shows that it did not before (a candidate
    /// correlation for reconciliation, not an idempotency key); `None` when
    /// the history does not show it within a few polls.
    pub async fn submitted_message(&self, submitted: &Submitted) -> Option<String> {
        for _ in 0..5 {
            if let Ok(history) = self.client.messages(&self.session_id).await {
                let new = history.iter().rev().find(|m| {
                    m["info"]["role"] == "user"
                        && m["info"]["id"]
                            .as_str()
                            .is_some_and(|id| !submitted.before_users.contains(id))
                });
                if let Some(id) = new.and_then(|m| m["info"]["id"].as_str()) {
                    return Some(id.to_owned());
                }
            }
            tokio::time::sleep(POLL).await;
        }
        None
    }

    /// Follows a submitted turn to its end; a stop, an unexpected request
    /// and the time limit are denied and aborted here, unjournaled.
    pub async fn await_end(
        &self,
        submitted: Submitted,
        stop: &mut watch::Receiver<bool>,
        limit: Duration,
        progress: ProgressCharge<'_>,
    ) -> TurnEnd {
        match self.follow(submitted, stop, limit, progress).await {
            Followed::End(end) => end,
            Followed::StopAsked => self.stop_observed().await,
            Followed::RequestAsked {
                permission,
                request_id,
                question,
            } => {
                let _ = self.deny(&request_id, question.is_some()).await;
                let _ = self.stop_observed().await;
                asked_or_refused(permission, request_id, question)
            }
            Followed::TimedOut { limit_secs } => {
                let _ = self.client.abort(&self.session_id).await;
                no_answer_within(limit_secs)
            }
            Followed::BudgetSpent { reason } => {
                let _ = self.stop_observed().await;
                TurnEnd::Blocked { reason }
            }
        }
    }

    /// Follows a submitted turn until it ends, a stop is asked, OpenCode
    /// asks a request or the limit passes. It makes no remote call but
    /// status and history reads: the caller denies and aborts (and
    /// journals both) on the variants that ask for it.
    pub async fn follow(
        &self,
        submitted: Submitted,
        stop: &mut watch::Receiver<bool>,
        limit: Duration,
        progress: ProgressCharge<'_>,
    ) -> Followed {
        let Submitted {
            before, mut events, ..
        } = submitted;
        let deadline = tokio::time::Instant::now() + limit;
        let mut idle_polls = 0;
        // A stop sender that is gone can never stop this turn.
        let mut stop_open = true;
        loop {
            if *stop.borrow() {
                return Followed::StopAsked;
            }
            let event = async {
                match events.as_mut() {
                    Some(events) => events.recv().await,
                    None => std::future::pending().await,
                }
            };
            tokio::select! {
                event = event => match event {
                    Some(event) => {
                        if let Some(asked) = self.asked_request(&event) {
                            return asked;
                        }
                        if self.is_step_done(&event)
                            && let Err(reason) = progress(BudgetPoint::StepDone)
                        {
                            return Followed::BudgetSpent { reason };
                        }
                        continue;
                    }
                    // The stream ended: polling goes on.
                    None => events = None,
                },
                changed = stop.changed(), if stop_open => {
                    stop_open = changed.is_ok();
                    continue;
                }
                () = tokio::time::sleep(POLL) => {}
                () = tokio::time::sleep_until(deadline) => {
                    return Followed::TimedOut { limit_secs: limit.as_secs() };
                }
            }
            // A limit spent while the turn runs (#198) aborts it.
            if let Err(reason) = progress(BudgetPoint::Poll) {
                return Followed::BudgetSpent { reason };
            }
            let status = match self.client.status(&self.session_id).await {
                Ok(status) => status,
                Err(e) => {
                    return Followed::End(TurnEnd::Uncertain {
                        detail: e.to_string(),
                    });
                }
            };
            if !status.is_idle() {
                idle_polls = 0;
                continue;
            }
            let history = match self.client.messages(&self.session_id).await {
                Ok(history) => history,
                Err(e) => {
                    return Followed::End(TurnEnd::Uncertain {
                        detail: e.to_string(),
                    });
                }
            };
            if let Some(end) = answer_in(&history, &before) {
                // Steps already reported but not yet read are charged too:
                // the poll can see the answer before the stream is read.
                while let Some(event) = events.as_mut().and_then(|e| e.try_recv().ok()) {
                    if self.is_step_done(&event) {
                        let _ = progress(BudgetPoint::StepDone);
                    }
                }
                return Followed::End(end);
            }
            idle_polls += 1;
            if idle_polls >= IDLE_POLLS {
                return Followed::End(TurnEnd::Failed {
                    detail: "OpenCode went idle without an answer".to_owned(),
                });
            }
        }
    }

    /// Whether `event` reports a finished step of this session's turn (a
    /// tool call completed or failed): the progress a budget charges.
    fn is_step_done(&self, event: &Value) -> bool {
        let part = &event["properties"]["part"];
        event["type"] == "message.part.updated"
            && part["sessionID"].as_str() == Some(self.session_id.as_str())
            && part["type"] == "tool"
            && matches!(
                part["state"]["status"].as_str(),
                Some("completed" | "error")
            )
    }

    /// A permission or question for this session, which the policy never
    /// allows: the caller denies it and stops the turn.
    fn asked_request(&self, event: &Value) -> Option<Followed> {
        let kind = event["type"].as_str().unwrap_or_default();
        let properties = &event["properties"];
        if properties["sessionID"].as_str() != Some(self.session_id.as_str()) {
            return None;
        }
        let (permission, question) = match kind {
            "permission.asked" => (properties["permission"].as_str().unwrap_or("unknown"), None),
            "question.asked" => ("question", Some(question_text(properties))),
            _ => return None,
        };
        Some(Followed::RequestAsked {
            permission: permission.to_owned(),
            request_id: properties["id"].as_str().unwrap_or_default().to_owned(),
            question,
        })
    }

    /// Rejects the permission or question `request_id` (a
    /// `Followed::RequestAsked`).
    pub async fn deny(&self, request_id: &str, question: bool) -> super::client::Result<()> {
        match question {
            true => self.client.reject_question(request_id).await,
            false => {
                self.client
                    .reject_permission(request_id, "Not allowed in this room's pilot policy.")
                    .await
            }
        }
    }

    /// Aborts and waits for the runtime to show the session stopped: idle
    /// in its status. An HTTP success alone is not the observation.
    pub async fn stop_observed(&self) -> TurnEnd {
        if let Some(_reason) = self.check.blocked(Capability::Abort) {
            return TurnEnd::Stopped { observed: false };
        }
        if self.client.abort(&self.session_id).await.is_err() {
            return TurnEnd::Stopped { observed: false };
        }
        TurnEnd::Stopped {
            observed: self.wait_stopped().await.is_some(),
        }
    }

    /// Polls the runtime's status until it reports the session idle after
    /// an abort (the version-specific stop observation); answers the raw
    /// status it reported. A session the runtime does not know, or a status
    /// of a shape it does not document, is never taken for idle.
    pub async fn wait_stopped(&self) -> Option<String> {
        for _ in 0..25 {
            if let Ok(SessionStatus::Idle { raw }) = self.client.status(&self.session_id).await {
                return Some(raw);
            }
            tokio::time::sleep(POLL).await;
        }
        None
    }
}
