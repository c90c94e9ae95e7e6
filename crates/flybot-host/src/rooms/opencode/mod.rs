//! OpenCode room members in a running host (#198): a Bot whose record
//! carries `external: {driver: "opencode", seed?, testCommand?}` is spoken
//! for by the pinned `opencode serve`. Each card it works gets its own
//! seat: a supervised server in an empty disposable workspace (filled from
//! the seed), the card's execution journal under
//! `<home>/interop/<botId>/<taskId>/` and its one runtime session. Each
//! turn's observation goes through the projection table to the board: a
//! question blocks the card for input, the next turn's answer resumes it,
//! and a result is verified in a fresh copy for the card's own Bot before
//! the card is returned. Only a person accepts it.

mod cancel;
pub mod card;
mod card_moves;
pub mod execution;
pub mod launcher;
pub mod observation_moves;
mod outcome;
mod publication;
pub mod recovery;
pub(crate) mod selected;
pub mod verify;

use card_moves::posted_after;
use outcome::failed;
pub use outcome::outcome_of;

use super::participant::{MemberTurn, TurnOutcome};
use crate::rooms::Rounds;
use card::{Card, card_by_id, card_for, card_is_open};
use flybot_core::sync::lock;
use flybot_core::tasks::execution_seam::ExecutionBinding;
use flybot_interop::journal::Journal;
use flybot_interop::opencode::config::ModelEndpoint;
use flybot_interop::opencode::project_config::refuse_project_config;
use flybot_interop::opencode::spec::OpenCodeSpec;
use flybot_interop::opencode::{
    JournaledTask, OpenCodeClient, Parties, TurnEnd, check_doc_against,
};
use flybot_interop::project::{self, Files};
use flybot_protocol::FailureCode;
use flybot_protocol::evidence::EvidenceLevel;
use flybot_protocol::state::{TaskStatus, TeamState};
use launcher::Started;
use std::collections::HashMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;
use tokio::sync::watch;

/// The room-turn limit of an OpenCode member.
const TURN_LIMIT: Duration = Duration::from_secs(600);
/// Cards one OpenCode Bot works at once (the contract's two concurrent
/// tasks).
const CONCURRENT_CARDS: usize = 2;

/// Where a seat sits: the room and the OpenCode Bot working the card.
pub struct SeatPlace {
    pub room_id: String,
    pub bot_id: String,
}

/// One card's seat: its runtime, its journaled session, its workspace.
pub struct Seat {
    room_id: String,
    bot_id: String,
    task_id: String,
    root: PathBuf,
    workspace: PathBuf,
    /// The seed's files: what the result's changes are measured against.
    baseline: Files,
    spec: OpenCodeSpec,
    task: tokio::sync::Mutex<JournaledTask>,
    /// Held while a turn's observation is projected onto the card, so the
    /// next turn starts from the card as that projection left it.
    projecting: Arc<tokio::sync::Mutex<()>>,
    runtime: Started,
    /// The card was cancelled and the runtime showed the stop: the seat may go.
    cancel_observed: std::sync::atomic::AtomicBool,
    /// A cancel is being settled on this seat.
    settling: std::sync::atomic::AtomicBool,
    /// The secret its observations present to the execution seam.
    credential: execution::ExecutionCredential,
    /// The evidence level its verified result records on the card (#198):
    /// 1 on the fake, 2 on the real runtime driven by the mock model, 3 on
    /// the real runtime on a real model.
    evidence_level: EvidenceLevel,
}

impl Seat {
    /// Every outbound call the real child attempted (the trap refused it).
    pub fn egress_attempts(&self) -> Vec<String> {
        self.runtime
            .trap
            .as_ref()
            .map(flybot_interop::egress::EgressTrap::attempts)
            .unwrap_or_default()
    }

    /// Every prompt the fake OpenCode received (empty on the real one).
    pub fn runtime_prompts(&self) -> Vec<String> {
        self.runtime.fake_prompts()
    }

    /// The fake OpenCode this seat runs (a test's hook; `None` on the
    /// real one).
    #[cfg(feature = "fake-runtime")]
    pub fn fake_runtime(&self) -> Option<&flybot_interop::opencode::fake::FakeOpenCode> {
        self.runtime.fake.as_ref()
    }

    /// The mechanism that holds the real child's network, for a report.
    pub fn sandbox(&self) -> Option<&str> {
        self.runtime.sandbox.as_deref()
    }

