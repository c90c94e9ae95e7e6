//! `Host`: the store, the host's configuration and its event bus. Every state
//! change goes through `Host::mutate`, which validates first and writes
//! nothing on refusal (the store rolls a refused change back).

use flybot_agent::model::config::ProviderRegistry;
use flybot_core::sync::lock;
use flybot_core::tasks::Effect;
use flybot_core::tasks::workers::{WorkerPool, WorkerState};
use flybot_protocol::ApiError;
use flybot_store::{Change, Store};
use serde::Serialize;
use std::path::PathBuf;
use std::sync::Arc;
use tokio::sync::{broadcast, watch};

/// What the host was started with.
#[derive(Debug, Clone)]
pub struct HostConfig {
    /// The home folder, shown by `diagnostics`.
    pub home: PathBuf,
    /// The model a new Bot gets when its request names none.
    pub default_model: String,
    /// The models config.toml declares, and `mock`; mock-only by default.
    pub models: Arc<ProviderRegistry>,
    /// The OpenCode an OpenCode Bot runs on (#198): by default the pinned
    /// one found through `$FLYBOT_OPENCODE` or `.tools/opencode` under the
    /// current folder.
    pub opencode: crate::rooms::opencode::launcher::OpenCodeRuntime,
}

impl HostConfig {
    pub fn new(home: PathBuf) -> Self {
        HostConfig {
            home,
            default_model: "mock".to_owned(),
            models: Arc::new(ProviderRegistry::mock_only()),
            opencode: crate::rooms::opencode::launcher::OpenCodeRuntime::located(
                &std::env::current_dir().into_iter().collect::<Vec<_>>(),
            ),
        }
    }
}

/// Something that happened, for the live stream and (later) plugins.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "type")]
pub enum HostEvent {
    /// A Bot was made (create-bot, duplicate-bot, the first Main Bot); never
    /// sent for a run Bot (#645, #1373).
    #[serde(rename = "bot.created", rename_all = "camelCase")]
    BotCreated { bot_id: String, owner_id: String },
    /// A board write changed these cards: the task drive runs after it
    /// (#1109), and a client polling the board may refresh.
    #[serde(rename = "tasks.written", rename_all = "camelCase")]
    TasksWritten { task_ids: Vec<String> },
    /// A Session's work moved (a step, a tool call, a turn's end: #546,
    /// #471, #353), so a client redraws the state view's `work`.
    #[serde(rename = "work", rename_all = "camelCase")]
    Work { session_id: String },
}

struct Inner {
    store: Store,
    config: HostConfig,
    events: broadcast::Sender<HostEvent>,
    /// `HostEvent::Work` only: a busy turn sends many, and they must not
    /// crowd the board's listeners off `events`.
    work_events: broadcast::Sender<HostEvent>,
    /// Claims' isolated workers (#1729): process memory, not team state.
    workers: std::sync::Mutex<WorkerPool>,
    /// Turns true when the host starts stopping, so long-lived answers (the
    /// live stream) end and a graceful shutdown does not wait on them.
    stopping: watch::Sender<bool>,
    /// The agent runtime: every Session's turns, inbox and log.
    sessions: flybot_agent::session::Sessions,
    /// The room logs and each room's round state (issue 5).
    rooms: Arc<crate::rooms::RoomLogs>,
    /// External room members' supervised processes (#198).
    externals: Arc<crate::rooms::external::ExternalSeats>,
    /// What the turns share with the channel: waiting approvals, the usage
    /// ledger, the team tools' host access.
    turn_parts: crate::turns::TurnParts,
    /// The task drive (#1109): wakes each owner's next card.
    drive: crate::board::TaskDrive,
    /// The late link to this host, for the parts that outlive a borrow.
    link: HostLink,
}

/// A late link to the host, for the parts built before it (the turn
/// environment the Sessions run with). Weak: it never keeps a host alive.
#[derive(Clone, Default)]
pub(crate) struct HostLink(Arc<std::sync::OnceLock<std::sync::Weak<Inner>>>);

impl HostLink {
    /// The host, once it is made and while it lives.
    pub(crate) fn host(&self) -> Option<Host> {
        let inner = self.0.get()?.upgrade()?;
        Some(Host { inner })
    }
}

/// The running host. Cheap to clone.
#[derive(Clone)]
pub struct Host {
    inner: Arc<Inner>,
}

