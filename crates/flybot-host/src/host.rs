//! `Host`: the composition root. `new` wires the host's services in order,
//! each built in one call from only the services it uses (the bus and the
//! team first, then the board, the workflows, the turns' environment and
//! the agent runtime, the round driver, the task drive and the other
//! followers); `start` spawns what runs beside them; `open` adds the
//! start's repairs, each kept in the service it repairs. Nothing holds the
//! host: services that would call each other in a circle meet on the bus
//! instead.

use crate::approvals::Approvals;
use crate::board::{Board, TaskDrive};
use crate::events::Bus;
use crate::live::feed::LiveFeed;
use crate::rooms::external::ExternalSeats;
use crate::rooms::{RoomLogs, Rounds};
use crate::schedules::digest::Digests;
use crate::schedules::{ScheduleBook, Scheduler};
use crate::team::Team;
use crate::turns::usage::{UsageCell, UsageRecorder};
use crate::turns::{HostTurns, TurnServices};
use crate::workflows::Workflows;
use flybot_agent::model::config::ProviderRegistry;
use flybot_agent::session::Sessions;
use flybot_agent::turn::TurnEnvironment;
use flybot_protocol::ApiError;
use flybot_store::Store;
use std::path::PathBuf;
use std::sync::Arc;

/// What the host was started with.
#[derive(Debug, Clone)]
pub struct HostConfig {
    /// The home folder, shown by `diagnostics`.
    pub home: PathBuf,
    /// The model a new Bot gets when its request names none.
    pub default_model: String,
    /// The models config.toml declares, and `mock`; mock-only by default.
    /// Settings swaps its set live (issue 31).
    pub models: Arc<ProviderRegistry>,
    /// The config.toml Settings writes model edits back to: the home's.
    pub config_file: PathBuf,
    /// The OpenCode an OpenCode Bot runs on (#198): by default the pinned
    /// one found through `$FLYBOT_OPENCODE` or `.tools/opencode` under the
    /// current folder.
    pub opencode: crate::rooms::opencode::launcher::OpenCodeRuntime,
    /// Each OpenCode card's budget (the contract's proposed limits).
    pub opencode_budget: flybot_interop::budgets::BudgetLimits,
    /// `checkRatio`: the steward's check line as a share of the usable
    /// window (0.45 when unset, #796).
    pub check_ratio: Option<f64>,
    /// `compactDeadlineMs`: making room before a step (300 s, #1285).
    pub compact_deadline_ms: u64,
    /// Whether the scheduler runs (`automationTasks`, on by default, #378).
    pub automation_tasks: bool,
    /// The scheduler's clock (ms since the epoch): the system's, or tokio's
    /// time in a test on paused time.
    pub schedule_clock: crate::schedules::ScheduleClock,
    /// The zone a scheduled task names none in: the system's.
    pub host_zone: String,
    /// Out-of-app delivery (#355): the transports `config.toml` names.
    pub notify: crate::notify::NotifyConfig,
    /// `modelFor['busy-ack']`: the model busy-send acknowledgments are
    /// written on; the chat's own when unset (#1665).
    pub ack_model: Option<String>,
    /// `[feishu] api`: the Feishu origin a channel connector reaches
    /// (`https://open.feishu.cn` unless config.toml names another, #1266).
    pub feishu_api: String,
    /// Who the edge admits (issue 29): open mode, public names, how long
    /// a sign-in lasts.
    pub edge: crate::edge::EdgeConfig,
    /// The build the binary was stamped with (#374); empty in tests.
    pub build: crate::BuildInfo,
    /// The repository API the About block's `behind` asks (#374): None,
    /// the default, asks nothing (`FLYBOT_UPDATE_CHECK` turns it on; a
    /// test points it at a loopback fake).
    pub update_check: Option<String>,
    /// Uploads' limits, image parts and the OCR route (issue 32, #779).
    pub attachments: crate::attachments::AttachmentConfig,
}

/// What the binary's build script stamped (#374): each value as git or the
/// packager gave it; the About block shows only what reads as one.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BuildInfo {
    pub branch: Option<String>,
    pub commit: Option<String>,
    pub pinned: bool,
}

