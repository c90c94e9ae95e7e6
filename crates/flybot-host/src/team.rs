//! `Team`: the team's store and the event bus, the service every other one
//! is built on. Every state change goes through `Team::mutate`, which
//! validates first and writes nothing on refusal (the store rolls a refused
//! change back).

use crate::events::{Bus, HostEvent};
use flybot_protocol::ApiError;
use flybot_protocol::state::TeamState;
use flybot_store::{Change, Store};
use tokio::sync::broadcast;

/// The store and the bus. Cheap to clone.
#[derive(Clone)]
pub struct Team {
    store: Store,
    bus: Bus,
}

impl Team {
    pub fn new(store: Store, bus: Bus) -> Team {
        Team { store, bus }
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    pub fn bus(&self) -> &Bus {
        &self.bus
    }

    /// Reads the team as it is now.
    pub fn read<T>(&self, f: impl FnOnce(&TeamState) -> T) -> T {
        self.store.read(f)
    }

    /// The one writer: runs `f` on the team and answers once the change is on
    /// disk. `actor` is recorded on the journal line.
    pub async fn mutate<T>(
        &self,
        actor: &str,
        f: impl FnOnce(&mut Change<'_>) -> Result<T, ApiError>,
    ) -> Result<T, ApiError> {
        self.store.mutate(actor, f).await
    }

    /// Announces an event that a committed change produced.
    pub fn emit(&self, event: HostEvent) {
        self.bus.emit(event);
    }

    pub fn subscribe(&self) -> broadcast::Receiver<HostEvent> {
        self.bus.subscribe()
    }
}
