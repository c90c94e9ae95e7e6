//! `track_tasks`, the conversation path (#1058, #1099, #1182, #1205, #1247,
//! #1172, #1720): a Bot records and updates its own cards (their typed
//! contract fields too); the room's task lead
//! records the overall card, assigns subtasks and fills the pull queues;
//! members claim and release items, ask and answer on input waits, and
//! report a decision's comment with `postResult`. The rules are
//! `flybot_core::tasks`; the host runs them through `TaskAccess`.

mod access;
mod args;
mod contract_args;
#[cfg(test)]
mod tests;

pub use access::{CardWrite, QueueItem, TaskAccess, TaskCall, TaskCaller, TaskReply};
pub use args::{CardArg, ColumnArg, PostResultArg, PriorityArg, ReleaseArg, TrackTasksArgs};

use super::{Tool, ToolContext, ToolError, ToolResult};
use flybot_protocol::state::Task;
use flybot_protocol::task::{Column, TaskFields, WaitingFor, column_of};
use flybot_protocol::tool_names;

/// The `track_tasks` tool.
pub struct TrackTasks;

/// One card as the model reads it back.
fn card_line(task: &Task) -> String {
    let f = TaskFields::read(task);
    let column = match column_of(task.status) {
        Column::NotStarted => "not started",
        Column::InProgress => "in progress",
        Column::Done => "done",
    };
    let mut line = format!(
        "{} \"{}\" ({column}, {}%)",
        task.id,
        task.title,
        f.progress.unwrap_or(0)
    );
    if f.waiting_for == Some(WaitingFor::Input) {
        line.push_str(", waiting on an answer: call ask_user for the user, or post one short question in the group only when a person there has to decide");
    }
    line
}

impl Tool for TrackTasks {
    type Args = TrackTasksArgs;

    fn name(&self) -> &'static str {
        tool_names::TRACK_TASKS
    }

    fn description(&self) -> &'static str {
        "Record and update the work the user or a group actually handed you on the task board: your own cards (same title updates the open card), the group's overall card and subtasks for other members (task lead only), queue items, claim/release, ask/answer, and postResult for a decision comment. Continue the unfinished task it names next."
    }

    async fn call(&self, ctx: &ToolContext, args: TrackTasksArgs) -> ToolResult {
        let call = args.into_call()?;
        let access = ctx
            .env
            .service::<dyn TaskAccess>("The task board is not available here.")?;
        let caller = TaskCaller {
            bot_id: ctx.bot_id.clone(),
            session_id: ctx.session_id.clone(),
        };
        let claim = matches!(call, TaskCall::Claim { .. });
        let reply = access
            .track(caller, call)
            .await
            .map_err(ToolError::Refused)?;
        if reply.cards.is_empty() {
            return Ok(if claim {
                "Nothing to claim: no item waits for your role, or you already hold a card in progress.".to_owned()
            } else {
                "Nothing changed.".to_owned()
            });
        }
        let lines: Vec<String> = reply.cards.iter().map(card_line).collect();
        Ok(format!("Board: {}", lines.join("; ")))
    }
}
