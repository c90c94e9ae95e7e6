//! Bot B in the pilot's room: the OpenCode participant behind the room's
//! one boundary. Its turns go through the task's execution journal to the
//! task's one dedicated OpenCode session (`JournaledTask`); every other
//! member's go to the agent runtime. What Bot B is sent is the text a live
//! seat sends (`selected::turn_text`, #198), never the round's. Each turn's
//! raw end and the observation it projects are kept for the pilot and its
//! report.

use crate::rooms::Rounds;
use crate::rooms::agent::AgentParticipant;
use crate::rooms::opencode::card::card_by_id;
use crate::rooms::opencode::outcome_of;
use crate::rooms::opencode::selected::turn_text;
use crate::rooms::participant::{MemberTurn, RoomParticipant, Snapshot, TurnFuture};
use flybot_core::sync::lock;
use flybot_interop::opencode::{JournaledTask, TurnEnd};
use flybot_interop::projection::Observation;
use std::sync::Mutex;
use std::time::Duration;
use tokio::sync::watch;

/// The room-turn limit for Bot B on the mock.
const TURN_LIMIT: Duration = Duration::from_secs(300);
/// The room-turn limit for Bot B on a real model (level 3): a small model
/// on a CPU may loop; the run must end within minutes.
const REAL_MODEL_TURN_LIMIT: Duration = Duration::from_secs(90);

/// Bot B's turn limit.
pub fn turn_limit(real_model: bool) -> Duration {
    if real_model {
        REAL_MODEL_TURN_LIMIT
    } else {
        TURN_LIMIT
    }
}

pub struct OpenCodeMember {
    pub agent: AgentParticipant,
    /// The host's rounds: the board, the room log and the team Bot B's
    /// selected text is read from.
    pub rounds: Rounds,
    /// The card Bot B works.
    pub task_id: String,
    /// The card's acceptance criterion: this command passes.
    pub test_command: Vec<String>,
    pub bot_id: String,
    /// Bot B's name: the origin its fenced lines carry.
    pub name: String,
    pub task: tokio::sync::Mutex<JournaledTask>,
    pub stop: watch::Sender<bool>,
    /// Each Bot B turn's raw end, in order.
    pub ends: Mutex<Vec<TurnEnd>>,
    /// Each Bot B turn's observation for the projection table, in order.
    pub observations: Mutex<Vec<Option<Observation>>>,
    pub running: Mutex<bool>,
    /// Every other member's (Bot A's) turn outcome, in order.
    pub other_turns: Mutex<Vec<crate::rooms::participant::TurnOutcome>>,
    /// How long one Bot B turn may take before it is aborted.
    pub turn_limit: Duration,
}

impl OpenCodeMember {
    /// Bot B's turn text, selected as a live seat selects it: the card's
    /// input and criteria, then the requester's answer from the room log,
    /// which resumes the card blocked on Bot B's question.
    async fn selected(&self, turn: &MemberTurn, task: &JournaledTask) -> Result<String, String> {
        let card = self
            .rounds
            .team()
            .read(|state| card_by_id(state, &self.task_id))
            .ok_or("My card was deleted; start another and ask me again.")?;
        turn_text(&self.rounds, turn, &card, &self.test_command, task).await
    }
}

impl RoomParticipant for OpenCodeMember {
    fn open(&self, room_id: &str, bot_id: &str, session_id: &str) -> Result<(), String> {
        if bot_id == self.bot_id {
            return Ok(());
        }
        self.agent.open(room_id, bot_id, session_id)
    }

    fn run_turn(&self, turn: MemberTurn) -> TurnFuture<'_> {
        Box::pin(async move {
            if turn.bot_id != self.bot_id {
                let outcome = self.agent.run_turn(turn).await;
                lock(&self.other_turns).push(outcome.clone());
                return outcome;
            }
            *lock(&self.running) = true;
            self.stop.send_replace(false);
            let mut stop = self.stop.subscribe();
            let (end, observation) = {
                let mut task = self.task.lock().await;
                match self.selected(&turn, &task).await {
                    Ok(text) => {
                        let end = task.turn(&text, &mut stop, self.turn_limit).await;
                        (end, task.last_observation().cloned())
                    }
                    Err(reason) => (TurnEnd::Blocked { reason }, None),
                }
            };
            lock(&self.observations).push(observation);
            *lock(&self.running) = false;
            let outcome = outcome_of(&self.name, &end);
            lock(&self.ends).push(end);
            outcome
        })
    }

    fn snapshot(&self, session_id: &str) -> Snapshot {
        self.agent.snapshot(session_id)
    }

    fn cancel(&self, session_id: &str) -> bool {
        if *lock(&self.running) {
            self.stop.send_replace(true);
            return true;
        }
        self.agent.cancel(session_id)
    }

    fn steer(&self, session_id: &str, text: &str) -> bool {
        self.agent.steer(session_id, text)
    }
}