impl HostConfig {
    pub fn new(home: PathBuf) -> Self {
        HostConfig {
            config_file: home.join("config.toml"),
            home,
            default_model: "mock".to_owned(),
            models: Arc::new(ProviderRegistry::mock_only()),
            opencode: crate::rooms::opencode::launcher::OpenCodeRuntime::located(
                &std::env::current_dir().into_iter().collect::<Vec<_>>(),
            ),
            opencode_budget: flybot_interop::budgets::PROPOSED,
            check_ratio: None,
            compact_deadline_ms: flybot_core::context::COMPACT_DEADLINE_MS,
            automation_tasks: true,
            schedule_clock: crate::schedules::ScheduleClock(Arc::new(flybot_store::system_now_ms)),
            host_zone: crate::schedules::system_zone(),
            notify: crate::notify::NotifyConfig::default(),
            ack_model: None,
            feishu_api: crate::notify::feishu::FEISHU_ORIGIN.to_owned(),
            edge: crate::edge::EdgeConfig::default(),
            build: crate::BuildInfo::default(),
            update_check: None,
            attachments: crate::attachments::AttachmentConfig::default(),
        }
    }
}

/// The host's services, each built once.
struct Inner {
    config: Arc<HostConfig>,
    feed: LiveFeed,
    team: Team,
    board: Board,
    logs: Arc<RoomLogs>,
    sessions: Sessions,
    rounds: Rounds,
    approvals: Approvals,
    usage: Arc<UsageCell>,
    workflows: Workflows,
    drive: Arc<TaskDrive>,
    scheduler: Scheduler,
    memory: crate::memory::Memory,
    busy_acks: crate::busy_ack::BusyAcks,
    secrets: crate::secrets::Secrets,
    connectors: crate::connectors::Connectors,
    channels: crate::channels::Channels,
    social: crate::social::Social,
    search: crate::search::Search,
    /// The owner token's digest (issue 29); none when the home could not
    /// keep one, and then nobody signs in with a token.
    owner_token_hash: Option<String>,
    usage_recorder: UsageRecorder,
    /// The round door's far end, handed to the round driver by `start`.
    round_starts: std::sync::Mutex<Option<crate::rooms::logs::RoundStarts>>,
    /// `start` ran: the followers run once.
    started: std::sync::atomic::AtomicBool,
}

impl Drop for Inner {
    /// The last handle gone: the followers end, as on a stop.
    fn drop(&mut self) {
        self.team.bus().stop();
    }
}

/// What a start picked up (`Host::pick_up`): the Sessions' pickup and the
/// number of room rounds resumed.
pub type PickedUp = (std::io::Result<flybot_agent::session::Pickup>, usize);

/// The running host. Cheap to clone.
#[derive(Clone)]
pub struct Host {
    inner: Arc<Inner>,
}

impl Host {
    /// `new`, `start`, then what a start repairs or restores: the
    /// connectors, a fresh home's first Main Bot (`bootstrap`, so the team
    /// has its Main Bot whatever the first request is), the approvals and
    /// attachment postings a crash left, Bot Social and the external turns.
    /// A home that cannot be written is opened as it is.
    pub async fn open(store: Store, config: HostConfig) -> Host {
        Host::opening(store, config, false).await.0
    }

    /// `open` for `flybot serve`, answering what a writer's start picked up
    /// (`pick_up`; none on a host that only reads: a standby picks up when
    /// it takes over, `lead_once_taken_over`). The pickup comes before Bot
    /// Social starts: a remote line queued before a crash is handed to its
    /// room once the room's run is back (#83).
    pub async fn open_picking_up(store: Store, config: HostConfig) -> (Host, Option<PickedUp>) {
        Host::opening(store, config, true).await
    }

    async fn opening(store: Store, config: HostConfig, pick: bool) -> (Host, Option<PickedUp>) {
        let host = Host::new(store, config);
        host.start();
        host.connectors().restore();
        host.channels().restore();
        let model = host.config().models.default_model();
        if let Err(e) = crate::bootstrap::first_main_bot(host.team(), &model).await {
            tracing::warn!("the first Main Bot could not be made: {}", e.message);
        }
        host.took_over().await;
        let picked = (pick && host.writes()).then(|| host.pick_up());
        // A standby starts Bot Social once it takes over (`takeover`).
        if !host.store().is_standby() {
            host.start_social();
        }
        (host, picked)
    }

