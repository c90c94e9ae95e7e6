//! The channel's endpoints: one explicit allow-list entry each. An endpoint
//! parses its body into a typed request, checks who may call it, and makes its
//! change through the service it is handed (never the whole host); it
//! answers the record it made or changed. `call` is the allow-list, at the
//! HTTP edge: the only place that picks a handler's services off the host.

mod access;
mod approvals;
mod body;
mod chat;
mod connectors;
mod host;
mod memory;
mod roster;
mod schedules;
mod tasks;
mod workflow;

use crate::actor::Caller;
use crate::host::Host;
use body::parse;
use flybot_protocol::{ApiError, ErrorCode};
pub use roster::bots::insert_new_bot;
use serde_json::Value;

/// Runs `endpoint` with `body` for `caller`; `Ok` is the answer without `ok`.
/// Each family answers the names it serves and `bot/unknown-endpoint` for
/// the others, so the first family that knows the name answers.
pub async fn call(host: &Host, caller: &Caller, endpoint: &str, body: &[u8]) -> Answer {
    let answer = people(host, caller, endpoint, body).await;
    if !is_unknown(&answer) {
        return answer;
    }
    let answer = work(host, caller, endpoint, body).await;
    if !is_unknown(&answer) {
        return answer;
    }
    let answer = schedules::call(host.scheduler(), caller, endpoint, body).await;
    if !is_unknown(&answer) {
        return answer;
    }
    let answer = connectors::call(host.connectors(), host.channels(), caller, endpoint, body).await;
    if !is_unknown(&answer) {
        return answer;
    }
    conversations(host, caller, endpoint, body).await
}

/// What an endpoint answers.
type Answer = Result<Value, ApiError>;

/// A handler's typed answer as the envelope's fields.
fn typed<T: serde::Serialize>(answer: Result<T, ApiError>) -> Answer {
    answer.and_then(|answer| {
        serde_json::to_value(answer).map_err(|e| {
            ApiError::new(
                ErrorCode::Invalid,
                format!("The answer could not be written as JSON ({e}); try again."),
            )
        })
    })
}

fn is_unknown(answer: &Answer) -> bool {
    matches!(answer, Err(e) if e.code == ErrorCode::UnknownEndpoint)
}

fn unknown(endpoint: &str) -> ApiError {
    ApiError::new(
        ErrorCode::UnknownEndpoint,
        format!(
            "There is no endpoint named {}; check the spelling.",
            printable(endpoint)
        ),
    )
    .with("endpoint", printable(endpoint))
}

/// Sign-in, the roster and the host-wide surfaces.
async fn people(host: &Host, caller: &Caller, endpoint: &str, body: &[u8]) -> Answer {
    let (team, board, logs) = (host.team(), host.board(), host.rooms());
    match endpoint {
        // Sign-in (#48). Redeeming needs no session: it is how one is made.
        "auth-redeem" => typed(access::sign_in::redeem(team, parse(body)?).await),
        "auth-invite" => {
            typed(access::sign_in::invite(team, caller.require()?, parse(body)?).await)
        }
        "auth-whoami" => {
            let _: flybot_protocol::channel::Empty = parse(body)?;
            typed(Ok(access::sign_in::whoami(team, caller.require()?)))
        }
        "auth-revoke" => {
            typed(access::sign_in::revoke(team, caller.require()?, parse(body)?).await)
        }
        "auth-revoke-invite" => {
            typed(access::sign_in::revoke_invite(team, caller.require()?, parse(body)?).await)
        }
        "auth-remove-member" => {
            typed(access::sign_in::remove_member(team, caller.require()?, parse(body)?).await)
        }
        // The roster.
        "create-bot" => {
            let config = host.config();
            typed(roster::bots::create(board, config, caller.require()?, parse(body)?).await)
        }
        "update-bot" => {
            let models = &host.config().models;
            typed(roster::bots::update(board, models, caller.require()?, parse(body)?).await)
        }
        "duplicate-bot" => {
            typed(roster::bots::duplicate(board, caller.require()?, parse(body)?).await)
        }
        "delete-bot" => {
            let memory = host.memory();
            typed(roster::bots::delete(board, &memory, caller.require()?, parse(body)?).await)
        }
        "retire-bot" => typed(roster::bots::retire(board, caller.require()?, parse(body)?).await),
        "set-main" => typed(roster::bots::set_main(board, caller.require()?, parse(body)?).await),
        "create-room" => typed(roster::rooms::create(team, caller.require()?, parse(body)?).await),
        "update-room" => {
            typed(roster::rooms::update(team, logs, caller.require()?, parse(body)?).await)
        }
        "delete-room" => typed(roster::rooms::delete(team, caller.require()?, parse(body)?).await),
        "set-grants" => {
            typed(access::grants::set(team, logs, caller.require()?, parse(body)?).await)
        }
        // Shared, non-isolatable surfaces (#49).
        "set-prefs" => typed(host::prefs::set_prefs(team, caller.require()?, parse(body)?).await),
        "diagnostics" => {
            let _: flybot_protocol::channel::Empty = parse(body)?;
            typed(host::prefs::diagnostics(
                team,
                &host.config().home,
                caller.require()?,
            ))
        }
        _ => Err(unknown(endpoint)),
    }
}

