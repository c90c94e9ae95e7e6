//! The test kit: a real host on a temporary home, driven through its real
//! channel (the axum router, no socket), on the mock model or a scripted
//! one, with awaits on the host's events instead of sleeps. A scenario is a
//! few lines:
//!
//! ```ignore
//! let kit = Kit::scripted(json!([{"reply": {"text": "looked"}}])).await;
//! let ada = kit.bot("Ada").await;
//! let bo = kit.bot("Bo").await;
//! let room = kit.room("Build", &[&ada, &bo]).await;
//! kit.ok("send", json!({"roomId": room.id, "text": "@Bo look"})).await;
//! kit.round_ended(&room).await;
//! assert_eq!(kit.said(&room, &bo), ["looked"]);
//! ```
//!
//! Used as a dev-dependency only. A step that fails here fails the test, so
//! the kit unwraps and panics with a message the way a test does.
#![allow(clippy::unwrap_used, clippy::expect_used)]

pub mod api_fake;
mod cards;
mod channel;
mod clock;
mod live;
pub mod llama_server;
mod loopback;
pub mod mock_server;
pub mod picture;
mod ports;
mod roster;
pub mod sse_server;
pub mod synapse;
mod synapse_shared;
mod transcript;
mod waits;

pub use cards::{STATUSES, move_body};
pub use channel::{Caller, Member};
pub use clock::{ClockHold, ManualClock, hold_clock};
pub use live::{Live, LiveEvent};
pub use roster::{Bot, Room};
pub use waits::{Events, LIMIT, within, within_for};

use flybot_agent::model::config::ProviderRegistry;
use flybot_agent::model::mock::{MockModel, Scenario};
use flybot_host::{Host, HostConfig};
use flybot_store::{Store, StoreOptions};
use serde_json::Value;
use std::path::Path;
use std::sync::Arc;
use std::time::Duration;
use tempfile::TempDir;

/// A running host on its own temporary home, removed when the kit drops.
pub struct Kit {
    /// The host itself, for what a test cannot reach through the channel
    /// (the store, the Sessions, the room logs, the task drive).
    pub host: Host,
    home: TempDir,
    /// How long any one wait may take (`LIMIT` unless `patient`).
    limit: Duration,
    /// The home's owner token (issue 29), which `anyone()` calls with.
    owner_token: String,
    /// The host's HTTP app, built once: a call clones it (issue 38: built
    /// for every call, the router took half the CPU of a channel test).
    router: axum::Router,
}

impl Kit {
    /// A host on the offline mock model.
    pub async fn new() -> Kit {
        Kit::with_config(|_| {}).await
    }

    /// A host whose mock model follows `scenario` (the scenario format of
    /// README.md, "The mock model").
    pub async fn scripted(scenario: Value) -> Kit {
        let models = scripted_models(&scenario.to_string());
        Kit::with_config(|config| config.models = models).await
    }

    /// A host whose config `adjust` changes first (its models, its OpenCode).
    pub async fn with_config(adjust: impl FnOnce(&mut HostConfig)) -> Kit {
        let home = tempfile::tempdir().unwrap();
        let store = Store::open(home.path(), StoreOptions::default()).unwrap();
        let mut config = HostConfig::new(home.path().to_owned());
        adjust(&mut config);
        Kit::around(Host::open(store, config).await, home)
    }

    /// A host on the offline mock whose store stamps changes with tokio's
    /// clock (the wall clock at start plus tokio's elapsed time), so a test
    /// on a paused clock moves the time the board's rules see (leases).
    pub async fn on_tokio_clock() -> Kit {
        let home = tempfile::tempdir().unwrap();
        let base = flybot_store::system_now_ms();
        let start = tokio::time::Instant::now();
        let clock: flybot_store::Clock =
            Arc::new(move || base + start.elapsed().as_millis() as u64);
        let options = StoreOptions {
            clock,
            ..StoreOptions::default()
        };
        let store = Store::open(home.path(), options).unwrap();
        let config = HostConfig::new(home.path().to_owned());
        Kit::around(Host::open(store, config).await, home)
    }

    /// Lets every wait of this kit take up to `limit` (a real OpenCode on a
    /// busy machine is slower than the 30 s a mock needs at most).
    pub fn patient(mut self, limit: Duration) -> Kit {
        self.limit = limit;
        self
    }

    /// A kit around a host something else built on `home` (the pilot
    /// builds its own), so a test reaches it through the same channel.
    pub fn around(host: Host, home: TempDir) -> Kit {
        let owner_token = owner_token(&host.config().home);
        let router = flybot_host::app(host.clone());
        Kit {
            router,
            host,
            home,
            limit: LIMIT,
            owner_token,
        }
    }

    /// The host's HTTP app, as `flybot serve` serves it, for one `oneshot`.
    pub fn router(&self) -> axum::Router {
        self.router.clone()
    }

    /// The home folder.
    pub fn home(&self) -> &Path {
        self.home.path()
    }

    /// Stops this host cleanly and opens a second one on the same home, as
    /// a restart would (on the default config).
    pub async fn restart(self) -> Kit {
        self.restart_with(|_| {}).await
    }

    /// `restart`, with the second host's config changed by `adjust` first.
    pub async fn restart_with(self, adjust: impl FnOnce(&mut HostConfig)) -> Kit {
        self.host.begin_stop();
        self.host.shut_down().await.unwrap();
        let store = Store::open(self.home(), StoreOptions::default()).unwrap();
        let mut config = HostConfig::new(self.home().to_owned());
        adjust(&mut config);
        let limit = self.limit;
        Kit::around(Host::open(store, config).await, self.home).patient(limit)
    }

    /// The home's owner token, as `flybot token` prints it.
    pub fn owner_token(&self) -> &str {
        &self.owner_token
    }
}

/// The owner token the host made in its home when it opened.
fn owner_token(home: &Path) -> String {
    flybot_store::owner_token::read(home)
        .unwrap()
        .expect("the host makes its owner token when it opens")
}

/// A model registry of only the mock, following `scenario` (JSON text).
pub fn scripted_models(scenario: &str) -> Arc<ProviderRegistry> {
    let scenario = Scenario::from_json(scenario).unwrap();
    Arc::new(ProviderRegistry::with_mock(MockModel::with_scenario(
        scenario,
    )))
}
