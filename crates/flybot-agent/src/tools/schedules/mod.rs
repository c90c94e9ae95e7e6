//! The schedule tools (#354, #628): `schedule_create`, `schedule_list`,
//! `schedule_update` and `schedule_delete` act on the calling Session's
//! tasks only; `bot_schedules` is the read-only Bot-wide list. The host
//! runs them through `ScheduleAccess`; a group room's member turns are
//! given none of them (#1237).

#[cfg(test)]
mod tests;

use super::{BoxFuture, Tool, ToolContext, ToolError, ToolResult};
use flybot_protocol::schedule::Timing;
use flybot_protocol::tool_names;
use schemars::JsonSchema;
use serde::Deserialize;
use std::sync::Arc;

/// `schedule_create` arguments.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CreateArgs {
    /// A short title for the task.
    pub title: String,
    /// What this chat is asked each time the task runs.
    pub prompt: String,
    /// When it runs.
    pub when: Timing,
}

/// `schedule_update` arguments: the task's id and what changes.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UpdateArgs {
    /// The task's id, as `schedule_list` shows it.
    pub id: String,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub prompt: Option<String>,
    /// A new timing; left out keeps it.
    #[serde(default)]
    pub when: Option<Timing>,
}

/// `schedule_delete` arguments.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeleteArgs {
    /// The task's id, as `schedule_list` shows it.
    pub id: String,
}

/// No arguments.
#[derive(Debug, Clone, PartialEq, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NoArgs {}

/// The calling Bot and Session.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScheduleCaller {
    pub bot_id: String,
    pub session_id: String,
}

/// The host as the schedule tools see it; each answers one text for the
/// model, or one sentence it can act on.
pub trait ScheduleAccess: Send + Sync {
    fn create<'a>(
        &'a self,
        caller: ScheduleCaller,
        args: CreateArgs,
    ) -> BoxFuture<'a, Result<String, String>>;
    fn list(&self, caller: ScheduleCaller) -> Result<String, String>;
    fn update<'a>(
        &'a self,
        caller: ScheduleCaller,
        args: UpdateArgs,
    ) -> BoxFuture<'a, Result<String, String>>;
    fn delete<'a>(
        &'a self,
        caller: ScheduleCaller,
        id: String,
    ) -> BoxFuture<'a, Result<String, String>>;
    fn bot_wide(&self, caller: ScheduleCaller) -> Result<String, String>;
}

fn access(ctx: &ToolContext) -> Result<(&Arc<dyn ScheduleAccess>, ScheduleCaller), ToolError> {
    let access = ctx
        .env
        .service::<dyn ScheduleAccess>("Scheduled tasks are not available here.")?;
    let caller = ScheduleCaller {
        bot_id: ctx.bot_id.clone(),
        session_id: ctx.session_id.clone(),
    };
    Ok((access, caller))
}

fn answered(result: Result<String, String>) -> ToolResult {
    result.map_err(ToolError::Refused)
}

pub struct ScheduleCreate;
pub struct ScheduleList;
pub struct ScheduleUpdate;
pub struct ScheduleDelete;
pub struct BotSchedules;

impl Tool for ScheduleCreate {
    type Args = CreateArgs;
    fn name(&self) -> &'static str {
        tool_names::SCHEDULE_CREATE
    }
    fn description(&self) -> &'static str {
        "Schedule a task on this chat: at the time given, this chat is asked the prompt as a scheduled run."
    }
    async fn call(&self, ctx: &ToolContext, args: CreateArgs) -> ToolResult {
        let (access, caller) = access(ctx)?;
        answered(access.create(caller, args).await)
    }
}

impl Tool for ScheduleList {
    type Args = NoArgs;
    fn name(&self) -> &'static str {
        tool_names::SCHEDULE_LIST
    }
    fn description(&self) -> &'static str {
        "List the scheduled tasks of this chat (this Session only; bot_schedules lists the whole Bot's)."
    }
    async fn call(&self, ctx: &ToolContext, _args: NoArgs) -> ToolResult {
        let (access, caller) = access(ctx)?;
        answered(access.list(caller))
    }
}

impl Tool for ScheduleUpdate {
    type Args = UpdateArgs;
    fn name(&self) -> &'static str {
        tool_names::SCHEDULE_UPDATE
    }
    fn description(&self) -> &'static str {
        "Change a scheduled task of this chat: its title, prompt or timing. Its id and next run stay unless the timing changes."
    }
    async fn call(&self, ctx: &ToolContext, args: UpdateArgs) -> ToolResult {
        let (access, caller) = access(ctx)?;
        answered(access.update(caller, args).await)
    }
}

impl Tool for ScheduleDelete {
    type Args = DeleteArgs;
    fn name(&self) -> &'static str {
        tool_names::SCHEDULE_DELETE
    }
    fn description(&self) -> &'static str {
        "Delete a scheduled task of this chat."
    }
    async fn call(&self, ctx: &ToolContext, args: DeleteArgs) -> ToolResult {
        let (access, caller) = access(ctx)?;
        answered(access.delete(caller, args.id).await)
    }
}

impl Tool for BotSchedules {
    type Args = NoArgs;
    fn name(&self) -> &'static str {
        tool_names::BOT_SCHEDULES
    }
    fn description(&self) -> &'static str {
        "List every scheduled task of this Bot, Bot-wide: its own chat and the group chats it sits in. Read-only."
    }
    async fn call(&self, ctx: &ToolContext, _args: NoArgs) -> ToolResult {
        let (access, caller) = access(ctx)?;
        answered(access.bot_wide(caller))
    }
}

/// The five schedule tools.
pub fn schedule_tools() -> Vec<Arc<dyn super::DynTool>> {
    vec![
        Arc::new(ScheduleCreate),
        Arc::new(ScheduleList),
        Arc::new(ScheduleUpdate),
        Arc::new(ScheduleDelete),
        Arc::new(BotSchedules),
    ]
}