/// The task board, projects, queues and workflows.
async fn work(host: &Host, caller: &Caller, endpoint: &str, body: &[u8]) -> Answer {
    let (board, wf) = (host.board(), host.workflows());
    match endpoint {
        // Workflows as data (#1272, #1299).
        "workflows" => typed(workflow::library::list_or_open(
            wf,
            caller.require()?,
            parse(body)?,
        )),
        "workflow-save" => typed(workflow::library::save(wf, caller.require()?, parse(body)?)),
        "workflow-customize" => typed(workflow::library::customize(
            wf,
            caller.require()?,
            parse(body)?,
        )),
        "workflow-set-default" => typed(workflow::library::set_default(
            wf,
            caller.require()?,
            parse(body)?,
        )),
        "workflow-run" => typed(workflow::jobs::run(wf, caller.require()?, parse(body)?).await),
        "workflow-fact" => {
            typed(workflow::jobs::record_fact(wf, caller.require()?, parse(body)?).await)
        }
        "workflow-hold" => typed(workflow::jobs::hold(wf, caller.require()?, parse(body)?).await),
        // Tasks and the board (#54, #207, #1058, #1154, #1730).
        "projects" => {
            let _: flybot_protocol::channel::Empty = parse(body)?;
            typed(tasks::projects::list(board, caller.require()?))
        }
        "project-create" => {
            typed(tasks::projects::create(board, caller.require()?, parse(body)?).await)
        }
        "project-read" => typed(tasks::projects::read(
            board,
            caller.require()?,
            parse(body)?,
        )),
        "project-bind" => {
            typed(tasks::projects::bind(board, caller.require()?, parse(body)?).await)
        }
        "project-of" => typed(tasks::projects::of(board, caller.require()?, parse(body)?)),
        "project-board" => typed(tasks::projects::board(
            board,
            caller.require()?,
            parse(body)?,
        )),
        "project-delete" => {
            typed(tasks::projects::delete(board, caller.require()?, parse(body)?).await)
        }
        "tasks" => typed(tasks::board::list(board, caller.require()?, parse(body)?)),
        "task-create" => typed(tasks::board::create(board, caller.require()?, parse(body)?).await),
        "task-update" => typed(tasks::board::update(board, caller.require()?, parse(body)?).await),
        "task-accept" => typed(tasks::moves::accept(board, caller.require()?, parse(body)?).await),
        "task-start" => typed(tasks::moves::start(board, caller.require()?, parse(body)?).await),
        "task-return" => {
            typed(tasks::moves::return_result(board, caller.require()?, parse(body)?).await)
        }
        "task-accept-result" => {
            typed(tasks::moves::accept_result(board, caller.require()?, parse(body)?).await)
        }
        "task-cancel" => typed(tasks::moves::cancel(board, caller.require()?, parse(body)?).await),
        "task-recovery-decide" => {
            typed(tasks::recovery::decide(host.rounds(), caller.require()?, parse(body)?).await)
        }
        "task-wait-input" => {
            typed(tasks::moves::wait_input(board, caller.require()?, parse(body)?).await)
        }
        "task-answer-input" => {
            typed(tasks::moves::answer_input(board, caller.require()?, parse(body)?).await)
        }
        "task-send-back" => {
            typed(tasks::moves::send_back(board, caller.require()?, parse(body)?).await)
        }
        "task-post-result" => {
            typed(tasks::moves::post_result(board, caller.require()?, parse(body)?).await)
        }
        // Pull queues, leases and their reads (#1247, #1729, #1730).
        "task-enqueue" => {
            typed(tasks::queue::enqueue(board, caller.require()?, parse(body)?).await)
        }
        "task-claim" => typed(tasks::queue::claim(board, caller.require()?, parse(body)?).await),
        "task-release" => {
            typed(tasks::queue::release(board, caller.require()?, parse(body)?).await)
        }
        "task-expire-leases" => {
            let _: flybot_protocol::channel::Empty = parse(body)?;
            typed(tasks::queue::expire_leases(board, caller.require()?).await)
        }
        "task-lease" => typed(tasks::queue::lease(board, caller.require()?, parse(body)?)),
        "task-audit" => typed(tasks::queue::audit(board, caller.require()?, parse(body)?)),
        "task-counters" => typed(tasks::queue::counters(
            board,
            caller.require()?,
            parse(body)?,
        )),
        _ => Err(unknown(endpoint)),
    }
}

