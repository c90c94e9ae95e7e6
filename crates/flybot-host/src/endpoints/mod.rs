//! The channel's endpoints: one explicit allow-list entry each. An endpoint
//! parses its body into a typed request, checks who may call it, and makes its
//! change through the service it is handed (never the whole host); it
//! answers the record it made or changed. `call` is the allow-list, at the
//! HTTP edge: the only place that picks a handler's services off the host.

mod approvals;
mod auth;
mod body;
mod bots;
mod chat;
mod grants;
mod owner;
mod projects;
mod queue;
mod room_chat;
mod rooms;
mod shared;
mod task_moves;
mod tasks;
mod test_model;
mod usage;
mod workflow_run;
mod workflows;

use crate::actor::Caller;
use crate::host::Host;
use body::parse;
pub use bots::insert_new_bot;
use flybot_protocol::{ApiError, ErrorCode};
pub use owner::{acting_member, ensure_owner};
use serde_json::Value;

/// Runs `endpoint` with `body` for `caller`; `Ok` is the answer without `ok`.
pub async fn call(
    host: &Host,
    caller: &Caller,
    endpoint: &str,
    body: &[u8],
) -> Result<Value, ApiError> {
    let (team, board, wf) = (host.team(), host.board(), host.workflows());
    let (rounds, sessions, logs) = (host.rounds(), host.sessions(), host.rooms());
    match endpoint {
        // Sign-in (#48). Redeeming needs no session: it is how one is made.
        "auth-redeem" => auth::redeem(team, parse(body)?).await,
        "auth-invite" => auth::invite(team, caller.require()?, parse(body)?).await,
        "auth-whoami" => {
            let _: flybot_protocol::channel::Empty = parse(body)?;
            Ok(auth::whoami(team, caller.require()?))
        }
        "auth-revoke" => auth::revoke(team, caller.require()?, parse(body)?).await,
        "auth-revoke-invite" => auth::revoke_invite(team, caller.require()?, parse(body)?).await,
        "auth-remove-member" => auth::remove_member(team, caller.require()?, parse(body)?).await,
        // The roster.
        "create-bot" => {
            bots::create(
                board,
                &host.config().default_model,
                caller.require()?,
                parse(body)?,
            )
            .await
        }
        "update-bot" => bots::update(board, caller.require()?, parse(body)?).await,
        "duplicate-bot" => bots::duplicate(board, caller.require()?, parse(body)?).await,
        "delete-bot" => bots::delete(board, caller.require()?, parse(body)?).await,
        "set-main" => bots::set_main(board, caller.require()?, parse(body)?).await,
        "create-room" => rooms::create(team, caller.require()?, parse(body)?).await,
        "update-room" => rooms::update(team, logs, caller.require()?, parse(body)?).await,
        "delete-room" => rooms::delete(team, caller.require()?, parse(body)?).await,
        "set-grants" => grants::set(team, logs, caller.require()?, parse(body)?).await,
        // Shared, non-isolatable surfaces (#49).
        "set-prefs" => shared::set_prefs(team, caller.require()?, parse(body)?).await,
        "diagnostics" => {
            let _: flybot_protocol::channel::Empty = parse(body)?;
            shared::diagnostics(team, &host.config().home, caller.require()?)
        }
        // Workflows as data (#1272, #1299).
        "workflows" => workflows::list_or_open(wf, caller.require()?, parse(body)?),
        "workflow-save" => workflows::save(wf, caller.require()?, parse(body)?),
        "workflow-customize" => workflows::customize(wf, caller.require()?, parse(body)?),
        "workflow-set-default" => workflows::set_default(wf, caller.require()?, parse(body)?),
        "workflow-run" => workflow_run::run(wf, caller.require()?, parse(body)?).await,
        "workflow-fact" => workflow_run::record_fact(wf, caller.require()?, parse(body)?).await,
        "workflow-hold" => workflow_run::hold(wf, caller.require()?, parse(body)?).await,
        // Tasks and the board (#54, #207, #1058, #1154, #1730).
        "projects" => {
            let _: flybot_protocol::channel::Empty = parse(body)?;
            projects::list(board, caller.require()?)
        }
        "project-create" => projects::create(board, caller.require()?, parse(body)?).await,
        "project-read" => projects::read(board, caller.require()?, parse(body)?),
        "project-bind" => projects::bind(board, caller.require()?, parse(body)?).await,
        "project-of" => projects::of(board, caller.require()?, parse(body)?),
        "project-board" => projects::board(board, caller.require()?, parse(body)?),
        "project-delete" => projects::delete(board, caller.require()?, parse(body)?).await,
        "tasks" => tasks::list(board, caller.require()?, parse(body)?),
        "task-create" => tasks::create(board, caller.require()?, parse(body)?).await,
        "task-update" => tasks::update(board, caller.require()?, parse(body)?).await,
        "task-accept" => task_moves::accept(board, caller.require()?, parse(body)?).await,
        "task-start" => task_moves::start(board, caller.require()?, parse(body)?).await,
        "task-return" => task_moves::return_result(board, caller.require()?, parse(body)?).await,
        "task-accept-result" => {
            task_moves::accept_result(board, caller.require()?, parse(body)?).await
        }
        "task-cancel" => task_moves::cancel(board, caller.require()?, parse(body)?).await,
        "task-wait-input" => task_moves::wait_input(board, caller.require()?, parse(body)?).await,
        "task-answer-input" => {
            task_moves::answer_input(board, caller.require()?, parse(body)?).await
        }
        "task-send-back" => task_moves::send_back(board, caller.require()?, parse(body)?).await,
        "task-post-result" => task_moves::post_result(board, caller.require()?, parse(body)?).await,
        // Pull queues, leases and their reads (#1247, #1729, #1730).
        "task-enqueue" => queue::enqueue(board, caller.require()?, parse(body)?).await,
        "task-claim" => queue::claim(board, caller.require()?, parse(body)?).await,
        "task-release" => queue::release(board, caller.require()?, parse(body)?).await,
        "task-expire-leases" => {
            let _: flybot_protocol::channel::Empty = parse(body)?;
            queue::expire_leases(board, caller.require()?).await
        }
        "task-lease" => queue::lease(board, caller.require()?, parse(body)?),
        "task-audit" => queue::audit(board, caller.require()?, parse(body)?),
        "task-counters" => queue::counters(board, caller.require()?, parse(body)?),
        // Test connection (#409): one real request on the Bot's route.
        "test-model" => {
            test_model::test_model(team, &host.config().models, caller.require()?, parse(body)?)
                .await
        }
        // A Bot's own chat: the agent runtime (#642, #1509).
        // A room's channel (issue 5): the same names with a roomId.
        "send" if room_chat::names_room(body) => {
            room_chat::send(rounds, caller.require()?, parse(body)?).await
        }
        "messages" if room_chat::names_room(body) => {
            room_chat::messages(rounds, caller.require()?, parse(body)?)
        }
        "send" => chat::send(team, sessions, caller.require()?, parse(body)?).await,
        "messages" => chat::messages(team, sessions, caller.require()?, parse(body)?),
        "cancel" => chat::cancel(team, sessions, caller.require()?, parse(body)?),
        // Tool approvals (#540, #754): the owner answers a waiting turn.
        "approvals" => approvals::list(host.approvals(), caller.require()?, parse(body)?),
        "approval-answer" => {
            approvals::answer(host.approvals(), caller.require()?, parse(body)?).await
        }
        // The usage ledger (#903): rows of the actor's own Bots.
        "usage" => usage::usage(team, host.usage(), caller.require()?, parse(body)?).await,
        "state" => {
            let _: flybot_protocol::channel::Empty = parse(body)?;
            crate::view::state_view(team, sessions, host.config(), caller.require()?).await
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
