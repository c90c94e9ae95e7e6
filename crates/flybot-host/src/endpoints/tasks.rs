//! The task board's endpoints (#54, #1058): `tasks`, `task-create` and
//! `task-update`, plus the one path every task write takes: run a pure rule
//! of `flybot_core::tasks` inside `Host::mutate`, put the records it answers,
//! then apply its worker effects once they are on disk.

use super::owner::{acting_member, journal_actor};
use crate::host::{Host, HostEvent};
use crate::ids::new_id;
use flybot_core::access::Actor;
use flybot_core::tasks::{Outcome, create, read};
use flybot_protocol::ApiError;
use flybot_protocol::state::TeamState;
use flybot_protocol::task_requests::{TaskCreate, TaskUpdate, TasksRead};
use serde_json::{Value, json};

/// Runs `rule` on the team as one change; a refusal writes nothing.
pub async fn run_rule(
    host: &Host,
    actor: &Actor,
    rule: impl FnOnce(&TeamState, u64) -> Result<Outcome, ApiError>,
) -> Result<Outcome, ApiError> {
    let out = host
        .mutate(journal_actor(actor), |change| {
            let out = rule(change.state(), change.now_ms())?;
            for task in &out.writes {
                change.put_task(task);
            }
            Ok(out)
        })
        .await?;
    host.apply_task_effects(&out.effects);
    announce(host, &out);
    Ok(out)
}

/// Tells listeners which cards a committed change wrote.
pub fn announce(host: &Host, out: &Outcome) {
    if !out.writes.is_empty() {
        host.emit(HostEvent::TasksWritten {
            task_ids: out.writes.iter().map(|t| t.id.clone()).collect(),
        });
    }
}

/// `{"task": <the record>}`, or `{"task": null}` when a rule took nothing.
pub fn answer(out: &Outcome) -> Value {
    json!({"task": out.answer})
}

/// The name a decision comment carries: the acting member's (#1172).
pub fn decider_name(state: &TeamState, actor: &Actor) -> String {
    actor
        .member_id(state)
        .and_then(|id| state.members.get(&id))
        .map_or_else(|| "the owner".to_owned(), |m| m.name.clone())
}

/// `tasks {archive?, limit?, botId?, roomId?}` → `{tasks: [rows]}`.
pub fn list(host: &Host, actor: &Actor, req: TasksRead) -> Result<Value, ApiError> {
    host.store()
        .read(|state| read::list(state, actor, &req))
        .map(|rows| json!({"tasks": rows}))
}

/// `task-create {botId, title, ...}` → `{task}`; the requester is the
/// signed-in member or the single owner.
pub async fn create(host: &Host, actor: &Actor, req: TaskCreate) -> Result<Value, ApiError> {
    let id = new_id("task");
    let task = host
        .mutate(journal_actor(actor), |change| {
            // A refusal rolls the whole change back, the owner record included.
            let requester = acting_member(change, actor);
            let out = create::create(
                change.state(),
                actor,
                &requester,
                &req,
                &id,
                change.now_ms(),
            )?;
            for task in &out.writes {
                change.put_task(task);
            }
            Ok(out)
        })
        .await?;
    announce(host, &task);
    Ok(answer(&task))
}

/// `task-update {id, priority?, progress?, note?, column?, ...contract}`.
pub async fn update(host: &Host, actor: &Actor, req: TaskUpdate) -> Result<Value, ApiError> {
    let out = run_rule(host, actor, |state, now| {
        let decider = decider_name(state, actor);
        flybot_core::tasks::board::update(state, actor, &req, &decider, now)
    })
    .await?;
    Ok(answer(&out))
}
