//! The A2A participant (issue 37, the contract's slice 5): FlyBot as the
//! client of an A2A agent it starts itself (the official Python SDK,
//! pinned), beside the OpenCode one and behind the same contract: the
//! journal, the envelopes, the projection and `TurnEnd`. The agent card is
//! fetched and checked, turns go out as `SendStreamingMessage`, the record
//! is `GetTask`, a stop is `CancelTask`, an agent's input request is the
//! room's question. `gaps` lists what A2A lacks against the contract.

pub mod card;
pub mod client;
pub mod driver;
pub mod gaps;
pub mod journaled;
pub mod matrix;
pub mod process;
pub mod wire;

pub use card::AgentCard;
pub use client::{A2aClient, A2aError};
pub use driver::A2aSession;
pub use journaled::A2aTask;
pub use process::{AgentProcess, PINNED_SDK, Venv};
pub use wire::PROTOCOL_VERSION;
