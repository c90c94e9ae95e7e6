//! Recovery a person can act on (#198, delivery and crash), for the cards
//! OpenCode Bots work: at start, each open card whose execution journal
//! holds an effect with no known outcome is reconciled against its
//! runtime (its seat is opened for that); a matched turn's end is
//! projected onto the card as a turn's end would be, and what cannot be
//! matched is written on the card as `recovery: uncertain` with the raw
//! status, through the board's one write path. `decide` applies a
//! person's decision (`task-recovery-decide`) to the card's journal.

use super::card::{Card, card_by_id, card_is_open};
use super::{OpenCodeSeats, Seat, SeatPlace, name_of, outcome_of};
use crate::rooms::external::external_of;
use crate::rooms::{Rounds, TurnOutcome};
use flybot_core::rooms::log::{AuthorKind, LineKind};
use flybot_interop::external::ExternalSpec;
use flybot_interop::journal::Journal;
use flybot_interop::opencode::spec::OpenCodeSpec;
use flybot_interop::opencode::{Reconciled, RecoveryChoice, RecoveryDone, TurnEnd};
use flybot_protocol::state::TeamState;
use flybot_store::room_log::NewLine;
use std::path::Path;
use std::sync::Arc;
use tokio::sync::watch;

/// Whether the start's recovery is still settling the journals a crash
/// left. A card's journal has one writer (its lock file): a seat opened
/// meanwhile for a turn of a round the start resumed took that lock from
/// the recovery, which then read the card as settled or failed to open its
/// seat ("another process writes the interop journal"), or the other way
/// round. So a turn's seat, and a person's decision, wait for it.
#[derive(Debug, Clone)]
pub(crate) struct RecoveryGate(Arc<watch::Sender<bool>>);

impl Default for RecoveryGate {
    /// Open: no recovery runs.
    fn default() -> Self {
        RecoveryGate(Arc::new(watch::Sender::new(true)))
    }
}

impl RecoveryGate {
    /// Closes the gate until the answer is dropped (the recovery ended,
    /// also by a panic).
    pub(crate) fn close(&self) -> Recovering {
        self.0.send_replace(false);
        Recovering(self.clone())
    }

    /// Resolves once no recovery runs.
    pub(crate) async fn passed(&self) {
        let mut settled = self.0.subscribe();
        // The sender lives in `self`, so the wait cannot end for want of it.
        let _ = settled.wait_for(|open| *open).await;
    }
}

/// A recovery running: the gate opens when it is dropped.
pub(crate) struct Recovering(RecoveryGate);

impl Drop for Recovering {
    fn drop(&mut self) {
        self.0.0.send_replace(true);
    }
}

/// A card an OpenCode Bot works, with where its seat sits.
struct Placed {
    place: SeatPlace,
    card: Card,
    spec: OpenCodeSpec,
}

/// Where the card `card_id`'s seat sits: the OpenCode member of the
/// card's room that holds the card's journal.
fn placed(state: &TeamState, home: &Path, card_id: &str) -> Option<Placed> {
    let task = state.tasks.get(card_id)?;
    let room_id = task.room_id.clone()?;
    let room = state.rooms.get(&room_id)?;
    room.members.iter().find_map(|bot_id| {
        let Some(Ok(ExternalSpec::OpenCode(spec))) = state.bots.get(bot_id).and_then(external_of)
        else {
            return None;
        };
        let journal = home
            .join("interop")
            .join(bot_id)
            .join(card_id)
            .join("journal");
        if !journal.is_dir() {
            return None;
        }
        Some(Placed {
            place: SeatPlace {
                room_id: room_id.clone(),
                bot_id: bot_id.clone(),
            },
            card: card_by_id(state, card_id)?,
            spec,
        })
    })
}

/// The open cards with an execution journal on disk.
fn journaled_cards(state: &TeamState, home: &Path) -> Vec<String> {
    let Ok(bots) = std::fs::read_dir(home.join("interop")) else {
        return Vec::new();
    };
    let mut cards: Vec<String> = bots
        .filter_map(Result::ok)
        .filter_map(|bot| std::fs::read_dir(bot.path()).ok())
        .flat_map(|folders| folders.filter_map(Result::ok))
        .filter(|folder| folder.path().join("journal").is_dir())
        .filter_map(|folder| folder.file_name().into_string().ok())
        .filter(|id| card_is_open(state, id))
        .collect();
    cards.sort();
    cards.dedup();
    cards
}

/// Whether the card's journal waits for a person or holds a reply not
/// yet published onto the card, read without a runtime.
fn journal_unsettled(rounds: &Rounds, placed: &Placed) -> bool {
    let folder = rounds
        .config()
        .home
        .join("interop")
        .join(&placed.place.bot_id)
        .join(&placed.card.id)
        .join("journal");
    Journal::open_dir(
        &folder,
        rounds.config().opencode_budget,
        flybot_store::system_now_ms(),
    )
    .is_ok_and(|journal| {
        journal.uncertainty(&placed.card.id).is_some()
            || journal.pending_publication(&placed.card.id).is_some()
    })
}

