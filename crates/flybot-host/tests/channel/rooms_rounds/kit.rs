//! What the room tests share: a host whose mock follows a scenario, and a
//! poll that never lets the paused clock run ahead of the host.

use crate::support::TestHost;
use flybot_agent::model::config::ProviderRegistry;
use flybot_agent::model::mock::{MockModel, Scenario};
use flybot_host::{Host, HostConfig};
use flybot_store::{Store, StoreOptions};
use serde_json::Value;
use std::sync::Arc;
use std::time::Duration;

/// A host on a temporary home whose mock model follows `scenario`.
pub fn host_with(scenario: Value) -> TestHost {
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open(dir.path(), StoreOptions::default()).unwrap();
    let mut config = HostConfig::new(dir.path().to_owned());
    let scenario = Scenario::from_json(&scenario.to_string()).unwrap();
    config.models = Arc::new(ProviderRegistry::with_mock(MockModel::with_scenario(
        scenario,
    )));
    TestHost {
        host: Host::new(store, config),
        dir,
    }
}

/// Polls `done`. A step of the clock waits until every accepted store change
/// is on disk first: the journal writer is a thread, and while a host task
/// awaits it the runtime is idle, so a bare sleep loop let a paused clock run
/// ahead of the host by the disk's real latency.
pub async fn until(t: &TestHost, what: &str, mut done: impl FnMut() -> bool) {
    for _ in 0..2_000 {
        if done() {
            return;
        }
        t.host.store().saves_settled().await;
        if done() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("never: {what}");
}
