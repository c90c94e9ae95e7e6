//! Bot B's question or result published onto the card, journaled (#198):
//! the intent in the card's execution journal before the board move, the
//! card's status after. At start, a publication a crash cut is settled
//! against the board: a card that already moved records it (never moved
//! twice), one that did not is published now (never lost). Bot B's line
//! in the room was posted by its round before; it is not posted again.
//! A card whose input was edited since the request gets no publication.

use super::Seat;
use super::card::{Card, card_by_id};
use super::card_moves::{project_result, say_for_card};
use super::selected::input_edited;
use crate::rooms::Rounds;
use flybot_interop::envelope::EnvelopeKind;
use flybot_interop::projection::Observation;
use flybot_protocol::state::TaskStatus;
use flybot_protocol::task::WaitingFor;

fn status_of(rounds: &Rounds, card_id: &str) -> String {
    rounds
        .team()
        .read(|state| card_by_id(state, card_id))
        .map_or("deleted", |card| card.status.as_str())
        .to_owned()
}

/// Publishes Bot B's latest reply (`observation`, `text`) onto `card`,
/// journaled around the move.
pub(super) async fn publish(
    rounds: &Rounds,
    seat: &Seat,
    card: &Card,
    observation: &Observation,
    text: &str,
) {
    let (send, edited) = {
        let mut task = seat.task.lock().await;
        let edited = input_edited(rounds, &card.id, &seat.spec.test_command, &task);
        let send = match task.pending_publication() {
            Some(pending) => task.begin_publication(&pending.event_id),
            None => None,
        };
        (send, edited)
    };
    if edited {
        // #198: a reply answers the input it was asked on; the card was
        // edited since, so nothing is published onto it.
        if let Some(send) = send {
            let why = "the card's input was edited after the request was made";
            seat.task.lock().await.publication_not_made(send, why);
        }
        let line = format!(
            "The card \"{}\" was edited while OpenCode worked on it, so its reply is not published; cancel it and start a new card with the edited input.",
            card.title
        );
        say_for_card(rounds, seat, card, line);
        return;
    }
    project_result(rounds, seat, card, observation, text).await;
    if let Some(send) = send {
        let status = status_of(rounds, &card.id);
        seat.task.lock().await.finish_publication(send, &status);
    }
}

/// Settles, at start, a reply a crash left unpublished (#198, delivery and
/// crash): recorded when the card shows its move, published otherwise.
pub(super) async fn settle_publication(rounds: &Rounds, seat: &Seat, card_id: &str) {
    let Some(pending) = seat.task.lock().await.pending_publication() else {
        return;
    };
    let Some(card) = rounds.team().read(|state| card_by_id(state, card_id)) else {
        return;
    };
    let question = pending.kind == EnvelopeKind::Question;
    let moved = if question {
        card.status == TaskStatus::Blocked && card.waiting_for == Some(WaitingFor::Input)
    } else {
        matches!(card.status, TaskStatus::ResultReady | TaskStatus::Accepted)
    };
    if moved {
        // The move was made before the crash: recorded, never made twice.
        let status = card.status.as_str();
        let mut task = seat.task.lock().await;
        let send = pending
            .open_send
            .or_else(|| task.begin_publication(&pending.event_id));
        if let Some(send) = send {
            task.finish_publication(send, status);
        }
        return;
    }
    if let Some(send) = pending.open_send {
        seat.task
            .lock()
            .await
            .publication_not_made(send, "the card had not moved before the restart");
    }
    if card.status.is_terminal() {
        return;
    }
    let observation = if question {
        Observation::WaitingForInput {
            question_id: pending.event_id.clone(),
        }
    } else {
        Observation::ValidResult {
            summary: pending.text.clone(),
        }
    };
    publish(rounds, seat, &card, &observation, &pending.text).await;
}
