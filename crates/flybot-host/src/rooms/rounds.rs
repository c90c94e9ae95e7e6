//! `Rounds`: the round driver. It takes the rounds the room logs open
//! (`RoomLogs::open_round`) and runs each room's rounds one after another
//! until no person line is left waiting, each member's turn through the
//! room's participant (the agent, a supervised subprocess, or OpenCode),
//! dispatches onto the board (#1254), and the closing report into the
//! poster's own chat (#913). A round a restart cut is finished first
//! (`round_resume`). It holds what a member's turn uses; nothing holds it
//! but its own loop and the participants it makes.

use super::RoomLogs;
use super::external::{ExternalSeats, RoutedParticipant};
use super::logs::{RoundStart, RoundStarts};
use super::runner::{ClosingReport, RoundParts};
use crate::HostConfig;
use crate::board::Board;
use crate::board::round_board::HostRoundBoard;
use crate::events::HostEvent;
use crate::team::Team;
use flybot_agent::session::{ItemKind, Sessions, Source};
use flybot_core::rooms::round_view::round_view_of;
use std::sync::Arc;

/// What a room's rounds and their member turns use. Cheap to clone.
#[derive(Clone)]
pub struct Rounds {
    team: Team,
    board: Board,
    logs: Arc<RoomLogs>,
    sessions: Sessions,
    externals: Arc<ExternalSeats>,
    config: Arc<HostConfig>,
}

impl Rounds {
    /// The round driver over these services, with no external seat running.
    pub fn new(
        team: &Team,
        board: &Board,
        logs: &Arc<RoomLogs>,
        sessions: &Sessions,
        config: &Arc<HostConfig>,
    ) -> Rounds {
        Rounds {
            team: team.clone(),
            board: board.clone(),
            logs: logs.clone(),
            sessions: sessions.clone(),
            externals: ExternalSeats::new(),
            config: config.clone(),
        }
    }

    /// The team the rounds read and write.
    pub fn team(&self) -> &Team {
        &self.team
    }

    /// The task board a round dispatches onto (#1254).
    pub fn board(&self) -> &Board {
        &self.board
    }

    /// The rooms' logs.
    pub fn logs(&self) -> &Arc<RoomLogs> {
        &self.logs
    }

    /// The agent runtime a member's turn runs in.
    pub fn sessions(&self) -> &Sessions {
        &self.sessions
    }

    /// The external seats (supervised subprocesses and OpenCode).
    pub fn externals(&self) -> &Arc<ExternalSeats> {
        &self.externals
    }

    /// The host's configuration.
    pub fn config(&self) -> &Arc<HostConfig> {
        &self.config
    }

    /// Runs every round `starts` hands over until the host stops.
    pub fn drive(self, mut starts: RoundStarts) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let bus = self.team.bus().clone();
        runtime.spawn(async move {
            let stopped = bus.stopped();
            tokio::pin!(stopped);
            loop {
                let start = tokio::select! {
                    () = &mut stopped => break,
                    start = starts.recv() => start,
                };
                let Some(start) = start else { break };
                tokio::spawn(self.clone().run_room(start));
            }
        });
    }

    /// The participant a room runs its rounds through.
    pub fn participant(&self) -> RoutedParticipant {
        RoutedParticipant::new(self.clone())
    }

    /// Runs rounds for the room until no person line is left waiting.
    async fn run_room(self, start: RoundStart) {
        let participant = self.participant();
        let board = HostRoundBoard {
            board: self.board.clone(),
        };
        let store = self.team.store().clone();
        let room_id = start.room_id;
        // A member turn reads the team: its room's part, not every card.
        let viewed = room_id.clone();
        let read = move || store.read_room(&viewed, round_view_of);
        let now = flybot_store::system_now_ms;
        let mut next = start.opener_seq;
        let mut resume = start.resume;
        loop {
            let parts = RoundParts {
                logs: &self.logs,
                participant: &participant,
                board: Some(&board),
                team: Some(&self.team),
                read: &read,
                now: &now,
            };
            let summary = match resume.take() {
                Some(note) => parts.resume(&room_id, *note).await,
                None => parts.run(&room_id, next).await,
            };
            if let Some(report) = summary.report {
                self.send_report(&report);
            }
            // A round ends once every line it stored is durable and shown.
            if let Err(e) = self.logs.settled().await {
                tracing::warn!("the lines of a round in {room_id} are not durable: {e}");
            }
            match self.logs.next_opener(&room_id) {
                Some(seq) => next = seq,
                None => break,
            }
        }
        self.team.emit(HostEvent::RoundEnded { room_id });
    }

    /// The round's closing report (#913) into the poster's own chat.
    fn send_report(&self, report: &ClosingReport) {
        let session = self
            .team
            .read(|s| s.bots.get(&report.poster).map(|b| b.session_id.clone()));
        let Some(session) = session else { return };
        let delivered =
            self.sessions
                .deliver(&session, &report.text, Source::Host, ItemKind::NextTurn);
        if let Err(e) = delivered {
            tracing::warn!("a closing report could not reach {}: {e}", report.poster);
        }
    }
}