/// Writes `recovery: uncertain` with `raw_status` on the card.
async fn mark_uncertain(rounds: &Rounds, card_id: &str, raw_status: &str) {
    let written = rounds
        .board()
        .write("host", |s, now| {
            flybot_core::tasks::recovery::mark_uncertain(s, card_id, raw_status, now)
        })
        .await;
    if let Err(e) = written {
        tracing::warn!(task = %card_id, "recovery: uncertain could not be shown: {}", e.message);
    }
}

/// Says a recovered turn's end in the room in the Bot's voice, then makes
/// the board move its observation asks for, as a turn's end would.
pub(crate) async fn project_end(rounds: &Rounds, seat: &Seat, card: &Card, end: &TurnEnd) {
    let observation = seat.task.lock().await.last_observation().cloned();
    let name = rounds.team().read(|state| name_of(state, &seat.bot_id));
    let (kind, text) = match outcome_of(&name, end) {
        TurnOutcome::Text(text) => (LineKind::Chat, text),
        TurnOutcome::FailedWithLine { line, .. } => (LineKind::Event, line),
        _ => return,
    };
    let _ = rounds.logs().append(
        &seat.room_id,
        NewLine {
            author_id: seat.bot_id.clone(),
            author_kind: AuthorKind::LocalBot,
            kind,
            text,
            at: flybot_store::system_now_ms(),
            hop: 0,
        },
    );
    if let (TurnEnd::Text { text, .. }, Some(observation)) = (end, observation) {
        super::publication::publish(rounds, seat, card, &observation, text).await;
    }
}

impl OpenCodeSeats {
    /// Closes the seats' gate for the start's recovery, which `recover`
    /// takes: turns and decisions wait until it ends.
    pub(crate) fn recovering(&self) -> Recovering {
        self.recovery.close()
    }

    /// Settles, once at start, every open card whose journal a crash left
    /// unsettled: a reply not yet published onto the card is published
    /// once; an uncertain turn is reconciled, a matched end projected and
    /// the rest shown uncertain.
    pub(crate) async fn recover(&self, rounds: &Rounds, _recovering: Recovering) {
        let home = rounds.config().home.clone();
        let cards = rounds.team().read(|state| journaled_cards(state, &home));
        for card_id in cards {
            let Some(placed) = rounds.team().read(|state| placed(state, &home, &card_id)) else {
                continue;
            };
            if !journal_unsettled(rounds, &placed) {
                continue;
            }
            let seat = match self
                .open_seat_now(rounds, &placed.place, &placed.card, &placed.spec)
                .await
            {
                Ok(seat) => seat,
                Err(outcome) => {
                    let why = match outcome {
                        TurnOutcome::FailedWithLine { line, .. } => line,
                        _ => "its runtime could not be started".to_owned(),
                    };
                    mark_uncertain(rounds, &card_id, &why).await;
                    continue;
                }
            };
            super::publication::settle_publication(rounds, &seat, &card_id).await;
            let found = seat.task.lock().await.reconcile().await;
            match found {
                Reconciled::Clear => {}
                Reconciled::Uncertain { raw_status } => {
                    mark_uncertain(rounds, &card_id, &raw_status).await;
                }
                Reconciled::Answered(end) => project_end(rounds, &seat, &placed.card, &end).await,
            }
        }
    }

    /// Applies a person's decision to the card's journal, its seat opened
    /// if it is not; `Err` is the refusal's sentence, with nothing written.
    pub async fn decide(
        &self,
        rounds: &Rounds,
        card_id: &str,
        choice: RecoveryChoice,
        by: &str,
    ) -> Result<(Arc<Seat>, Card, RecoveryDone), String> {
        let home = rounds.config().home.clone();
        let placed = rounds
            .team()
            .read(|state| placed(state, &home, card_id))
            .ok_or("no OpenCode Bot of its room holds its execution journal")?;
        let seat = self
            .open_seat(rounds, &placed.place, &placed.card, &placed.spec)
            .await
            .map_err(|outcome| match outcome {
                TurnOutcome::FailedWithLine { line, .. } => line,
                _ => "its runtime could not be started".to_owned(),
            })?;
        let done = seat.task.lock().await.decide_recovery(choice, by).await?;
        Ok((seat, placed.card, done))
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use std::time::Duration;
    use tokio::time::timeout;

    /// #198: a turn's seat waits while the start's recovery runs, and goes
    /// once it ends, also when the recovery panicked.
    #[tokio::test(start_paused = true)]
    async fn a_seat_waits_while_the_recovery_runs_and_goes_once_it_ends() {
        let gate = RecoveryGate::default();
        gate.passed().await;
        let recovering = gate.close();
        let waited = timeout(Duration::from_secs(60), gate.passed()).await;
        assert!(waited.is_err(), "a seat opened while the recovery ran");
        drop(recovering);
        gate.passed().await;

        let recovering = gate.close();
        let panicked = tokio::spawn(async move {
            let _held = recovering;
            panic!("a recovery that fails");
        });
        assert!(panicked.await.unwrap_err().is_panic());
        gate.passed().await;
    }
}
