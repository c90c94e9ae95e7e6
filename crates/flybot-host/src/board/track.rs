//! `HostTasks`: `track_tasks` as the host runs it (`TaskAccess`), the host
//! half of `flybot_core::tasks::track` (which holds the rule). The call's
//! room is the room whose seat the calling Session is (none in the Bot's
//! own chat); an assignee's name is resolved among that room's members; each
//! card write is one change through `Board::write`, so a refusal
//! writes nothing, the claim line follows and the task drive runs after it.

use super::write::Board;
use crate::ids::new_id;
use flybot_agent::tools::BoxFuture;
use flybot_agent::tools::track_tasks::{
    CardWrite, QueueItem, TaskAccess, TaskCall, TaskCaller, TaskReply,
};
use flybot_core::access::{Actor, enforced};
use flybot_core::tasks::track::{Fresh, TrackContext, TrackItem, track};
use flybot_core::tasks::{Outcome, claim, queue, target};
use flybot_protocol::ApiError;
use flybot_protocol::state::TeamState;
use flybot_protocol::task_requests::TaskEnqueue;

/// The host's side of `track_tasks`.
pub(crate) struct HostTasks {
    pub board: Board,
}

/// The room whose seat `session_id` is, for `bot_id`.
pub fn room_of_seat(state: &TeamState, bot_id: &str, session_id: &str) -> Option<String> {
    state
        .rooms
        .values()
        .find(|room| room.sessions.get(bot_id).is_some_and(|s| s == session_id))
        .map(|room| room.id.clone())
}

/// The Bot acts for itself as its owner would.
pub(crate) fn bot_actor(state: &TeamState, bot_id: &str) -> Actor {
    match state.bots.get(bot_id) {
        Some(bot) if enforced(state) => Actor::Member {
            member_id: bot.owner_id.clone(),
            session_id: String::new(),
        },
        Some(_) | None => Actor::SingleOwner,
    }
}

/// A member's name (or id) in the room, as the Bot's id.
fn member_id(state: &TeamState, room_id: Option<&str>, name: &str) -> Option<String> {
    let room = state.rooms.get(room_id?)?;
    let wanted = name.trim().trim_start_matches('@').to_lowercase();
    room.members
        .iter()
        .find(|id| {
            id.to_lowercase() == wanted
                || state
                    .bots
                    .get(*id)
                    .is_some_and(|b| b.name.to_lowercase() == wanted)
        })
        .cloned()
}

/// The Bot's one unfinished card of that title, in any group.
fn own_card_titled(state: &TeamState, bot_id: &str, title: &str) -> Option<String> {
    let mut found = state
        .tasks
        .values()
        .filter(|t| t.bot_id == bot_id && t.title == title.trim() && !t.status.is_terminal());
    let first = found.next()?;
    found.next().is_none().then(|| first.id.clone())
}

struct Call<'a> {
    caller: &'a TaskCaller,
    room_id: Option<String>,
    actor: Actor,
    journal: String,
}

async fn write_card(
    board: &Board,
    call: &Call<'_>,
    mut item: TrackItem,
) -> Result<Outcome, ApiError> {
    if let Some(name) = item.assignee.take() {
        let id = board
            .team()
            .read(|s| member_id(s, call.room_id.as_deref(), &name))
            .ok_or_else(|| {
                ApiError::invalid(
                    "assignee",
                    format!("{name} is not a member Bot of this group."),
                )
            })?;
        item.assignee = Some(id);
    }
    if call.room_id.is_none() && item.id.is_none() && !item.overall {
        // In its own chat a Bot continues a group card by its title.
        if let Some(title) = item.title.as_deref() {
            item.id = board
                .team()
                .read(|s| own_card_titled(s, &call.caller.bot_id, title));
        }
    }
    let task_id = new_id("task");
    let question_id = new_id("question");
    let ctx = TrackContext {
        bot_id: &call.caller.bot_id,
        room_id: call.room_id.as_deref(),
        session_id: Some(&call.caller.session_id),
    };
    let fresh = Fresh {
        task_id: &task_id,
        question_id: &question_id,
    };
    let out = board
        .write_quietly(&call.journal, |s, now| track(s, ctx, &item, fresh, now))
        .await?;
    Ok(out)
}

