//! The steps of one round (the runner's `run_round`): read the opener, let
//! the lead's dispatch go to the board (#1254), run each called member's
//! turn through the participant, store what it said (or why it said
//! nothing, #198), and write the closing report the poster asked for
//! (#913). `RoundParts` carries what every step uses.

use super::dispatch::{RoundBoard, dispatch_in};
use super::logs::RoomLogs;
use super::participant::{MemberTurn, RoomParticipant, TurnOutcome};
use super::run_note::{RoundNote, TurnMark};
use super::runner::{
    ClosingReport, RoundSummary, TurnAsk, last_speaker_before, setup_of, turn_text,
};
use crate::team::Team;
use flybot_core::rooms::covers::board_covers_cue;
use flybot_core::rooms::log::{AuthorKind, LineKind, RoomLine};
use flybot_core::rooms::notice_seen::{mark_now, see_notice};
use flybot_core::rooms::report::closing_report;
use flybot_core::rooms::round::{
    Opener, Reply, Round, TurnCall, is_quiet, next_late_rounds, turn_hop,
};
use flybot_protocol::state::{Room, TeamState};
use flybot_store::room_log::NewLine;

/// What a round runs with: the room logs, the members' participant, the
/// board a dispatch is written to (none: a dispatch stays an ordinary
/// call), the team each member's `noticeSeen` mark is written to (none: not
/// kept, #894), and how the team and the clock are read.
pub struct RoundParts<'a> {
    pub logs: &'a RoomLogs,
    pub participant: &'a dyn RoomParticipant,
    pub board: Option<&'a dyn RoundBoard>,
    pub team: Option<&'a Team>,
    pub read: &'a (dyn Fn() -> TeamState + Sync),
    pub now: &'a (dyn Fn() -> u64 + Sync),
}

/// The opener as the core round reads it.
fn opener_of(line: &RoomLine) -> Opener<'_> {
    match (line.author_kind, line.kind) {
        (_, LineKind::Event) | (_, LineKind::Claim) | (AuthorKind::System, _) => Opener::Event,
        (AuthorKind::Human, LineKind::Chat) => Opener::Person {
            text: &line.text,
            owner_line: true,
        },
        (AuthorKind::LocalBot, LineKind::Chat) | (AuthorKind::RemoteBot, LineKind::Chat) => {
            Opener::Bot {
                from: &line.author_id,
                text: &line.text,
            }
        }
    }
}