    /// Spawns, once, what runs beside the services `new` wired: the live
    /// feed, the round driver, the usage recorder, the scheduler, the
    /// board's and the workflows' followers, search, busy acknowledgments
    /// and the task drive. Must run inside a tokio runtime.
    pub fn start(&self) {
        let inner = &self.inner;
        if inner
            .started
            .swap(true, std::sync::atomic::Ordering::SeqCst)
        {
            return;
        }
        inner.feed.follow(&inner.team);
        if let Some(starts) = flybot_core::sync::lock(&inner.round_starts).take() {
            inner.rounds.clone().drive(starts);
        }
        inner.usage_recorder.clone().start();
        inner.scheduler.start();
        follow_board(&inner.board, &inner.workflows);
        inner.search.start();
        inner.busy_acks.follow_turn_ends();
        inner.drive.follow();
    }

    /// Wires every service, each built in one call from the services it
    /// uses; spawns nothing (`start` does).
    pub fn new(store: Store, config: HostConfig) -> Host {
        let config = Arc::new(config);
        let owner_token_hash = owner_token_hash(&config.home);
        let team = Team::new(store, Bus::default());
        let (logs, round_starts) = RoomLogs::with_rounds(config.home.clone(), team.bus().clone());
        let feed = LiveFeed::with_epoch(&team, flybot_store::engine::team_live_epoch(&config.home));
        let board = Board::new(team.clone(), logs.clone());
        let workflows = Workflows {
            board: board.clone(),
            home: config.home.clone(),
            models: config.models.clone(),
        };
        let waits = Arc::default();
        let book = ScheduleBook::new(
            team.clone(),
            config.schedule_clock.0.clone(),
            &config.host_zone,
            config.automation_tasks,
        );
        let secrets = crate::secrets::Secrets::open(&team, &config.home);
        read_model_keys(&config, &secrets);
        adopt_default_model(&config);
        let connectors = crate::connectors::Connectors::new(&secrets, &config.home);
        // Bot Social hands friends' lines to the Sessions whose team tools
        // reach it: both are made in one call.
        let (sessions, (social, memory)) = Sessions::new_cyclic(config.home.clone(), |weak| {
            let social = crate::social::Social::new(&team, &secrets, weak);
            let env = HostTurns::new(
                &team,
                &config,
                TurnServices {
                    logs: &logs,
                    board: &board,
                    workflows: &workflows,
                    waits: &waits,
                    schedules: &book,
                    secrets: &secrets,
                    connectors: &connectors,
                    social: &social,
                },
            );
            let memory = env.memory.clone();
            (Arc::new(env) as Arc<dyn TurnEnvironment>, (social, memory))
        });
        let channels = crate::channels::Channels::new(
            &team,
            &secrets,
            &sessions,
            &config.home,
            &config.feishu_api,
        );
        let rounds = Rounds::new(&team, &board, &logs, &sessions, &config);
        let (usage, usage_recorder) = usage_ledger(&team, &sessions, &config);
        let scheduler = Scheduler {
            started_at: book.now(),
            out_of_app: Arc::new(crate::notify::OutOfApp::configured(&team, &config.notify)),
            book,
            sessions: sessions.clone(),
            logs: logs.clone(),
            digests: Some(Digests::of(&board, &connectors, &config.home)),
        };
        let search = crate::search::Search::new(config.home.clone(), &team, &sessions, &logs);
        let busy_acks =
            crate::busy_ack::BusyAcks::new(&team, config.models.clone(), config.ack_model.clone());
        Host {
            inner: Arc::new(Inner {
                drive: Arc::new(TaskDrive::new(team.clone(), sessions.clone())),
                approvals: Approvals {
                    team: team.clone(),
                    sessions: sessions.clone(),
                    waits,
                },
                config,
                feed,
                team,
                board,
                logs,
                sessions,
                rounds,
                usage,
                usage_recorder,
                workflows,
                scheduler,
                memory,
                busy_acks,
                secrets,
                connectors,
                channels,
                social,
                search,
                owner_token_hash,
                round_starts: std::sync::Mutex::new(Some(round_starts)),
                started: std::sync::atomic::AtomicBool::new(false),
            }),
        }
    }