async fn queue_item(board: &Board, call: &Call<'_>, item: QueueItem) -> Result<Outcome, ApiError> {
    let room_id = call.room_id.clone().ok_or_else(|| {
        ApiError::invalid(
            "queue",
            "A queue item belongs to a group; add it from the group.",
        )
    })?;
    let req = TaskEnqueue {
        bot_id: call.caller.bot_id.clone(),
        room_id,
        role: item.role,
        title: item.title,
        priority: item.priority,
        note: item.note,
        cap: None,
        id: None,
        run: None,
    };
    let id = new_id("task");
    let out = board
        .write_quietly(&call.journal, |s, now| {
            queue::enqueue(s, &call.actor, &req, &id, now)
        })
        .await?;
    Ok(out)
}

/// Writes a plan's cards in order, stopping at the first refusal, and
/// announces once, after the whole plan is on the board.
async fn write_plan(
    board: &Board,
    ctx: &Call<'_>,
    writes: Vec<CardWrite>,
    cards: &mut Vec<flybot_protocol::state::Task>,
) -> Result<(), ApiError> {
    let mut written = Vec::new();
    let mut refused = None;
    for write in writes {
        let out = match write {
            CardWrite::Track(item) => write_card(board, ctx, *item).await,
            CardWrite::Queue(item) => queue_item(board, ctx, item).await,
        };
        match out {
            Ok(out) => {
                written.extend(out.writes.iter().map(|t| t.id.clone()));
                cards.extend(out.answer);
            }
            Err(e) => {
                refused = Some(e);
                break;
            }
        }
    }
    board.announce_ids(written);
    refused.map_or(Ok(()), Err)
}

async fn run(board: &Board, caller: TaskCaller, call: TaskCall) -> Result<TaskReply, ApiError> {
    let (room_id, actor) = board.team().read(|s| {
        (
            room_of_seat(s, &caller.bot_id, &caller.session_id),
            bot_actor(s, &caller.bot_id),
        )
    });
    let ctx = Call {
        caller: &caller,
        room_id,
        actor,
        journal: format!("bot:{}", caller.bot_id),
    };
    let bot = caller.bot_id.as_str();
    let mut cards = Vec::new();
    match call {
        TaskCall::Write(writes) => write_plan(board, &ctx, writes, &mut cards).await?,
        TaskCall::Claim { id } => {
            let worker = new_id("worker");
            let out = board
                .write(&ctx.journal, |s, now| {
                    claim::claim(
                        s,
                        &ctx.actor,
                        bot,
                        ctx.room_id.as_deref(),
                        id.as_deref(),
                        &worker,
                        now,
                    )
                })
                .await?;
            cards.extend(out.answer);
        }
        TaskCall::Release {
            task,
            reason,
            retry_in_sec,
        } => {
            let out = board
                .write(&ctx.journal, |s, now| {
                    claim::release(
                        s,
                        &ctx.actor,
                        bot,
                        &task,
                        reason.as_deref(),
                        retry_in_sec,
                        now,
                    )
                })
                .await?;
            cards.extend(out.answer);
        }
        TaskCall::PostResult { task, ok, error } => {
            let out = board
                .write(&ctx.journal, |s, now| {
                    target::post_result_by_bot(s, bot, &task, ok, error.as_deref(), now)
                })
                .await?;
            cards.extend(out.answer);
        }
    }
    Ok(TaskReply { cards })
}

impl TaskAccess for HostTasks {
    fn track<'a>(
        &'a self,
        caller: TaskCaller,
        call: TaskCall,
    ) -> BoxFuture<'a, Result<TaskReply, String>> {
        Box::pin(async move { run(&self.board, caller, call).await.map_err(|e| e.message) })
    }
}