impl RoundParts<'_> {
    /// Runs the round the line at `opener_seq` opens.
    pub async fn run(&self, room_id: &str, opener_seq: u64) -> RoundSummary {
        let state = (self.read)();
        let Some(room) = state.rooms.get(room_id).cloned() else {
            return RoundSummary::default();
        };
        let Some(line) = self.opener_line(room_id, opener_seq) else {
            return RoundSummary::default();
        };
        let round = self.open(&state, &room, &line).await;
        self.finish(room_id, round, &line, RoundSummary::default())
            .await
    }

    /// The line at `seq` of the room's log.
    pub(super) fn opener_line(&self, room_id: &str, seq: u64) -> Option<RoomLine> {
        self.logs.line_at(room_id, seq)
    }

    /// Runs the round's member turns until it is over, then its closing
    /// report.
    pub(super) async fn finish(
        &self,
        room_id: &str,
        mut round: Round,
        line: &RoomLine,
        mut summary: RoundSummary,
    ) -> RoundSummary {
        while let Some(call) = self.next_turn(room_id, line.seq, &mut round) {
            if self.logs.run(room_id, |r| r.stopped || r.halted) {
                round.record(&call.bot_id, Reply::Stopped);
                continue;
            }
            if !self
                .member_turn(room_id, &mut round, &call, line, &mut summary)
                .await
            {
                break;
            }
        }
        summary.report = self.closing_report(room_id, &round, line);
        summary
    }

    /// The next member turn, after the calls in the Bot lines posted since
    /// the last one (#932): the members they name speak in this round; a
    /// line that named nobody waits for the next round. The round is noted
    /// with the same look at the room, so a restart finishes it from here.
    fn next_turn(&self, room_id: &str, opener_seq: u64, round: &mut Round) -> Option<TurnCall> {
        self.logs.run(room_id, |r| {
            for post in std::mem::take(&mut r.mid_posts) {
                if !round.call_from_post(&post.from, &post.text) {
                    r.pending.push(post.seq);
                }
            }
            let call = round.next_turn();
            r.round = Some(RoundNote {
                opener_seq,
                round: round.clone(),
                turn: None,
            });
            call
        })
    }

    /// Opens the round: the late-round count, and the lead's dispatch
    /// written to the board, which opens the round for nobody (#1254; a
    /// failed write keeps the turn).
    async fn open(&self, state: &TeamState, room: &Room, line: &RoomLine) -> Round {
        let opener = opener_of(line);
        let late = self.logs.run(&room.id, |r| {
            r.late_rounds = next_late_rounds(r.late_rounds, &opener);
            r.stopped = false;
            r.late_rounds
        });
        let mut setup = setup_of(state, room);
        setup.last_speaker = last_speaker_before(self.logs, room, line.seq);
        let opener = match (opener, self.board) {
            (Opener::Bot { from, text }, Some(board)) => {
                let quiet = is_quiet(late.saturating_sub(1));
                match dispatch_in(room, &setup, from, text, quiet) {
                    Some(d) if board.assign(&room.id, from, d.clone(), text).await => Opener::Event,
                    _ => opener,
                }
            }
            _ => opener,
        };
        // Issue 34: a face-to-face room answers by the face turn rule.
        let face = crate::social::face_to_face::face_round(room, line, setup.clone());
        let is_face = face.is_some();
        let round = match face {
            Some(face) => face,
            None => Round::open(setup, opener, late.saturating_sub(1)),
        };
        // A friend's Bot seated here is somebody (issue 34), on its home.
        let unknown =
            crate::social::shared_rooms::SharedRooms::seated_elsewhere(room, &round.unknown);
        if !unknown.is_empty() {
            self.unknown_names_notice(&room.id, &unknown, line.hop);
        }
        // A line that names only friends' Bots is theirs to answer, on
        // their homes: it opens no round for every Bot here (issue 34).
        if !is_face && round.routed && !round.unknown.is_empty() && unknown.is_empty() {
            return Round::open(round.setup, Opener::Event, late.saturating_sub(1));
        }
        round
    }

    /// One quiet notice line for the `@` names that named nobody in the
    /// room: the round still runs for the line as written.
    fn unknown_names_notice(&self, room_id: &str, unknown: &[String], hop: u32) {
        let names: Vec<String> = unknown.iter().map(|n| format!("@{n}")).collect();
        let _ = self.logs.append(
            room_id,
            NewLine {
                author_id: String::new(),
                author_kind: AuthorKind::System,
                kind: LineKind::Event,
                text: format!("No one in this room is called {}.", names.join(" or ")),
                at: (self.now)(),
                hop,
            },
        );
    }

    /// Runs one called member's turn and records its reply. Answers false
    /// when the room is gone and the round ends.
    pub(super) async fn member_turn(
        &self,
        room_id: &str,
        round: &mut Round,
        call: &TurnCall,
        opener: &RoomLine,
        summary: &mut RoundSummary,
    ) -> bool {
        let state = (self.read)();
        let Some(room) = state.rooms.get(room_id).cloned() else {
            return false;
        };
        // A Bot's @ the member's open card already says is a pass: no
        // model turn (#1109).
        let covered = self
            .bot_cue(room_id, call, opener)
            .is_some_and(|cue| board_covers_cue(&state, room_id, &call.bot_id, &cue));
        if covered && round.pass_covered(&call.bot_id) {
            return true;
        }
        let Some(turn) = self.seat_turn(&state, &room, round, call, opener) else {
            round.record(&call.bot_id, Reply::Failed);
            return true;
        };
        summary.max_prompt_chars = summary.max_prompt_chars.max(turn.text.chars().count());
        summary.turns += 1;
        self.see_notice(&room, &call.bot_id).await;
        // One member turn makes at most the provider's own attempts (#1308):
        // the round never asks a rate-limited turn again on top of them
        // (#1679), and a Stop cancels the turn, its backoff wait included.
        let outcome = self.participant.run_turn(turn).await;
        self.take_outcome(&room, round, call, opener, outcome, summary)
            .await;
        true
    }

    /// The Bot line that called this member, when a Bot's line did: the
    /// caller's newest line since the opener, or the opener itself when a
    /// Bot wrote it and it named the member. A person's @ has none.
    fn bot_cue(&self, room_id: &str, call: &TurnCall, opener: &RoomLine) -> Option<String> {
        let is_bot = |line: &RoomLine| {
            line.kind == LineKind::Chat
                && matches!(
                    line.author_kind,
                    AuthorKind::LocalBot | AuthorKind::RemoteBot
                )
        };
        match &call.by {
            Some(by) => self
                .logs
                .find_back(room_id, opener.seq.saturating_sub(1), |l| {
                    is_bot(l) && &l.author_id == by
                })
                .map(|l| l.text),
            None if call.addressed && is_bot(opener) => Some(opener.text.clone()),
            None => None,
        }
    }

    /// Writes the mark of the notice `bot_id`'s turn was shown in `room`
    /// (`noticeSeen`, #894), when it moved; a failed write only means the
    /// next turn says the notice changed once more.
    async fn see_notice(&self, room: &Room, bot_id: &str) {
        let Some(team) = self.team else { return };
        let mark = mark_now(room);
        if see_notice(room, bot_id, &mark).is_none() {
            return;
        }
        let written = team
            .mutate("room-notice-seen", |change| {
                let now = change.state().rooms.get(&room.id);
                if let Some(seen) = now.and_then(|r| see_notice(r, bot_id, &mark)) {
                    change.put_room(&seen);
                }
                Ok(())
            })
            .await;
        if let Err(e) = written {
            tracing::warn!(
                "the notice {bot_id} saw in {} was not noted: {e:?}",
                room.id
            );
        }
    }

    /// Records how a member turn ended and posts what it said (or why it
    /// said nothing, #198).
    pub(super) async fn take_outcome(
        &self,
        room: &Room,
        round: &mut Round,
        call: &TurnCall,
        opener: &RoomLine,
        outcome: TurnOutcome,
        summary: &mut RoundSummary,
    ) {
        let room_id = room.id.as_str();
        let superseded = self.logs.run(room_id, |r| {
            r.speaking = None;
            std::mem::take(&mut r.stopped)
        });
        self.logs.announce_speaking(room_id);
        let hop = opener.hop + 1;
        match outcome {
            TurnOutcome::Text(_) | TurnOutcome::TextWithFiles { .. } if superseded => {
                round.record(&call.bot_id, Reply::Stopped);
            }
            TurnOutcome::Text(reply) => {
                if self
                    .said(round, room, &call.bot_id, reply, Vec::new(), hop)
                    .await
                {
                    summary.lines += 1;
                }
            }
            TurnOutcome::TextWithFiles { text, attachments } => {
                if self
                    .said(round, room, &call.bot_id, text, attachments, hop)
                    .await
                {
                    summary.lines += 1;
                }
            }
            TurnOutcome::Stopped => {
                round.record(&call.bot_id, Reply::Stopped);
            }
            TurnOutcome::Cut { kept } => {
                round.record(&call.bot_id, Reply::Stopped);
                self.cut_line(room_id, &call.bot_id, kept, hop);
            }
            // Never silence (#198): the member's own line says why.
            TurnOutcome::FailedWithLine { code: _, line } => {
                round.record(&call.bot_id, Reply::Failed);
                self.event_line(room_id, &call.bot_id, line, hop);
            }
            TurnOutcome::Failed { code } => {
                round.record(&call.bot_id, Reply::Failed);
                let friendly = flybot_core::fences::failure::room_failure_line(&code);
                self.event_line(room_id, &call.bot_id, friendly.to_owned(), hop);
            }
        }
    }

    /// The member's turn, opened on its seat and marked speaking; `None`
    /// when it has no seat or its participant refused to open it.
    fn seat_turn(
        &self,
        state: &TeamState,
        room: &Room,
        round: &Round,
        call: &TurnCall,
        opener: &RoomLine,
    ) -> Option<MemberTurn> {
        let session_id = room.sessions.get(&call.bot_id).cloned()?;
        self.participant
            .open(&room.id, &call.bot_id, &session_id)
            .ok()?;
        let seen = self
            .logs
            .run(&room.id, |r| r.seen.get(&call.bot_id).copied());
        // The turn shows only lines after what it saw (#1203): on a first
        // look every line of its window, counted, the newest few shown.
        let lines = self
            .logs
            .lines_after(&room.id, seen.unwrap_or(0))
            .unwrap_or_default();
        let ask = TurnAsk {
            bot_id: &call.bot_id,
            seen,
            round_start: opener.seq,
            forced: call.forced,
            addressed: call.addressed || call.by.is_some(),
            now: (self.now)(),
        };
        let text = turn_text(state, room, &lines, round, &ask);
        let last = lines
            .last()
            .map_or_else(|| self.logs.last_seq(&room.id), |l| l.seq);
        // Noted before the turn is handed over: a restart reads this turn's
        // answer from the Session instead of asking the model again.
        let mark = TurnMark {
            bot_id: call.bot_id.clone(),
            session_id: session_id.clone(),
            session_after: self.participant.mark(&session_id),
            room_after: last,
        };
        self.logs.run(&room.id, |r| {
            r.speaking = Some((call.bot_id.clone(), session_id.clone()));
            r.seen.insert(call.bot_id.clone(), last);
            r.round = Some(RoundNote {
                opener_seq: opener.seq,
                round: round.clone(),
                turn: Some(mark),
            });
        });
        self.logs.announce_speaking(&room.id);
        Some(MemberTurn {
            room_id: room.id.clone(),
            bot_id: call.bot_id.clone(),
            session_id,
            text,
            hop: turn_hop(opener, &lines),
        })
    }

    /// Records a member's reply; unless it was a pass, a dispatch in the
    /// lead's own reply goes to the board instead of calling the member
    /// here (#1254), and the reply is stored as the member's line. Answers
    /// whether a line was stored.
    async fn said(
        &self,
        round: &mut Round,
        room: &Room,
        bot_id: &str,
        reply: String,
        attachments: Vec<String>,
        hop: u32,
    ) -> bool {
        if !round.record(bot_id, Reply::Line(&reply)) {
            return false;
        }
        if let Some(board) = self.board
            && let Some(d) = dispatch_in(room, &round.setup, bot_id, &reply, false)
        {
            let member = d.member.clone();
            if board.assign(&room.id, bot_id, d, &reply).await {
                round.uncall(bot_id, &member);
            }
        }
        // Not waited on: the round goes on while the disk syncs, and the
        // line is announced once it is durable.
        let stored = self.logs.append_soon_carrying(
            &room.id,
            NewLine {
                author_id: bot_id.to_owned(),
                author_kind: AuthorKind::LocalBot,
                kind: LineKind::Chat,
                text: reply,
                at: (self.now)(),
                hop,
            },
            attachments,
        );
        match stored {
            Ok(line) => {
                self.post_files(&room.id, bot_id, &line).await;
                true
            }
            Err(_) => false,
        }
    }

    /// The postings of the files a Bot's line carries (issue 32), so the
    /// room's members whose window covers it may read them (#50); only
    /// files its owner holds, and a start puts back any a crash cut off.
    async fn post_files(&self, room_id: &str, bot_id: &str, line: &RoomLine) {
        let Some(team) = self.team.filter(|_| !line.attachments.is_empty()) else {
            return;
        };
        let posting = flybot_protocol::attachment::Posting::Room {
            room_id: room_id.to_owned(),
            seq: line.seq,
        };
        let written = team
            .mutate(&format!("bot:{bot_id}"), |change| {
                let owner = change.state().bots.get(bot_id).map(|b| b.owner_id.clone());
                for id in &line.attachments {
                    let owned = change
                        .state()
                        .attachments
                        .get(id)
                        .map(|a| a.owner_id.clone());
                    if owned.is_some() && owned == owner {
                        change.post_attachment(id, posting.clone());
                    }
                }
                Ok(())
            })
            .await;
        if let Err(e) = written {
            tracing::warn!("the files of {bot_id}'s line in {room_id} were not posted: {e:?}");
        }
    }

    /// A member cut off by a Stop while it spoke: what it had said is kept
    /// as its line (calling nobody: the round does not record it), and a
    /// room line under it says who was cut (issue 31).
    fn cut_line(&self, room_id: &str, bot_id: &str, kept: String, hop: u32) {
        let name = super::runner::name_of(&(self.read)(), bot_id);
        let lines = [
            (bot_id, AuthorKind::LocalBot, LineKind::Chat, kept),
            (
                "",
                AuthorKind::System,
                LineKind::Event,
                format!("{name} was cut off by Stop; the line above is as far as it got."),
            ),
        ];
        for (author, author_kind, kind, text) in lines {
            let _ = self.logs.append_soon(
                room_id,
                NewLine {
                    author_id: author.to_owned(),
                    author_kind,
                    kind,
                    text,
                    at: (self.now)(),
                    hop,
                },
            );
        }
    }

    /// Appends an event line in the member's voice.
    fn event_line(&self, room_id: &str, bot_id: &str, text: String, hop: u32) {
        let _ = self.logs.append_soon(
            room_id,
            NewLine {
                author_id: bot_id.to_owned(),
                author_kind: AuthorKind::LocalBot,
                kind: LineKind::Event,
                text,
                at: (self.now)(),
                hop,
            },
        );
    }

    /// The closing report for a Bot poster who asked for one (#913).
    fn closing_report(
        &self,
        room_id: &str,
        round: &Round,
        opener: &RoomLine,
    ) -> Option<ClosingReport> {
        let wants_report = opener.author_kind != AuthorKind::Human
            && self
                .logs
                .run(room_id, |r| r.report_back.remove(&opener.seq));
        if !wants_report {
            return None;
        }
        let state = (self.read)();
        Some(ClosingReport {
            poster: opener.author_id.clone(),
            text: closing_report(round, &opener.author_id, |id| {
                super::runner::name_of(&state, id)
            }),
        })
    }
}
