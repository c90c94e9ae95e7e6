//! Run Bots (#1373, #1445, #1544, #1582): a node that names tools (a
//! connector, the shell) is done by a hidden run Bot made when its card
//! opens. It is `run` and `hidden`, in no room and on no team; its turns
//! lose the denied tool list (`turns::mask_for`), `bot.created` is not
//! announced for it, and it records `cappedBy` (the Bot whose call started
//! the run, the Bot that saved the workflow) and its node's tools even while
//! no connector exists. The caller travels in `cappedBy`, never in
//! `createdBy`, so a run Bot never reads as a Bot's child.

use crate::ids::new_id;
use flybot_core::workflow::run_bot::capped_by;
use flybot_protocol::state::{Bot, Task};
use flybot_protocol::workflow::WorkflowNode;
use flybot_store::Change;
use serde_json::Value;

/// The job card's caps, recorded when the job started.
pub const CAPPED_BY: &str = "cappedBy";
/// The node card's run Bot.
pub const RUN_BOT: &str = "runBot";

/// The run Bot's key holding its node's step tools.
pub const STEP_TOOLS: &str = "stepTools";

/// The tools a run Bot's node names (none for any other Bot).
pub fn step_tools(bot: &Bot) -> Vec<String> {
    bot.extra
        .get(STEP_TOOLS)
        .and_then(Value::as_array)
        .map(|tools| {
            tools
                .iter()
                .filter_map(|t| t.as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// The caps a job starts with: the calling Bot, then the saving Bot.
pub fn job_caps(caller_bot: Option<&str>, saved_by_bot: Option<&str>) -> Value {
    Value::from(capped_by(caller_bot, saved_by_bot))
}

/// Makes the run Bot of `card` when its node names tools; answers it.
pub fn open_run_bot(
    change: &mut Change<'_>,
    job: &Task,
    node: &WorkflowNode,
    card: &Task,
    model: &str,
) -> Option<Bot> {
    let tools = node.tools.as_ref().filter(|t| !t.is_empty())?;
    let owner_id = change.state().bots.get(&job.bot_id)?.owner_id.clone();
    let now = change.now_ms();
    let mut bot = Bot::new(
        new_id("bot"),
        format!("{} run {}", node.id, card.id),
        owner_id,
        model,
        new_id("session"),
        now,
    );
    bot.run = true;
    bot.hidden = true;
    let caps = job
        .extra
        .get(CAPPED_BY)
        .cloned()
        .unwrap_or_else(|| Value::Array(Vec::new()));
    bot.extra.insert(CAPPED_BY.into(), caps);
    bot.extra
        .insert(STEP_TOOLS.into(), Value::from(tools.clone()));
    bot.extra
        .insert("jobId".into(), Value::from(job.id.clone()));
    bot.extra
        .insert("node".into(), Value::from(node.id.clone()));
    bot.extra
        .insert("cardId".into(), Value::from(card.id.clone()));
    change.put_bot(&bot);
    Some(bot)
}