/// Chat, rooms' channels, approvals, usage and the state view.
async fn conversations(host: &Host, caller: &Caller, endpoint: &str, body: &[u8]) -> Answer {
    let (team, rounds, sessions) = (host.team(), host.rounds(), host.sessions());
    match endpoint {
        // Test connection (#409): one real request on the Bot's route.
        "test-model" => typed(
            host::test_model::test_model(
                team,
                &host.config().models,
                caller.require()?,
                parse(body)?,
            )
            .await,
        ),
        // A Bot's own chat: the agent runtime (#642, #1509).
        // A room's channel (issue 5): the same names with a roomId.
        "send" if chat::room_chat::names_room(body) => typed(
            chat::room_chat::send(rounds, host.busy_acks(), caller.require()?, parse(body)?).await,
        ),
        "messages" if chat::room_chat::names_room(body) => typed(chat::room_chat::messages(
            rounds,
            caller.require()?,
            parse(body)?,
        )),
        "room-stop" => typed(chat::room_stop::stop(
            rounds,
            caller.require()?,
            parse(body)?,
        )),
        "send" => typed(
            chat::own_chat::send(
                team,
                sessions,
                host.busy_acks(),
                caller.require()?,
                parse(body)?,
            )
            .await,
        ),
        "messages" => typed(chat::own_chat::messages(
            team,
            sessions,
            caller.require()?,
            parse(body)?,
        )),
        "cancel" => typed(chat::own_chat::cancel(
            team,
            sessions,
            caller.require()?,
            parse(body)?,
        )),
        // Tool approvals (#540, #754): the owner answers a waiting turn.
        "approvals" => typed(approvals::list(
            host.approvals(),
            caller.require()?,
            parse(body)?,
        )),
        "approval-answer" => {
            typed(approvals::answer(host.approvals(), caller.require()?, parse(body)?).await)
        }
        "standing-approval-remove" => typed(
            approvals::remove_standing(host.approvals(), caller.require()?, parse(body)?).await,
        ),
        // A Bot's memory, for its owner (#450, #638).
        "memory" => typed(memory::read(
            &host.memory(),
            caller.require()?,
            parse(body)?,
        )),
        "memory-append" => {
            typed(memory::append(&host.memory(), caller.require()?, parse(body)?).await)
        }
        "memory-edit" => typed(memory::edit(&host.memory(), caller.require()?, parse(body)?).await),
        "memory-delete" => {
            typed(memory::delete(&host.memory(), caller.require()?, parse(body)?).await)
        }
        "memory-pin" => typed(memory::pin(&host.memory(), caller.require()?, parse(body)?).await),
        // The usage ledger (#903): rows of the actor's own Bots.
        "usage" => {
            typed(host::usage::usage(team, host.usage(), caller.require()?, parse(body)?).await)
        }
        "state" => {
            let _: flybot_protocol::channel::Empty = parse(body)?;
            crate::view::state_view(
                team,
                sessions,
                host.rooms(),
                host.config(),
                caller.require()?,
                host.shared_surfaces(),
            )
            .await
        }
        _ => Err(unknown(endpoint)),
    }
}

/// An endpoint name as it may be echoed back: short and printable.
fn printable(name: &str) -> String {
    name.chars().filter(|c| !c.is_control()).take(64).collect()
}
