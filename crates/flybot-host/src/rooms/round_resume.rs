//! Finishing a round a restart cut (issue 13): the round comes back from
//! its run note as it was last noted. The member turn that was in flight is
//! not asked of the model again: its Session's pickup goes on with it, and
//! its answer is posted into the room once (a line the member already
//! posted before the crash is not posted twice); only a turn that never
//! reached the member runs again. Then the round goes on as it would have.

use super::participant::TurnOutcome;
use super::round_steps::RoundParts;
use super::run_note::{RoundNote, TurnMark};
use super::runner::RoundSummary;
use flybot_core::rooms::round::{Reply, Round, TurnCall};

impl RoundParts<'_> {
    /// Finishes the round `note` describes.
    pub async fn resume(&self, room_id: &str, note: RoundNote) -> RoundSummary {
        let mut summary = RoundSummary::default();
        let Some(line) = self.opener_line(room_id, note.opener_seq) else {
            return summary;
        };
        let mut round = note.round;
        if let Some(call) = round.running_call() {
            let mark = note.turn.filter(|m| m.bot_id == call.bot_id);
            let resumed = match &mark {
                Some(mark) => self.cut_turn(room_id, mark).await,
                None => None,
            };
            match (resumed, mark) {
                (Some(outcome), Some(mark)) => {
                    self.cut_outcome(room_id, &mut round, &call, &line, outcome, &mark)
                        .await;
                }
                _ => {
                    self.turn_again(room_id, &mut round, &call, &line, &mut summary)
                        .await;
                }
            }
        }
        self.finish(room_id, round, &line, summary).await
    }

    /// The cut turn's answer, read once its pickup ended; the member is
    /// shown speaking meanwhile, so a person's line steers or stops it.
    async fn cut_turn(&self, room_id: &str, mark: &TurnMark) -> Option<TurnOutcome> {
        self.logs.run(room_id, |r| {
            r.speaking = Some((mark.bot_id.clone(), mark.session_id.clone()));
        });
        self.logs.announce_speaking(room_id);
        let outcome = self
            .participant
            .resume_turn(&mark.session_id, mark.session_after)
            .await;
        if outcome.is_none() {
            self.logs.run(room_id, |r| r.speaking = None);
        }
        outcome
    }

    /// Records the cut turn's answer; a line the member posted with it
    /// before the crash stands, and is not posted again.
    async fn cut_outcome(
        &self,
        room_id: &str,
        round: &mut Round,
        call: &TurnCall,
        line: &flybot_core::rooms::log::RoomLine,
        outcome: TurnOutcome,
        mark: &TurnMark,
    ) {
        let state = (self.read)();
        let Some(room) = state.rooms.get(room_id).cloned() else {
            round.record(&call.bot_id, Reply::Failed);
            return;
        };
        if let TurnOutcome::Text(reply) | TurnOutcome::TextWithFiles { text: reply, .. } = &outcome
            && self.posted(room_id, mark.room_after, &call.bot_id, reply)
        {
            self.logs.run(room_id, |r| r.speaking = None);
            self.logs.announce_speaking(room_id);
            round.record(&call.bot_id, Reply::Line(reply));
            return;
        }
        let mut summary = RoundSummary::default();
        self.take_outcome(&room, round, call, line, outcome, &mut summary)
            .await;
    }

    /// The member turn that never reached the member, run now.
    async fn turn_again(
        &self,
        room_id: &str,
        round: &mut Round,
        call: &TurnCall,
        line: &flybot_core::rooms::log::RoomLine,
        summary: &mut RoundSummary,
    ) {
        if !self.member_turn(room_id, round, call, line, summary).await {
            round.record(&call.bot_id, Reply::Failed);
        }
    }

    /// Whether `bot_id` already posted `reply` after room seq `after`.
    fn posted(&self, room_id: &str, after: u64, bot_id: &str, reply: &str) -> bool {
        self.logs
            .find_back(room_id, after, |l| l.author_id == bot_id && l.text == reply)
            .is_some()
    }
}