    pub fn workspace(&self) -> &std::path::Path {
        &self.workspace
    }
}

/// The files of the seat's seed (none without one), written into its
/// workspace the first time the seat opens. A seed or a workspace that
/// carries OpenCode project configuration is refused before every start.
fn seed_workspace(workspace: &std::path::Path, spec: &OpenCodeSpec) -> Result<Files, String> {
    let baseline = match &spec.seed {
        Some(seed) => {
            refuse_project_config(seed, "seed")?;
            project::files_of(seed)
                .map_err(|e| format!("its seed {} could not be read: {e}", seed.display()))?
        }
        None => Files::new(),
    };
    if !workspace.exists() {
        project::write_files(workspace, &baseline)
            .map_err(|e| format!("its workspace could not be made: {e}"))?;
    }
    refuse_project_config(workspace, "workspace")?;
    Ok(baseline)
}

/// The Bot's other open cards that have an execution journal: the
/// contract's concurrent-task count, durable (the journals on disk and the
/// board), so a restart or a dropped seat never frees a slot.
fn cards_with_a_journal(
    state: &TeamState,
    home: &std::path::Path,
    bot_id: &str,
    card_id: &str,
) -> usize {
    let Ok(folders) = std::fs::read_dir(home.join("interop").join(bot_id)) else {
        return 0;
    };
    folders
        .filter_map(Result::ok)
        .filter(|f| f.path().join("journal").is_dir())
        .filter_map(|f| f.file_name().into_string().ok())
        .filter(|id| id != card_id && card_is_open(state, id))
        .count()
}

/// The other Bot whose execution journal already holds card `card_id`:
/// the card's request was enrolled for that Bot, its `inputDigest` names
/// it as the recipient (#198), so no other Bot takes the card over without
/// a new card. Read from the journals on disk, so a restart keeps it.
fn enrolled_worker(home: &std::path::Path, bot_id: &str, card_id: &str) -> Option<String> {
    let interop = home.join("interop");
    std::fs::read_dir(&interop)
        .ok()?
        .filter_map(Result::ok)
        .filter_map(|f| f.file_name().into_string().ok())
        .find(|bot| bot != bot_id && interop.join(bot).join(card_id).join("journal").is_dir())
}

/// Whether `bot_id` may open a seat for `card`: the card was not enrolled
/// for another Bot, and the Bot works fewer than `CONCURRENT_CARDS` cards.
fn may_seat(rounds: &Rounds, bot_id: &str, card: &Card) -> Result<(), TurnOutcome> {
    if let Some(other) = enrolled_worker(&rounds.config().home, bot_id, &card.id) {
        let other = rounds.team().read(|state| name_of(state, &other));
        return Err(failed(
            FailureCode::Card,
            format!(
                "The card \"{}\" was handed to {other}, whom its request names; ask {other} to go on, or start a new card for me.",
                card.title
            ),
        ));
    }
    let busy = rounds
        .team()
        .read(|state| cards_with_a_journal(state, &rounds.config().home, bot_id, &card.id));
    if busy >= CONCURRENT_CARDS {
        return Err(failed(
            FailureCode::Budget,
            format!(
                "I already work {CONCURRENT_CARDS} cards, the most at once; finish or cancel one and ask me again."
            ),
        ));
    }
    Ok(())
}

/// A card's seat folder: `<home>/interop/<botId>/<cardId>/`.
fn seat_root(rounds: &Rounds, bot_id: &str, card_id: &str) -> PathBuf {
    rounds
        .config()
        .home
        .join("interop")
        .join(bot_id)
        .join(card_id)
}

/// The OpenCode members' seats, by (room, Bot, card).
#[derive(Default)]
pub struct OpenCodeSeats {
    seats: Mutex<HashMap<(String, String, String), Arc<Seat>>>,
    /// Session id → the stop of the turn running on it, from the turn's
    /// first step (a stop while the seat starts is kept, never lost).
    running: Arc<Mutex<HashMap<String, watch::Sender<bool>>>>,
    /// Card id → the session id of the turn running on it.
    cards_running: Arc<Mutex<HashMap<String, String>>>,
    /// Card id → the execution binding the host minted when the card's
    /// seat enrolled it; gone with the seat, so a dropped seat's late
    /// observation moves nothing.
    bindings: Mutex<HashMap<String, ExecutionBinding>>,
    /// Mock models served on loopback for OpenCode, by model name.
    mocks: tokio::sync::Mutex<HashMap<String, ModelEndpoint>>,
    /// Closed while the start's recovery settles the journals.
    recovery: recovery::RecoveryGate,
    /// Bot id → held while one of its seats opens: the card budget is
    /// counted from the journals on disk, which a seat makes only once its
    /// runtime has started, so two openings at once both counted a slot
    /// that only one could take (#198).
    opening: Mutex<HashMap<String, Arc<tokio::sync::Mutex<()>>>>,
}