impl Host {
    pub fn new(store: Store, config: HostConfig) -> Host {
        let (events, _) = broadcast::channel(256);
        let link = HostLink::default();
        let turn_parts = crate::turns::TurnParts::new(&store, &config, link.clone());
        let sessions = crate::turns::sessions_for(&store, &config, &turn_parts);
        let rooms = crate::rooms::RoomLogs::new(config.home.clone());
        let host = Host {
            inner: Arc::new(Inner {
                events,
                work_events: broadcast::channel(256).0,
                workers: std::sync::Mutex::new(WorkerPool::default()),
                stopping: watch::channel(false).0,
                sessions,
                rooms,
                externals: crate::rooms::external::ExternalSeats::new(),
                turn_parts,
                drive: crate::board::TaskDrive::new(link.clone()),
                link: link.clone(),
                store,
                config,
            }),
        };
        // Set once, here: nothing else can have set it.
        let _ = link.0.set(Arc::downgrade(&host.inner));
        host.inner.turn_parts.open_usage();
        crate::board::drive::listen(&host);
        crate::board::questions::listen(&host);
        crate::endpoints::workflow_beat::listen(&host);
        host
    }

    /// What the turns share with the channel (approvals, usage).
    pub(crate) fn turn_parts(&self) -> &crate::turns::TurnParts {
        &self.inner.turn_parts
    }

    /// The agent runtime (`send`, `messages`, `cancel`, and a room's turns).
    pub fn sessions(&self) -> &flybot_agent::session::Sessions {
        &self.inner.sessions
    }

    /// The task drive (#1109).
    pub fn task_drive(&self) -> &crate::board::TaskDrive {
        &self.inner.drive
    }

    /// A weak link to this host.
    pub(crate) fn link(&self) -> HostLink {
        self.inner.link.clone()
    }

    /// The room logs and round state.
    pub fn rooms(&self) -> &Arc<crate::rooms::RoomLogs> {
        &self.inner.rooms
    }

    /// External room members' processes (#198).
    pub fn externals(&self) -> &Arc<crate::rooms::external::ExternalSeats> {
        &self.inner.externals
    }

    pub fn store(&self) -> &Store {
        &self.inner.store
    }

    pub fn config(&self) -> &HostConfig {
        &self.inner.config
    }

    /// The one writer: runs `f` on the team and answers once the change is on
    /// disk. `actor` is recorded on the journal line.
    pub async fn mutate<T>(
        &self,
        actor: &str,
        f: impl FnOnce(&mut Change<'_>) -> Result<T, ApiError>,
    ) -> Result<T, ApiError> {
        self.inner.store.mutate(actor, f).await
    }

    /// Applies a committed task change's worker effects (#1729).
    pub fn apply_task_effects(&self, effects: &[Effect]) {
        if effects.is_empty() {
            return;
        }
        let mut pool = lock(&self.inner.workers);
        pool.apply(effects);
    }

    /// The state of a claim's worker; an unknown id answers `None`, so one
    /// claim never sees another's files or vars (#1729).
    pub fn task_worker(&self, worker_id: &str) -> Option<WorkerState> {
        let pool = lock(&self.inner.workers);
        pool.get(worker_id).cloned()
    }

    /// Sets one variable of a live worker; answers whether it exists.
    pub fn set_task_worker_var(&self, worker_id: &str, key: &str, value: &str) -> bool {
        let mut pool = lock(&self.inner.workers);
        match pool.get_mut(worker_id) {
            Some(worker) => {
                worker.vars.insert(key.to_owned(), value.to_owned());
                true
            }
            None => false,
        }
    }

    /// Announces an event that a committed change produced.
    pub fn emit(&self, event: HostEvent) {
        // Nobody listening is fine: the event is advisory.
        let bus = match &event {
            HostEvent::Work { .. } => &self.inner.work_events,
            HostEvent::BotCreated { .. } | HostEvent::TasksWritten { .. } => &self.inner.events,
        };
        let _ = bus.send(event);
    }

    pub fn subscribe(&self) -> broadcast::Receiver<HostEvent> {
        self.inner.events.subscribe()
    }

    /// Follows `HostEvent::Work`, kept apart from the other events.
    pub fn subscribe_work(&self) -> broadcast::Receiver<HostEvent> {
        self.inner.work_events.subscribe()
    }

    /// Starts stopping: live streams end so connections can close.
    pub fn begin_stop(&self) {
        self.inner.stopping.send_replace(true);
        // Stopping the host ends every external member's process (#198).
        self.inner.externals.stop_all();
    }

    /// Resolves once the host has started stopping.
    pub async fn stopped(&self) {
        let mut stopping = self.inner.stopping.subscribe();
        // An error means the host is gone, which is a stop too.
        let _ = stopping.wait_for(|stopping| *stopping).await;
    }

    /// `stopped`, owning its host, for streams that outlive a borrow.
    pub async fn stopped_owned(self) {
        self.stopped().await;
    }

    /// A clean stop: every acknowledged change is already on disk; this
    /// writes the snapshot and releases the home lock.
    pub async fn shut_down(&self) -> Result<(), flybot_store::StoreError> {
        self.inner.store.close().await
    }
}