    /// The owner token's digest, which a caller's token is checked against.
    pub fn owner_token_hash(&self) -> Option<&str> {
        self.inner.owner_token_hash.as_deref()
    }

    /// The team's store and the event bus.
    pub fn team(&self) -> &Team {
        &self.inner.team
    }

    /// The live stream's numbered events.
    pub fn live_feed(&self) -> &LiveFeed {
        &self.inner.feed
    }

    /// The task board's one write path.
    pub fn board(&self) -> &Board {
        &self.inner.board
    }

    /// The round driver and what a room's member turns use.
    pub fn rounds(&self) -> &Rounds {
        &self.inner.rounds
    }

    /// Tool approvals and held sends.
    pub fn approvals(&self) -> &Approvals {
        &self.inner.approvals
    }

    /// The workflow service.
    pub fn workflows(&self) -> &Workflows {
        &self.inner.workflows
    }

    /// Search across the chats and rooms (issue 31).
    pub fn search(&self) -> &crate::search::Search {
        &self.inner.search
    }

    /// The usage ledger.
    pub(crate) fn usage(&self) -> &UsageCell {
        &self.inner.usage
    }

    /// `rt.noteUsageHarness(sessionId, idOrLabels)` (#874 Step 1): the
    /// Session's later usage rows name this tier; `default` clears it. An
    /// unknown id or bad labels are refused and change nothing.
    pub fn note_usage_harness(
        &self,
        session_id: &str,
        choice: &flybot_core::harness::IdOrLabels,
    ) -> Result<flybot_protocol::HarnessId, ApiError> {
        self.inner.usage.note_usage_harness(session_id, choice)
    }

    /// The agent runtime (`send`, `messages`, `cancel`, and a room's turns).
    pub fn sessions(&self) -> &Sessions {
        &self.inner.sessions
    }

    /// The scheduled tasks and their scheduler (#354).
    pub fn scheduler(&self) -> &Scheduler {
        &self.inner.scheduler
    }

    /// The owner's MCP connectors (#311).
    pub fn connectors(&self) -> &crate::connectors::Connectors {
        &self.inner.connectors
    }

    /// The owner's channel connectors (Feishu, #1266).
    pub fn channels(&self) -> &crate::channels::Channels {
        &self.inner.channels
    }

    /// Bot Social on Matrix (issue 33).
    pub fn social(&self) -> &crate::social::Social {
        &self.inner.social
    }

    /// Inbound shared rooms over Bot Social (issue 34): made from Bot
    /// Social and the room logs, holding nothing of its own.
    pub fn shared_rooms(&self) -> crate::social::shared_rooms::SharedRooms {
        crate::social::shared_rooms::SharedRooms::new(self.social(), &self.inner.logs)
    }

    /// A local room's invite links over Bot Social (issue 34, #852).
    pub fn invite_links(&self) -> crate::social::invite_links::InviteLinks {
        crate::social::invite_links::InviteLinks::new(self.social(), &self.inner.logs)
    }

    /// Face-to-face rooms (issue 34, #83).
    pub fn face_rooms(&self) -> crate::social::face_to_face::FaceRooms {
        crate::social::face_to_face::FaceRooms::new(self.social(), &self.inner.logs)
    }

