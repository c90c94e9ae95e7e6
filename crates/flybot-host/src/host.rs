//! `Host`: the store, the host's configuration and its event bus. Every state
//! change goes through `Host::mutate`, which validates first and writes
//! nothing on refusal (the store rolls a refused change back).

use flybot_protocol::ApiError;
use flybot_store::{Change, Store};
use serde::Serialize;
use std::path::PathBuf;
use std::sync::Arc;
use tokio::sync::broadcast;

/// What the host was started with.
#[derive(Debug, Clone)]
pub struct HostConfig {
    /// The home folder, shown by `diagnostics`.
    pub home: PathBuf,
    /// The model a new Bot gets when its request names none.
    pub default_model: String,
}

impl HostConfig {
    pub fn new(home: PathBuf) -> Self {
        HostConfig {
            home,
            default_model: "mock".to_owned(),
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
}

struct Inner {
    store: Store,
    config: HostConfig,
    events: broadcast::Sender<HostEvent>,
}

/// The running host. Cheap to clone.
#[derive(Clone)]
pub struct Host {
    inner: Arc<Inner>,
}

impl Host {
    pub fn new(store: Store, config: HostConfig) -> Host {
        let (events, _) = broadcast::channel(256);
        Host {
            inner: Arc::new(Inner {
                store,
                config,
                events,
            }),
        }
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

    /// Announces an event that a committed change produced.
    pub fn emit(&self, event: HostEvent) {
        // Nobody listening is fine: the event is advisory.
        let _ = self.inner.events.send(event);
    }

    pub fn subscribe(&self) -> broadcast::Receiver<HostEvent> {
        self.inner.events.subscribe()
    }

    /// A clean stop: every acknowledged change is already on disk; this
    /// writes the snapshot and releases the home lock.
    pub async fn shut_down(&self) -> Result<(), flybot_store::StoreError> {
        self.inner.store.close().await
    }
}