fn name_of(state: &TeamState, bot_id: &str) -> String {
    state
        .bots
        .get(bot_id)
        .map_or_else(|| bot_id.to_owned(), |b| b.name.clone())
}

impl OpenCodeSeats {
    /// Whether an OpenCode turn runs on `session_id`.
    pub fn running(&self, session_id: &str) -> bool {
        lock(&self.running).contains_key(session_id)
    }

    /// Asks the running turn on `session_id` to stop; answers whether one ran.
    pub fn stop(&self, session_id: &str) -> bool {
        match lock(&self.running).get(session_id) {
            Some(stop) => {
                stop.send_replace(true);
                true
            }
            None => false,
        }
    }

    /// The execution binding of `task_id`'s seat, while it stands.
    pub fn binding(&self, task_id: &str) -> Option<ExecutionBinding> {
        lock(&self.bindings).get(task_id).cloned()
    }

    /// The seat of (room, Bot, card), if it was started.
    pub fn seat(&self, room_id: &str, bot_id: &str, task_id: &str) -> Option<Arc<Seat>> {
        lock(&self.seats)
            .get(&(room_id.to_owned(), bot_id.to_owned(), task_id.to_owned()))
            .cloned()
    }

    /// Ends the seats the team no longer has (a member removed, a Bot
    /// deleted or no longer OpenCode, a card finished): dropping a seat
    /// ends its server's process group. A cancelled card's seat stays
    /// until its stop is observed (`settle_cancelled`).
    pub fn retain(&self, state: &TeamState, is_opencode: impl Fn(&TeamState, &str) -> bool) {
        lock(&self.seats).retain(|_, seat| {
            let member = state
                .rooms
                .get(&seat.room_id)
                .is_some_and(|room| room.members.contains(&seat.bot_id));
            let stopping = cancel::card_is_cancelled(state, &seat.task_id)
                && !seat
                    .cancel_observed
                    .load(std::sync::atomic::Ordering::SeqCst);
            stopping
                || (member
                    && is_opencode(state, &seat.bot_id)
                    && card_is_open(state, &seat.task_id))
        });
        let seated: std::collections::HashSet<String> = lock(&self.seats)
            .values()
            .map(|s| s.task_id.clone())
            .collect();
        lock(&self.bindings).retain(|task_id, _| seated.contains(task_id));
    }

    /// Ends every seat (the host stops).
    pub fn stop_all(&self) {
        for stop in lock(&self.running).values() {
            stop.send_replace(true);
        }
        lock(&self.seats).clear();
        lock(&self.bindings).clear();
    }

    async fn endpoint_for(&self, rounds: &Rounds, model: &str) -> Result<ModelEndpoint, String> {
        let route = rounds
            .config()
            .models
            .route(model)
            .map_err(|_| format!("its model {model:?} is not one this host runs"))?;
        if let Some(endpoint) = launcher::endpoint_of(&route)? {
            return Ok(endpoint);
        }
        let Some(mock) = route.mock.clone() else {
            return Err(format!(
                "its model {model:?} has no endpoint OpenCode can use"
            ));
        };
        let mut mocks = self.mocks.lock().await;
        if let Some(endpoint) = mocks.get(model) {
            return Ok(endpoint.clone());
        }
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .map_err(|e| format!("the mock model could not bind: {e}"))?;
        let address = listener.local_addr().map_err(|e| e.to_string())?;
        let bus = rounds.team().bus().clone();
        let stop = async move { bus.stopped().await };
        tokio::spawn(crate::serve_mock_model(listener, mock, stop));
        let endpoint = ModelEndpoint {
            base_url: format!("http://{address}/v1"),
            model: flybot_agent::model::mock::MOCK_MODEL.to_owned(),
            limit: None,
        };
        mocks.insert(model.to_owned(), endpoint.clone());
        Ok(endpoint)
    }

