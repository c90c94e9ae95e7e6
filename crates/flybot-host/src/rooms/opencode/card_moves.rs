//! The board moves around an OpenCode turn (#198), each through the host
//! seam: an answer resumes a card blocked on the Bot's own question before
//! the turn; after it, a question blocks the card and a verified result
//! returns it, once the turn's line is in the room.

use super::Seat;
use super::card::{Card, answer_as_requester};
use super::execution::report;
use super::{name_of, observation_moves, verify};
use crate::events::HostEvent;
use crate::rooms::Rounds;
use crate::rooms::participant::MemberTurn;
use flybot_core::fences::readable_body;
use flybot_core::rooms::log::{AuthorKind, LineKind};
use flybot_core::tasks::execution_seam::ExecutionObservation;
use flybot_interop::projection::Observation;
use flybot_protocol::state::TaskStatus;
use flybot_protocol::task::WaitingFor;
use flybot_store::room_log::NewLine;
use std::time::Duration;
use tokio::sync::broadcast;

/// How long the projection waits for the turn's line to be posted.
const POSTED_WITHIN: Duration = Duration::from_secs(5);

/// Waits until the room holds a line by the seat's Bot after `before`
/// (the round posts the turn's line right after the turn returns): it
/// looks once, then again at each `room.line` of the room, never polling.
pub(super) async fn posted_after(rounds: &Rounds, seat: &Seat, before: u64) {
    let mut lines = rounds.logs().bus.subscribe_all();
    let posted = || {
        rounds
            .logs()
            .find_back(&seat.room_id, before, |l| l.author_id == seat.bot_id)
            .is_some()
    };
    let wait = async {
        while !posted() {
            loop {
                match lines.recv().await {
                    Ok(HostEvent::RoomLine { room_id, .. }) if room_id == seat.room_id => break,
                    Ok(_) => continue,
                    Err(broadcast::error::RecvError::Lagged(_)) => break,
                    Err(broadcast::error::RecvError::Closed) => return,
                }
            }
        }
    };
    if tokio::time::timeout(POSTED_WITHIN, wait).await.is_err() {
        tracing::debug!(
            "no line of {} came in {}: the card moves without it",
            seat.bot_id,
            seat.room_id
        );
    }
}

/// The requester Bot's own line since the worker's last line: the only
/// room line that answers the worker's question (issue 18: never whatever
/// line came last, a third member's or a person's, on the requester's
/// behalf; a person answers with `task-answer-input`).
pub(super) fn requester_answer(
    lines: &[flybot_core::rooms::log::RoomLine],
    requester_bot: &str,
    worker_bot: &str,
) -> Option<String> {
    lines
        .iter()
        .rev()
        .filter(|l| l.kind == LineKind::Chat)
        .take_while(|l| l.author_id != worker_bot)
        .find(|l| l.author_id == requester_bot)
        .map(|l| readable_body(&l.text))
}

/// A blocked card before the turn: its own open question is answered by
/// the requester Bot's line since the question (the table's
/// `input-answered`, blocked → working); any other wait, or no such line,
/// keeps the Bot out.
pub(super) async fn resume(rounds: &Rounds, turn: &MemberTurn, card: &Card) -> Result<(), String> {
    let (Some(WaitingFor::Input), Some(question_id)) = (card.waiting_for, &card.question_id) else {
        return Err(format!(
            "The card \"{}\" waits for an approval; I go on once it is working again.",
            card.title
        ));
    };
    // The projection table draws the edge (blocked → working) first.
    observation_moves::move_for(TaskStatus::Blocked, &Observation::InputAnswered)?;
    let lines = rounds.logs().lines(&turn.room_id).unwrap_or_default();
    let Some(answer) = requester_answer(&lines, &card.bot_id, &turn.bot_id) else {
        let requester = rounds.team().read(|state| name_of(state, &card.bot_id));
        return Err(format!(
            "The card \"{}\" waits for {requester}'s answer to my question: {requester} answers in this room, or a person answers with task-answer-input.",
            card.title
        ));
    };
    answer_as_requester(rounds.board(), &card.bot_id, &card.id, question_id, &answer)
        .await
        .map(|_| ())
}

/// The board move a finished turn's observation asks for: a question
/// blocks the card for input; a result is verified first and returns the
/// card only when the check passes. Each step is said in the room.
pub(super) async fn project_result(
    rounds: &Rounds,
    seat: &Seat,
    card: &Card,
    observation: &Observation,
    text: &str,
) {
    let verifier = rounds.team().read(|state| name_of(state, &card.bot_id));
    // The host's binding for this card, revalidated by the seam on the move.
    let Some(binding) = rounds.externals().opencode().binding(&card.id) else {
        return;
    };
    let said = match observation {
        Observation::WaitingForInput { .. } => {
            let question = text.lines().next().unwrap_or_default();
            let question_id = crate::ids::new_id("question");
            match observation_moves::move_for(TaskStatus::Working, observation) {
                Ok(_) => report(
                    rounds.board(),
                    &binding,
                    &seat.credential,
                    ExecutionObservation::Question {
                        question,
                        question_id: &question_id,
                    },
                )
                .await
                .err(),
                Err(why) => Some(why),
            }
        }
        Observation::ValidResult { .. } => {
            match verify::verify(
                &seat.root,
                &seat.workspace,
                &seat.baseline,
                &seat.spec.test_command,
                &verifier,
            )
            .await
            {
                Ok(None) => None,
                Ok(Some(check)) if check.verified => {
                    let moved = match observation_moves::move_for(TaskStatus::Working, observation)
                    {
                        Ok(_) => report(
                            rounds.board(),
                            &binding,
                            &seat.credential,
                            ExecutionObservation::Result {
                                summary: &check.sentence,
                                evidence_level: seat.evidence_level,
                            },
                        )
                        .await
                        .err(),
                        Err(why) => Some(why),
                    };
                    Some(moved.unwrap_or_else(|| {
                        format!(
                            "{} The card \"{}\" is result-ready: a person accepts it (task-accept-result) or sends it back.",
                            check.sentence, card.title
                        )
                    }))
                }
                Ok(Some(check)) => Some(check.sentence),
                Err(why) => Some(format!("The result could not be verified: {why}.")),
            }
        }
        _ => None,
    };
    if let Some(text) = said {
        say_for_card(rounds, seat, card, text);
    }
}

/// A step of the card's publication, said in the seat's room as an event
/// line of the card's own Bot.
pub(super) fn say_for_card(rounds: &Rounds, seat: &Seat, card: &Card, text: String) {
    let _ = rounds.logs().append(
        &seat.room_id,
        NewLine {
            author_id: card.bot_id.clone(),
            author_kind: AuthorKind::LocalBot,
            kind: LineKind::Event,
            text,
            at: flybot_store::system_now_ms(),
            hop: 0,
        },
    );
}
