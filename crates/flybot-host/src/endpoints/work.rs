//! The route table of the task board, projects, queues and workflows.

use super::body::parse;
use super::extract::route_table;
use super::{tasks, typed, workflow};
use flybot_protocol::channel::Empty;

route_table! {
    // Workflows as data (#1272, #1299).
    "workflows" => |host, caller, body| {
        typed(workflow::library::list_or_open(host.workflows(), caller.require()?, parse(body)?))
    };
    "workflow-save" => |host, caller, body| {
        typed(workflow::library::save(host.workflows(), caller.require()?, parse(body)?))
    };
    "workflow-customize" => |host, caller, body| {
        typed(workflow::library::customize(host.workflows(), caller.require()?, parse(body)?))
    };
    "workflow-set-default" => |host, caller, body| {
        typed(workflow::library::set_default(host.workflows(), caller.require()?, parse(body)?))
    };
    "workflow-run" => |host, caller, body| {
        typed(workflow::jobs::run(host.workflows(), caller.require()?, parse(body)?).await)
    };
    "workflow-fact" => |host, caller, body| {
        typed(workflow::jobs::record_fact(host.workflows(), caller.require()?, parse(body)?).await)
    };
    "workflow-hold" => |host, caller, body| {
        typed(workflow::jobs::hold(host.workflows(), caller.require()?, parse(body)?).await)
    };
    // Tasks and the board (#54, #207, #1058, #1154, #1730).
    "projects" => |host, caller, body| {
        let _: Empty = parse(body)?;
        typed(tasks::projects::list(host.board(), caller.require()?))
    };
    "project-create" => |host, caller, body| {
        let parts = tasks::projects::AssistantParts {
            model: &host.config().default_model,
            book: &host.scheduler().book,
        };
        typed(tasks::projects::create(caller.require()?, parts, parse(body)?).await)
    };
    "project-read" => |host, caller, body| {
        typed(tasks::projects::read(host.board(), caller.require()?, parse(body)?))
    };
    "project-bind" => |host, caller, body| {
        typed(tasks::projects::bind(host.board(), caller.require()?, parse(body)?).await)
    };
    "project-of" => |host, caller, body| {
        typed(tasks::projects::of(host.board(), caller.require()?, parse(body)?))
    };
    "project-board" => |host, caller, body| {
        typed(tasks::projects::board(host.board(), caller.require()?, parse(body)?))
    };
    // The Project Assistant (#1712): memory and the daily digest.
    "project-memory" => |host, caller, body| {
        typed(tasks::project_assistant::memory(host.board(), caller.require()?, parse(body)?))
    };
    "project-memory-write" => |host, caller, body| {
        typed(tasks::project_assistant::memory_write(host.board(), caller.require()?, parse(body)?).await)
    };
    "project-digest" => |host, caller, body| {
        use tasks::project_assistant::{DigestParts, GITHUB_LOGIN};
        let parts = DigestParts {
            account: host.connectors().ready_env(flybot_core::connectors::GITHUB, GITHUB_LOGIN),
            out_of_app: &host.scheduler().out_of_app,
            now: (host.config().schedule_clock.0)(),
            sessions: host.sessions(),
            home: &host.config().home,
        };
        typed(tasks::project_assistant::digest(host.board(), caller.require()?, parts, parse(body)?).await)
    };
    "project-delete" => |host, caller, body| {
        typed(tasks::projects::delete(host.board(), caller.require()?, parse(body)?).await)
    };
    "tasks" => |host, caller, body| {
        typed(tasks::board::list(host.board(), caller.require()?, parse(body)?))
    };
    "task-create" => |host, caller, body| {
        typed(tasks::board::create(host.board(), caller.require()?, parse(body)?).await)
    };
    "task-update" => |host, caller, body| {
        typed(tasks::board::update(host.board(), caller.require()?, parse(body)?).await)
    };
    "task-accept" => |host, caller, body| {
        typed(tasks::moves::accept(host.board(), caller.require()?, parse(body)?).await)
    };
    "task-start" => |host, caller, body| {
        typed(tasks::moves::start(host.board(), caller.require()?, parse(body)?).await)
    };
    "task-return" => |host, caller, body| {
        typed(tasks::moves::return_result(host.board(), caller.require()?, parse(body)?).await)
    };
    "task-accept-result" => |host, caller, body| {
        typed(tasks::moves::accept_result(host.board(), caller.require()?, parse(body)?).await)
    };
    "task-cancel" => |host, caller, body| {
        typed(tasks::moves::cancel(host.board(), caller.require()?, parse(body)?).await)
    };
    "task-archive" => |host, caller, body| {
        typed(tasks::moves::archive(host.board(), caller.require()?, parse(body)?).await)
    };
    "task-recovery-decide" => |host, caller, body| {
        typed(tasks::recovery::decide(host.rounds(), caller.require()?, parse(body)?).await)
    };
    "task-wait-input" => |host, caller, body| {
        typed(tasks::moves::wait_input(host.board(), caller.require()?, parse(body)?).await)
    };
    "task-answer-input" => |host, caller, body| {
        typed(tasks::moves::answer_input(host.board(), caller.require()?, parse(body)?).await)
    };
    "task-send-back" => |host, caller, body| {
        typed(tasks::moves::send_back(host.board(), caller.require()?, parse(body)?).await)
    };
    "task-post-result" => |host, caller, body| {
        typed(tasks::moves::post_result(host.board(), caller.require()?, parse(body)?).await)
    };
    // Pull queues, leases and their reads (#1247, #1729, #1730).
    "task-enqueue" => |host, caller, body| {
        typed(tasks::queue::enqueue(host.board(), caller.require()?, parse(body)?).await)
    };
    "task-claim" => |host, caller, body| {
        typed(tasks::queue::claim(host.board(), caller.require()?, parse(body)?).await)
    };
    "task-release" => |host, caller, body| {
        typed(tasks::queue::release(host.board(), caller.require()?, parse(body)?).await)
    };
    "task-expire-leases" => |host, caller, body| {
        let _: Empty = parse(body)?;
        typed(tasks::queue::expire_leases(host.board(), caller.require()?).await)
    };
    "task-lease" => |host, caller, body| {
        typed(tasks::queue::lease(host.board(), caller.require()?, parse(body)?))
    };
    "task-audit" => |host, caller, body| {
        typed(tasks::queue::audit(host.board(), caller.require()?, parse(body)?))
    };
    "task-counters" => |host, caller, body| {
        typed(tasks::queue::counters(host.board(), caller.require()?, parse(body)?))
    };
}