    /// The card's seat, opened once the start's recovery has ended.
    async fn open_seat(
        &self,
        rounds: &Rounds,
        place: &SeatPlace,
        card: &Card,
        spec: &OpenCodeSpec,
    ) -> Result<Arc<Seat>, TurnOutcome> {
        self.recovery.passed().await;
        self.open_seat_now(rounds, place, card, spec).await
    }

    /// The lock one Bot's seats open under, one at a time.
    fn opening_of(&self, bot_id: &str) -> Arc<tokio::sync::Mutex<()>> {
        let mut opening = lock(&self.opening);
        opening.retain(|_, held| Arc::strong_count(held) > 1);
        opening.entry(bot_id.to_owned()).or_default().clone()
    }

    /// The card's seat: the one open, or a new one (its runtime started and
    /// its journal opened, which takes the journal's writer lock).
    async fn open_seat_now(
        &self,
        rounds: &Rounds,
        place: &SeatPlace,
        card: &Card,
        spec: &OpenCodeSpec,
    ) -> Result<Arc<Seat>, TurnOutcome> {
        let turn = place;
        let key = (turn.room_id.clone(), turn.bot_id.clone(), card.id.clone());
        if let Some(seat) = lock(&self.seats).get(&key) {
            return Ok(seat.clone());
        }
        let opening = self.opening_of(&turn.bot_id);
        let _opening = opening.lock().await;
        // Another turn may have opened it while this one waited.
        if let Some(seat) = lock(&self.seats).get(&key) {
            return Ok(seat.clone());
        }
        may_seat(rounds, &turn.bot_id, card)?;
        let seat = self.start_seat(rounds, turn, card, spec).await?;
        lock(&self.seats).insert(key, seat.clone());
        Ok(seat)
    }

    /// A new seat for the card: its runtime started, its journal opened
    /// and the card enrolled (its binding kept).
    async fn start_seat(
        &self,
        rounds: &Rounds,
        turn: &SeatPlace,
        card: &Card,
        spec: &OpenCodeSpec,
    ) -> Result<Arc<Seat>, TurnOutcome> {
        let start = |why: String| {
            failed(
                FailureCode::Start,
                format!("Could not start OpenCode: {why}."),
            )
        };
        let (model, owner) = rounds.team().read(|state| {
            let bot = state.bots.get(&turn.bot_id);
            (
                bot.map(|b| b.model.clone()).unwrap_or_default(),
                bot.map(|b| b.owner_id.clone()).unwrap_or_default(),
            )
        });
        let endpoint = self.endpoint_for(rounds, &model).await.map_err(start)?;
        let on_mock = self.mocks.lock().await.contains_key(&model);
        let root = seat_root(rounds, &turn.bot_id, &card.id);
        let workspace = root.join("workspace");
        let baseline = seed_workspace(&workspace, spec).map_err(start)?;
        let runtime = launcher::start(
            &rounds.config().opencode,
            &root.join("opencode"),
            &workspace,
            &endpoint,
            &spec.test_command,
        )
        .await
        .map_err(start)?;
        let evidence_level = if runtime.fake_requests().is_some() {
            EvidenceLevel::OfflineMock
        } else if on_mock {
            EvidenceLevel::RealProcessInterface
        } else {
            EvidenceLevel::RealModelCollaboration
        };
        let client = OpenCodeClient::new(&runtime.base).map_err(|e| start(e.to_string()))?;
        let doc = client.doc().await.map_err(|e| start(e.to_string()))?;
        let check = check_doc_against(&doc, &runtime.pin);
        let journal = Journal::open_dir(
            &root.join("journal"),
            rounds.config().opencode_budget,
            flybot_store::system_now_ms(),
        )
        .map_err(|e| start(format!("its journal: {e}")))?;
        let parties = Parties {
            server: "flybot-room".to_owned(),
            requester_bot: card.bot_id.clone(),
            worker_bot: turn.bot_id.clone(),
            owner_binding: owner,
            runtime_installation: runtime.version.clone(),
            conversation_id: turn.room_id.clone(),
        };
        let task = JournaledTask::bind(
            journal,
            parties,
            &card.id,
            client,
            check,
            flybot_store::system_now_ms,
        )
        .map_err(|e| start(format!("its journal: {e}")))?;
        let mut task = task;
        task.follow_room_log();
        let (binding, credential) =
            execution::enroll(&card.id, &card.bot_id, &turn.bot_id, &turn.room_id)
                .ok_or_else(|| start("no randomness for its execution credential".to_owned()))?;
        let seat = Arc::new(Seat {
            room_id: turn.room_id.clone(),
            bot_id: turn.bot_id.clone(),
            task_id: card.id.clone(),
            root,
            workspace,
            baseline,
            spec: spec.clone(),
            task: tokio::sync::Mutex::new(task),
            projecting: Arc::default(),
            runtime,
            cancel_observed: Default::default(),
            settling: Default::default(),
            credential,
            evidence_level,
        });
        lock(&self.bindings).insert(card.id.clone(), binding);
        Ok(seat)
    }