    /// The keys and connectors the state view lists (#49).
    pub(crate) fn shared_surfaces(&self) -> crate::view_shared::SharedSurfaces<'_> {
        crate::view_shared::SharedSurfaces {
            secrets: &self.inner.secrets,
            connectors: &self.inner.connectors,
            channels: &self.inner.channels,
        }
    }

    /// The owner's saved keys (#545).
    pub fn secrets(&self) -> &crate::secrets::Secrets {
        &self.inner.secrets
    }

    /// The task drive (#1109).
    pub fn task_drive(&self) -> &TaskDrive {
        &self.inner.drive
    }

    /// The room logs and round state.
    pub fn rooms(&self) -> &Arc<RoomLogs> {
        &self.inner.logs
    }

    /// Once, after a start and before new input: the Sessions pick up the
    /// turns and input a crash cut, then each room finishes the round it
    /// was running (reading its cut member turn from that pickup) and
    /// answers the lines that waited. Answers the Sessions' pickup and the
    /// rounds resumed.
    pub fn pick_up(&self) -> PickedUp {
        let pickup = self.inner.sessions.pick_up();
        let starts = self.inner.logs.restore();
        let rounds = starts.len();
        for start in starts {
            self.inner.logs.send_start(start);
        }
        (pickup, rounds)
    }

    /// External room members' processes (#198).
    pub fn externals(&self) -> &Arc<ExternalSeats> {
        self.inner.rounds.externals()
    }

    /// This host saves the team (a standby or a read-only home does not).
    pub fn writes(&self) -> bool {
        self.store().status() == flybot_store::StoreStatus::Writer
    }

    pub fn store(&self) -> &Store {
        self.inner.team.store()
    }

    /// Busy-send acknowledgments (#1584).
    pub(crate) fn busy_acks(&self) -> &crate::busy_ack::BusyAcks {
        &self.inner.busy_acks
    }

    /// The memory service over this host's team and home (one recall
    /// cache for the channel and the turns).
    pub fn memory(&self) -> crate::memory::Memory {
        self.inner.memory.clone()
    }

    pub fn config(&self) -> &HostConfig {
        &self.inner.config
    }

    /// Starts stopping: live streams and followers end, and every external
    /// member's process with them (#198).
    pub fn begin_stop(&self) {
        self.inner.team.bus().stop();
        self.inner.rounds.externals().stop_all();
    }

    /// Resolves once the host has started stopping.
    pub async fn stopped(&self) {
        self.inner.team.bus().stopped().await;
    }

    /// A clean stop: every acknowledged change is already on disk; this
    /// writes the snapshot and releases the home lock.
    pub async fn shut_down(&self) -> Result<(), flybot_store::StoreError> {
        self.inner.team.store().close().await
    }
}

/// The digest of the home's owner token, made on the home's first start
/// (issue 29). A home that cannot keep one fails closed: no token signs in.
fn owner_token_hash(home: &std::path::Path) -> Option<String> {
    match crate::edge::owner_token(home) {
        Ok(token) => Some(crate::ids::secret_hash(&token)),
        Err(e) => {
            tracing::error!("the owner token could not be kept in the home: {e}");
            None
        }
    }
}

/// The usage ledger and the recorder `start` sets following the turns.
fn usage_ledger(
    team: &Team,
    sessions: &Sessions,
    config: &HostConfig,
) -> (Arc<UsageCell>, UsageRecorder) {
    let usage = Arc::new(UsageCell::new(config.home.clone()));
    let recorder = UsageRecorder {
        team: team.clone(),
        sessions: sessions.clone(),
        models: config.models.clone(),
        usage: usage.clone(),
    };
    (usage, recorder)
}

/// A provider whose key was saved from Settings reads it per request.
fn read_model_keys(config: &HostConfig, secrets: &crate::secrets::Secrets) {
    let keys = secrets.clone();
    config
        .models
        .use_secrets(Arc::new(move |name: &str| keys.value(name)));
}

/// The board's and the workflows' followers: questions, the lease clock,
/// pruning and the workflow beat.
fn follow_board(board: &Board, workflows: &Workflows) {
    crate::board::questions::follow(board);
    crate::board::lease_clock::follow(board);
    crate::board::prune::follow(board);
    crate::workflows::beat::follow(workflows);
}

/// The configured default model becomes the registry's live one (issue 31:
/// Settings changes it later with no restart). A name no route has keeps
/// the mock, with a line in the log.
fn adopt_default_model(config: &HostConfig) {
    if let Err(e) = config.models.set_default_model(&config.default_model) {
        tracing::warn!("the default model stays mock: {e}");
    }
}
