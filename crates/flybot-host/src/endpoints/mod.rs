//! The channel's endpoints: one explicit allow-list entry each. An endpoint
//! parses its body into a typed request, checks who may call it, and makes its
//! change through `Host::mutate`; it answers the record it made or changed.

mod approvals;
mod auth;
mod body;
mod bots;
mod chat;
mod grants;
mod owner;
mod projects;
mod queue;
pub(crate) mod room_chat;
mod rooms;
mod shared;
mod task_moves;
mod tasks;
mod test_model;
mod usage;
mod workflow_authors;
pub(crate) mod workflow_beat;
mod workflow_job;
mod workflow_run;
mod workflow_run_bot;
pub(crate) mod workflow_tools;
mod workflows;

use crate::actor::Caller;
use crate::host::Host;
use body::parse;
pub use bots::insert_new_bot;
use flybot_protocol::{ApiError, ErrorCode};
pub use owner::ensure_owner;
use serde_json::Value;

/// Runs `endpoint` with `body` for `caller`; `Ok` is the answer without `ok`.
pub async fn call(
    host: &Host,
    caller: &Caller,
    endpoint: &str,
    body: &[u8],
) -> Result<Value, ApiError> {
    match endpoint {
        // Sign-in (#48). Redeeming needs no session: it is how one is made.
        "auth-redeem" => auth::redeem(host, parse(body)?).await,
        "auth-invite" => auth::invite(host, caller.require()?, parse(body)?).await,
        "auth-whoami" => {
            let _: flybot_protocol::channel::Empty = parse(body)?;
            Ok(auth::whoami(host, caller.require()?))
        }
        "auth-revoke" => auth::revoke(host, caller.require()?, parse(body)?).await,
        "auth-revoke-invite" => auth::revoke_invite(host, caller.require()?, parse(body)?).await,
        "auth-remove-member" => auth::remove_member(host, caller.require()?, parse(body)?).await,
        // The roster.
        "create-bot" => bots::create(host, caller.require()?, parse(body)?).await,
        "update-bot" => bots::update(host, caller.require()?, parse(body)?).await,
        "duplicate-bot" => bots::duplicate(host, caller.require()?, parse(body)?).await,
        "delete-bot" => bots::delete(host, caller.require()?, parse(body)?).await,
        "set-main" => bots::set_main(host, caller.require()?, parse(body)?).await,
        "create-room" => rooms::create(host, caller.require()?, parse(body)?).await,
        "update-room" => rooms::update(host, caller.require()?, parse(body)?).await,
        "delete-room" => rooms::delete(host, caller.require()?, parse(body)?).await,
        "set-grants" => grants::set(host, caller.require()?, parse(body)?).await,
        // Shared, non-isolatable surfaces (#49).
        "set-prefs" => shared::set_prefs(host, caller.require()?, parse(body)?).await,
        "diagnostics" => {
            let _: flybot_protocol::channel::Empty = parse(body)?;
            shared::diagnostics(host, caller.require()?)
        }
        // Workflows as data (#1272, #1299).
        "workflows" => workflows::list_or_open(host, caller.require()?, parse(body)?),
        "workflow-save" => workflows::save(host, caller.require()?, parse(body)?),
        "workflow-customize" => workflows::customize(host, caller.require()?, parse(body)?),
        "workflow-set-default" => workflows::set_default(host, caller.require()?, parse(body)?),
        "workflow-run" => workflow_run::run(host, caller.require()?, parse(body)?).await,
        "workflow-fact" => workflow_run::record_fact(host, caller.require()?, parse(body)?).await,
        "workflow-hold" => workflow_run::hold(host, caller.require()?, parse(body)?).await,
        // Tasks and the board (#54, #207, #1058, #1154, #1730).
        "projects" => {
            let _: flybot_protocol::channel::Empty = parse(body)?;
            projects::list(host, caller.require()?)
        }
        "project-create" => projects::create(host, caller.require()?, parse(body)?).await,
        "project-read" => projects::read(host, caller.require()?, parse(body)?),
        "project-bind" => projects::bind(host, caller.require()?, parse(body)?).await,
        "project-of" => projects::of(host, caller.require()?, parse(body)?),
        "project-board" => projects::board(host, caller.require()?, parse(body)?),
        "project-delete" => projects::delete(host, caller.require()?, parse(body)?).await,
        "tasks" => tasks::list(host, caller.require()?, parse(body)?),
        "task-create" => tasks::create(host, caller.require()?, parse(body)?).await,
        "task-update" => tasks::update(host, caller.require()?, parse(body)?).await,
        "task-accept" => task_moves::accept(host, caller.require()?, parse(body)?).await,
        "task-start" => task_moves::start(host, caller.require()?, parse(body)?).await,
        "task-return" => task_moves::return_result(host, caller.require()?, parse(body)?).await,
        "task-accept-result" => {
            task_moves::accept_result(host, caller.require()?, parse(body)?).await
        }
        "task-cancel" => task_moves::cancel(host, caller.require()?, parse(body)?).await,
        "task-wait-input" => task_moves::wait_input(host, caller.require()?, parse(body)?).await,
        "task-answer-input" => {
            task_moves::answer_input(host, caller.require()?, parse(body)?).await
        }
        "task-send-back" => task_moves::send_back(host, caller.require()?, parse(body)?).await,
        "task-post-result" => task_moves::post_result(host, caller.require()?, parse(body)?).await,
        // Pull queues, leases and their reads (#1247, #1729, #1730).
        "task-enqueue" => queue::enqueue(host, caller.require()?, parse(body)?).await,
        "task-claim" => queue::claim(host, caller.require()?, parse(body)?).await,
        "task-release" => queue::release(host, caller.require()?, parse(body)?).await,
        "task-expire-leases" => {
            let _: flybot_protocol::channel::Empty = parse(body)?;
            queue::expire_leases(host, caller.require()?).await
        }
        "task-lease" => queue::lease(host, caller.require()?, parse(body)?),
        "task-audit" => queue::audit(host, caller.require()?, parse(body)?),
        "task-counters" => queue::counters(host, caller.require()?, parse(body)?),
        // Test connection (#409): one real request on the Bot's route.
        "test-model" => test_model::test_model(host, caller.require()?, parse(body)?).await,
        // A Bot's own chat: the agent runtime (#642, #1509).
        // A room's channel (issue 5): the same names with a roomId.
        "send" if room_chat::names_room(body) => {
            room_chat::send(host, caller.require()?, parse(body)?).await
        }
        "messages" if room_chat::names_room(body) => {
            room_chat::messages(host, caller.require()?, parse(body)?)
        }
        "send" => chat::send(host, caller.require()?, parse(body)?).await,
        "messages" => chat::messages(host, caller.require()?, parse(body)?),
        "cancel" => chat::cancel(host, caller.require()?, parse(body)?),
        // Tool approvals (#540, #754): the owner answers a waiting turn.
        "approvals" => approvals::list(host, caller.require()?, parse(body)?),
        "approval-answer" => approvals::answer(host, caller.require()?, parse(body)?).await,
        // The usage ledger (#903): rows of the actor's own Bots.
        "usage" => usage::usage(host, caller.require()?, parse(body)?).await,
        "state" => {
            let _: flybot_protocol::channel::Empty = parse(body)?;
            crate::view::state_view(host, caller.require()?).await
        }
        _ => Err(ApiError::new(
            ErrorCode::UnknownEndpoint,
            format!(
                "There is no endpoint named {}; check the spelling.",
                printable(endpoint)
            ),
        )
        .with("endpoint", printable(endpoint))),
    }
}

/// An endpoint name as it may be echoed back: short and printable.
fn printable(name: &str) -> String {
    name.chars().filter(|c| !c.is_control()).take(64).collect()
}
