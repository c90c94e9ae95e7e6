//! External room members (#198, #216): a Bot whose record carries
//! `external: {driver: "subprocess", ...}` is spoken for by a supervised
//! child process, one per (room, Bot), and one with `{driver: "opencode"}`
//! by the pinned OpenCode, one per (room, Bot, card) (`super::opencode`);
//! both behind the same `RoomParticipant` boundary as the internal agent.
//! `RoutedParticipant` sends each turn to the right side; the seats
//! outlive a round (they live in the host).

use super::agent::AgentParticipant;
use super::participant::{
    MemberTurn, ResumeFuture, RoomParticipant, Snapshot, TurnFuture, TurnOutcome,
};
use super::rounds::Rounds;
use flybot_core::fences::{LineOrigin, authored_line};
use flybot_core::sync::lock;
use flybot_interop::external::{ExternalSpec, parse_external};
use flybot_interop::subprocess::{
    Graces, HostLine, Launch, SeatKey, SeatOutcome, SubprocessSpec, Supervisor,
};
use flybot_protocol::FailureCode;
use flybot_protocol::state::{Bot, TeamState};
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

/// The room-turn limit of an external member.
const TURN_LIMIT: Duration = Duration::from_secs(600);
/// How often the seats are checked against the team (a member removed, a
/// Bot deleted): the process ends within this.
const REAP_EVERY: Duration = Duration::from_millis(500);

/// The external members' processes and the turns running on them.
pub struct ExternalSeats {
    supervisor: Supervisor,
    /// The OpenCode members' seats, one per (room, Bot, card).
    opencode: super::opencode::OpenCodeSeats,
    /// Session id → the seat its running turn is on (stop, steer).
    running: Mutex<HashMap<String, SeatKey>>,
    reaper: OnceLock<()>,
}

/// The Bot's subprocess record, when it has one (a record that no longer
/// validates is refused at its turn, never run).
pub fn external_of(bot: &Bot) -> Option<Result<ExternalSpec, String>> {
    bot.external
        .as_ref()
        .map(|v| parse_external(v).map_err(|r| r.message))
}

impl ExternalSeats {
    pub fn new() -> Arc<ExternalSeats> {
        Arc::new(ExternalSeats {
            supervisor: Supervisor::new(Graces::default(), TURN_LIMIT),
            opencode: super::opencode::OpenCodeSeats::default(),
            running: Mutex::new(HashMap::new()),
            reaper: OnceLock::new(),
        })
    }

    pub fn supervisor(&self) -> &Supervisor {
        &self.supervisor
    }

    /// The OpenCode members' seats.
    pub fn opencode(&self) -> &super::opencode::OpenCodeSeats {
        &self.opencode
    }

    /// At a start, reconciles in the background the OpenCode cards a crash
    /// or a lost connection left `recovery: uncertain` (#198), and reaps
    /// the recovered seats like any other (a decided cancel releases one
    /// once its stop is observed). Only the home's writer.
    pub(crate) fn recover(rounds: &super::Rounds) {
        if rounds.team().store().status() != flybot_store::StoreStatus::Writer {
            return;
        }
        let rounds = rounds.clone();
        rounds.externals().watch(rounds.team().store());
        // Closed now, before the start resumes the rounds a crash cut.
        let recovering = rounds.externals().opencode().recovering();
        tokio::spawn(async move {
            let seats = rounds.externals().opencode();
            seats.recover(&rounds, recovering).await;
        });
    }

    /// Ends every external member's process (the host stops).
    pub fn stop_all(&self) {
        self.supervisor.stop_all();
        self.opencode.stop_all();
    }

    /// Starts, once, the task that ends the processes of seats the team no
    /// longer has: a member removed, a room or a Bot deleted, a record that
    /// is no longer external.
    pub(crate) fn watch(self: &Arc<Self>, store: &flybot_store::Store) {
        if self.reaper.set(()).is_err() {
            return;
        }
        let seats = Arc::downgrade(self);
        let store = store.clone();
        tokio::spawn(async move {
            loop {
                tokio::time::sleep(REAP_EVERY).await;
                let Some(seats) = seats.upgrade() else { return };
                store.read(|state| {
                    seats.supervisor.retain(|key| seat_is_live(state, key));
                    seats.opencode.retain(state, runs_on_opencode);
                    seats.opencode.settle_cancelled(state);
                });
            }
        });
    }
}

