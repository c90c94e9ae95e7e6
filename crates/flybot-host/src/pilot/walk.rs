//! The pilot's rounds: the person's line opens the collaboration, and each
//! round's lines move the card through the host seam (#198): Bot B's
//! question blocks it for input; Bot B's next turn resumes it with Bot A's
//! answer from the room log. The walk ends when Bot B says it is done, or
//! after `MAX_ROUNDS`.

use super::cast::Cast;
use super::member::OpenCodeMember;
use super::run::observation_at;
use crate::rooms::opencode::execution::report;
use crate::rooms::opencode::observation_moves::move_for;
use crate::rooms::runner::run_round;
use flybot_core::access::Actor;
use flybot_core::fences::readable_body;
use flybot_core::rooms::log::{AuthorKind, LineKind, RoomLine};
use flybot_core::tasks::execution_seam::ExecutionObservation;
use flybot_interop::projection::Observation;
use flybot_protocol::state::TaskStatus;
use flybot_protocol::task::TaskFields;
use flybot_store::room_log::NewLine;
use serde_json::{Value, json};

/// Rounds the pilot runs at most on the mock.
const MAX_ROUNDS: usize = 10;
/// Rounds on a real model (level 3): enough for the delegation, one
/// question and its answer, and a result, and no more, so a run that goes
/// nowhere ends within minutes.
const REAL_MODEL_ROUNDS: usize = 3;

/// What the walk saw: the card's statuses, its question, whether it was
/// answered, the opening line and the room's lines at the end.
pub struct Walk {
    pub statuses: Vec<Value>,
    pub question_id: Option<String>,
    pub answered: bool,
    pub opener: RoomLine,
    pub lines: Vec<RoomLine>,
}

fn room_log(e: std::io::Error) -> String {
    format!("the room log: {e}")
}

/// Runs the rounds until Bot B is done.
pub async fn walk(
    cast: &Cast,
    member: &OpenCodeMember,
    statuses: Vec<Value>,
    real_model: bool,
) -> Result<Walk, String> {
    let host = &cast.host;
    let owner = host
        .store()
        .read(|s| Actor::SingleOwner.member_id(s))
        .unwrap_or_default();
    let opener = host
        .rooms()
        .append(
            &cast.room_id,
            NewLine {
                author_id: owner,
                author_kind: AuthorKind::Human,
                kind: LineKind::Chat,
                text: format!(
                    "@Ada please delegate the fixture task {} to @Coder and verify the result.",
                    cast.task_id
                ),
                at: flybot_store::system_now_ms(),
                hop: 0,
            },
        )
        .map_err(room_log)?;
    let mut walk = Walk {
        statuses,
        question_id: None,
        answered: false,
        lines: Vec::new(),
        opener,
    };
    let store = host.store().clone();
    let read = move || store.read(|s| s.clone());
    let now = flybot_store::system_now_ms;
    let mut next = walk.opener.seq;
    let rounds = if real_model {
        REAL_MODEL_ROUNDS
    } else {
        MAX_ROUNDS
    };
    for _ in 0..rounds {
        run_round(host.rooms(), member, &read, &now, &cast.room_id, next).await;
        let lines = host.rooms().lines(&cast.room_id).map_err(room_log)?;
        for line in lines
            .iter()
            .filter(|l| l.seq > next && l.kind == LineKind::Chat)
        {
            walk.project(cast, member, &lines, line).await?;
        }
        walk.observe_answer(cast)?;
        match lines
            .iter()
            .rfind(|l| l.seq > next && l.kind == LineKind::Chat)
        {
            Some(line) if !says_done(line, &cast.coder) => next = line.seq,
            _ => break,
        }
    }
    walk.lines = host.rooms().lines(&cast.room_id).map_err(room_log)?;
    Ok(walk)
}

/// Whether `line` is Bot B's own "DONE".
pub fn says_done(line: &RoomLine, coder: &str) -> bool {
    line.author_id == coder && readable_body(&line.text).starts_with("DONE")
}

impl Walk {
    /// The card move one round line asks for: Bot B's line whose turn
    /// ended on a question blocks the card; Bot A's next line answers it.
    async fn project(
        &mut self,
        cast: &Cast,
        member: &OpenCodeMember,
        lines: &[RoomLine],
        line: &RoomLine,
    ) -> Result<(), String> {
        // Bot B's n-th line is its n-th turn's end.
        let nth = lines
            .iter()
            .filter(|l| l.seq <= line.seq && l.author_id == cast.coder && l.kind == LineKind::Chat)
            .count();
        let asked = observation_at(member, nth.wrapping_sub(1))
            .filter(|o| matches!(o, Observation::WaitingForInput { .. }));
        match asked {
            Some(observation) if line.author_id == cast.coder && self.question_id.is_none() => {
                let endpoint = move_for(TaskStatus::Working, &observation)?.endpoint();
                // The execution service reports the question (#198).
                let question_id = crate::ids::new_id("question");
                let question = readable_body(&line.text);
                let asked = ExecutionObservation::Question {
                    question: &question,
                    question_id: &question_id,
                };
                let waiting = report(cast.host.board(), &cast.binding, &cast.credential, asked)
                    .await?
                    .ok_or("the card is gone")?;
                self.statuses
                    .push(json!({endpoint: waiting.status.as_str()}));
                self.question_id = Some(question_id);
            }
            _ => {}
        }
        Ok(())
    }

    /// Records the answer move Bot B's turn made: the turn resumed the
    /// card with Bot A's answer from the room log (as a live seat does,
    /// #198), as the requester, never the owner.
    fn observe_answer(&mut self, cast: &Cast) -> Result<(), String> {
        let Some(qid) = self.question_id.as_deref().filter(|_| !self.answered) else {
            return Ok(());
        };
        let resumed = cast.host.team().read(|state| {
            let task = state.tasks.get(&cast.task_id)?;
            let answer = TaskFields::read(task).input_answer?;
            (answer.question_id == qid).then_some(task.status)
        });
        if let Some(status) = resumed {
            let endpoint = move_for(TaskStatus::Blocked, &Observation::InputAnswered)?.endpoint();
            self.statuses.push(json!({endpoint: status.as_str()}));
            self.answered = true;
        }
        Ok(())
    }
}