    /// One OpenCode member turn, start to board move. The turn's stop is
    /// registered first, so a person's stop while the seat starts ends it.
    pub async fn turn(&self, rounds: &Rounds, turn: MemberTurn, spec: OpenCodeSpec) -> TurnOutcome {
        let (stop_tx, mut stop) = watch::channel(false);
        lock(&self.running).insert(turn.session_id.clone(), stop_tx);
        let outcome = self.turn_registered(rounds, &turn, spec, &mut stop).await;
        lock(&self.running).remove(&turn.session_id);
        lock(&self.cards_running).retain(|_, session| *session != turn.session_id);
        outcome
    }

    async fn turn_registered(
        &self,
        rounds: &Rounds,
        turn: &MemberTurn,
        spec: OpenCodeSpec,
        stop: &mut watch::Receiver<bool>,
    ) -> TurnOutcome {
        let Some(card) = rounds
            .team()
            .read(|state| card_for(state, &turn.room_id, &turn.bot_id))
        else {
            return failed(
                FailureCode::NoCard,
                "I work on a card: create one in this room (task-create with this roomId), start it (task-accept, task-start) and ask me again.".to_owned(),
            );
        };
        lock(&self.cards_running).insert(card.id.clone(), turn.session_id.clone());
        let place = SeatPlace {
            room_id: turn.room_id.clone(),
            bot_id: turn.bot_id.clone(),
        };
        let seat = match self.open_seat(rounds, &place, &card, &spec).await {
            Ok(seat) => seat,
            Err(outcome) => return outcome,
        };
        // The agent edits its workspace: what it wrote there last turn is
        // checked before this one (#198).
        if let Err(why) = refuse_project_config(&seat.workspace, "workspace") {
            return failed(
                FailureCode::Invalid,
                format!("I cannot work this card: {why}."),
            );
        }
        // The previous turn's projection first: the card as it left it.
        drop(seat.projecting.lock().await);
        let Some(card) = rounds.team().read(|state| card_by_id(state, &card.id)) else {
            return failed(
                FailureCode::NoCard,
                "My card was deleted; start another and ask me again.".to_owned(),
            );
        };
        if !matches!(card.status, TaskStatus::Working | TaskStatus::Blocked) {
            return failed(
                FailureCode::Card,
                format!(
                    "The card \"{}\" is {} now; I work it again once it is sent back.",
                    card.title,
                    serde_json::to_value(card.status)
                        .ok()
                        .and_then(|v| v.as_str().map(str::to_owned))
                        .unwrap_or_default()
                ),
            );
        }
        if *stop.borrow() {
            return TurnOutcome::Stopped;
        }
        let mut task = seat.task.lock().await;
        // #198: explicitly selected text, never the round's.
        let selected =
            selected::turn_text(rounds, turn, &card, &seat.spec.test_command, &task).await;
        let text = match selected {
            Ok(text) => text,
            Err(line) => return failed(FailureCode::Blocked, line),
        };
        let before = rounds.logs().last_seq(&turn.room_id);
        let end = task.turn_at(&text, before, stop, TURN_LIMIT).await;
        let observation = task.last_observation().cloned();
        drop(task);
        let name = rounds.team().read(|state| name_of(state, &turn.bot_id));
        if let (TurnEnd::Text { text, .. }, Some(observation)) = (&end, observation) {
            // The move follows the line the room posts for this turn, so
            // the room reads the question (or the result) before the card
            // moves, and #550 sees the question already shown.
            let guard = seat.projecting.clone().lock_owned().await;
            let (rounds, seat, text) = (rounds.clone(), seat.clone(), text.clone());
            tokio::spawn(async move {
                posted_after(&rounds, &seat, before).await;
                publication::publish(&rounds, &seat, &card, &observation, &text).await;
                drop(guard);
            });
        }
        outcome_of(&name, &end)
    }
}
