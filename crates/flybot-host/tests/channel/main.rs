//! The channel, end to end through the router: sign-in, access, the roster
//! and the edge's refusals. Every refusal is checked to leave the journal,
//! the snapshot, the revision and the team unchanged. Every test sets up
//! and waits through `flybot-testkit`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

mod access;
mod approvals;
mod auth;
mod busy_ack;
mod card_access;
mod chat;
mod connector_access;
mod connector_friends_run;
mod connector_github;
mod connectors;
mod edge;
mod external_members;
mod feishu_app;
mod feishu_webhook;
mod live_stream;
mod memory;
mod model_client;
mod opencode_authority;
mod opencode_budgets;
mod opencode_cancel;
mod opencode_delivery;
mod opencode_isolation;
mod opencode_payload;
mod opencode_publication;
mod opencode_recovery;
mod opencode_room;
mod opencode_room_bounds;
mod opencode_room_messages;
mod opencode_room_real;
mod out_of_app;
mod pilot;
mod pilot_injection;
mod pilot_real_model;
mod projects;
mod provider_wire;
mod real_model;
mod room_stop;
mod rooms_rounds;
mod roster;
mod schedules;
mod secrets;
mod shared_view;
mod task_board;
mod task_contract;
mod task_queue;
mod tasks;
mod team_tools;
mod test_model;
mod web_page;
mod workflow_beat;
mod workflow_run_bots;
mod workflows;