fn seat_is_live(state: &TeamState, key: &SeatKey) -> bool {
    let member = state
        .rooms
        .get(&key.room_id)
        .is_some_and(|room| room.members.contains(&key.bot_id));
    let external = state
        .bots
        .get(&key.bot_id)
        .and_then(external_of)
        .is_some_and(|spec| matches!(spec, Ok(ExternalSpec::Subprocess(_))));
    member && external
}

fn runs_on_opencode(state: &TeamState, bot_id: &str) -> bool {
    state
        .bots
        .get(bot_id)
        .and_then(external_of)
        .is_some_and(|spec| matches!(spec, Ok(ExternalSpec::OpenCode(_))))
}

/// The room's participant: external Bots through their seats, the others
/// through the agent runtime.
pub struct RoutedParticipant {
    pub agent: AgentParticipant,
    pub rounds: Rounds,
}

impl RoutedParticipant {
    /// The participant of the rooms `rounds` runs.
    pub fn new(rounds: Rounds) -> RoutedParticipant {
        RoutedParticipant {
            agent: AgentParticipant {
                sessions: rounds.sessions().clone(),
            },
            rounds,
        }
    }
}

/// What the peer is told: the round, the standing section, who spoke last.
fn turn_line(logs: &super::RoomLogs, state: &TeamState, turn: &MemberTurn) -> HostLine {
    let note = state
        .rooms
        .get(&turn.room_id)
        .map(|room| super::runner::standing_of(state, room, &turn.bot_id))
        .unwrap_or_default();
    let last = logs.find_back(&turn.room_id, 0, |l| l.author_id != turn.bot_id);
    let from = last
        .map(|l| {
            state
                .bots
                .get(&l.author_id)
                .map(|b| b.name.clone())
                .or_else(|| state.members.get(&l.author_id).map(|m| m.name.clone()))
                .unwrap_or_else(|| l.author_id.clone())
        })
        .unwrap_or_default();
    HostLine::Turn {
        text: turn.text.clone(),
        note,
        from,
        exchange_id: format!(
            "{}:{}:{}",
            turn.room_id,
            turn.bot_id,
            logs.last_seq(&turn.room_id)
        ),
    }
}

fn launch_of(home: &std::path::Path, bot_id: &str, spec: SubprocessSpec) -> Result<Launch, String> {
    let cwd = match spec.cwd {
        Some(cwd) => PathBuf::from(cwd),
        None => flybot_store::workspaces::bot_workspace(home, bot_id)
            .map_err(|e| format!("its working folder could not be made: {e}"))?,
    };
    if !cwd.is_dir() {
        return Err(format!(
            "its working folder {} does not exist",
            cwd.display()
        ));
    }
    Ok(Launch {
        command: spec.command,
        cwd,
        env: spec.env,
    })
}

fn failed(code: FailureCode, line: String) -> TurnOutcome {
    TurnOutcome::FailedWithLine { code, line }
}

impl RoutedParticipant {
    fn external(&self, bot_id: &str) -> Option<Result<ExternalSpec, String>> {
        self.rounds
            .team()
            .read(|state| state.bots.get(bot_id).and_then(external_of))
    }

