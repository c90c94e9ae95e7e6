//! The running FlyBot host: the HTTP channel (`/api/bot/*`), members and
//! owner-scoped access, and the roster endpoints. Only this crate knows HTTP.

mod actor;
pub mod approvals;
pub mod attachments;
pub mod board;
mod bootstrap;
mod busy_ack;
pub mod edge;
pub use busy_ack::ACK_MODEL_KEY;
pub mod channels;
pub mod connectors;
mod endpoints;
pub mod events;
mod host;
mod http;
mod ids;
mod live;
pub mod logging;
pub mod memory;
mod mock_model_server;
pub mod models_settings;
pub mod notify;
pub mod pilot;
pub mod rooms;
pub mod schedules;
pub mod search;
pub mod secrets;
pub mod social;
mod takeover;
pub mod team;
mod turns;
mod view;
mod view_shared;
mod web;
pub mod workflows;

pub use endpoints::endpoint_names;
pub use events::HostEvent;
pub use host::{BuildInfo, Host, HostConfig, PickedUp};
pub use http::{app, read_only_sentence, serve};
pub use logging::init_stderr_logging;
pub use mock_model_server::{mock_model_app, serve_mock_model};