    async fn run_external(&self, turn: MemberTurn, spec: SubprocessSpec) -> TurnOutcome {
        let seats = self.rounds.externals().clone();
        seats.watch(self.rounds.team().store());
        let launch = match launch_of(&self.rounds.config().home, &turn.bot_id, spec) {
            Ok(launch) => launch,
            Err(why) => return failed(FailureCode::Start, format!("Could not start: {why}.")),
        };
        let line = self
            .rounds
            .team()
            .read(|state| turn_line(self.rounds.logs(), state, &turn));
        let key = SeatKey {
            room_id: turn.room_id.clone(),
            bot_id: turn.bot_id.clone(),
        };
        lock(&seats.running).insert(turn.session_id.clone(), key.clone());
        let outcome = seats.supervisor.turn(&key, &launch, line).await;
        lock(&seats.running).remove(&turn.session_id);
        match outcome {
            // A process's words are a peer's: fenced by origin (markers
            // inside stripped) before any internal Bot reads them.
            SeatOutcome::Text(text) => {
                let name = self.rounds.team().read(|state| {
                    state
                        .bots
                        .get(&turn.bot_id)
                        .map_or_else(|| turn.bot_id.clone(), |b| b.name.clone())
                });
                TurnOutcome::Text(authored_line(LineOrigin::Peer, &name, &text))
            }
            SeatOutcome::Stopped => TurnOutcome::Stopped,
            SeatOutcome::Failed { code, detail } => {
                let line = match code {
                    "CRASHED" => format!("My process ended ({detail})."),
                    "TIMEOUT" => format!("I did not answer in time ({detail}) and was stopped."),
                    "PEER_ERROR" => format!("I could not answer: {detail}"),
                    "PROTOCOL" => format!("My process broke the line protocol: {detail}"),
                    _ => format!("I could not answer ({detail})."),
                };
                failed(FailureCode::from_wire(code), line)
            }
        }
    }

    fn seat_of(&self, session_id: &str) -> Option<SeatKey> {
        lock(&self.rounds.externals().running)
            .get(session_id)
            .cloned()
    }
}

impl RoomParticipant for RoutedParticipant {
    fn open(&self, room_id: &str, bot_id: &str, session_id: &str) -> Result<(), String> {
        match self.external(bot_id) {
            // A refused record is reported by the turn, in the room: an
            // `open` refusal would end the turn without a line.
            Some(_) => Ok(()),
            None => self.agent.open(room_id, bot_id, session_id),
        }
    }

    fn run_turn(&self, turn: MemberTurn) -> TurnFuture<'_> {
        Box::pin(async move {
            match self.external(&turn.bot_id) {
                Some(Ok(ExternalSpec::Subprocess(spec))) => self.run_external(turn, spec).await,
                Some(Ok(ExternalSpec::OpenCode(spec))) => {
                    let seats = self.rounds.externals().clone();
                    seats.watch(self.rounds.team().store());
                    seats.opencode.turn(&self.rounds, turn, spec).await
                }
                Some(Err(why)) => failed(
                    FailureCode::Invalid,
                    format!("My external record is refused: {why}"),
                ),
                None => self.agent.run_turn(turn).await,
            }
        })
    }

    fn snapshot(&self, session_id: &str) -> Snapshot {
        if self.seat_of(session_id).is_some()
            || self.rounds.externals().opencode.running(session_id)
        {
            return Snapshot { running: true };
        }
        self.agent.snapshot(session_id)
    }

    fn cancel(&self, session_id: &str) -> bool {
        if self.rounds.externals().opencode.stop(session_id) {
            return true;
        }
        match self.seat_of(session_id) {
            Some(key) => self.rounds.externals().supervisor.stop(&key),
            None => self.agent.cancel(session_id),
        }
    }

    fn steer(&self, session_id: &str, text: &str) -> bool {
        // A peer has no steer on its protocol: the line waits for the next
        // round, where the peer reads it.
        if self.seat_of(session_id).is_some()
            || self.rounds.externals().opencode.running(session_id)
        {
            return false;
        }
        self.agent.steer(session_id, text)
    }

    fn mark(&self, session_id: &str) -> u64 {
        self.agent.mark(session_id)
    }

    /// A peer's cut turn is run again (it has no Session to pick it up);
    /// the agent's is read from its pickup.
    fn resume_turn(&self, session_id: &str, after: u64) -> ResumeFuture<'_> {
        if self.seat_of(session_id).is_some()
            || self.rounds.externals().opencode.running(session_id)
        {
            return Box::pin(async { None });
        }
        self.agent.resume_turn(session_id, after)
    }
}
