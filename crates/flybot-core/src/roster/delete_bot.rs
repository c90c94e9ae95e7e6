//! Deleting a Bot (`delete-bot`): its unfinished cards fail, a result waiting
//! for a person's decision staying (#54, #1099); its waiting held sends go
//! stale (#52); its Sessions are recorded in `retiredSessions` (#1453); it
//! leaves every room it sat in (as admin too), every grant list, the Main
//! list (#613) and the designated Chief.

use super::{RosterWrite, RosterWrites, managed_bot};
use crate::access::Actor;
use crate::rooms::hold::stale_for_deleted_bot;
use crate::tasks::Outcome;
use crate::tasks::approval::after_holds;
use crate::tasks::deleted_bot::fail_tasks_of;
use flybot_protocol::ApiError;
use flybot_protocol::state::{Bot, Room, TeamState};

/// A deleted Bot: its record as it stood, the writes, and the failed cards
/// whose workers the host drops once the writes are on disk (#1729).
#[derive(Debug, Clone, PartialEq)]
pub struct DeletedBot {
    pub bot: Bot,
    pub writes: RosterWrites,
    pub failed_tasks: Outcome,
}

/// `delete-bot {id}`: the writes that delete the Bot `bot_id` at `now`, or
/// `bot/not-found` / `bot/forbidden` when the actor may not change it.
pub fn delete_bot(
    state: &TeamState,
    actor: &Actor,
    bot_id: &str,
    now: u64,
) -> Result<DeletedBot, ApiError> {
    let bot = managed_bot(state, actor, bot_id)?.clone();
    let failed_tasks = fail_tasks_of(state, &bot, now);
    let mut writes = RosterWrites::default();
    writes.extend(
        failed_tasks
            .writes
            .iter()
            .cloned()
            .map(RosterWrite::PutTask),
    );
    let stale = stale_for_deleted_bot(state, &bot.id, now);
    // A sender's card blocked on a hold to the deleted Bot resumes (#54).
    let resumed = after_holds(state, &stale, now);
    writes.extend(stale.into_iter().map(RosterWrite::PutHeldSend));
    let mut failed_tasks = failed_tasks;
    for task in resumed.writes {
        if !failed_tasks.writes.iter().any(|t| t.id == task.id) {
            writes.push(RosterWrite::PutTask(task.clone()));
            failed_tasks.writes.push(task);
        }
    }
    let mut retired = vec![bot.session_id.clone()];
    let mut rooms = Vec::new();
    for room in state.rooms.values() {
        if let Some(session) = room.sessions.get(&bot.id) {
            retired.push(session.clone());
        }
        if let Some(room) = without_bot(room, &bot.id, now) {
            rooms.push(room);
        }
    }
    writes.extend(
        retired
            .into_iter()
            .map(|session_id| RosterWrite::RetireSession {
                session_id,
                bot_id: bot.id.clone(),
            }),
    );
    writes.extend(rooms.into_iter().map(RosterWrite::PutRoom));
    writes.extend(
        state
            .grants
            .iter()
            .filter(|(_, list)| list.iter().any(|g| g.grantee == bot.id))
            .map(|(id, list)| RosterWrite::SetGrants {
                bot_id: id.clone(),
                grants: list
                    .iter()
                    .filter(|g| g.grantee != bot.id)
                    .cloned()
                    .collect(),
            }),
    );
    writes.push(RosterWrite::SetGrants {
        bot_id: bot.id.clone(),
        grants: Vec::new(),
    });
    if state.main_bot_ids.contains(&bot.id) {
        let main = state.main_bot_ids.iter().filter(|m| **m != bot.id);
        writes.push(RosterWrite::SetMainBotIds(main.cloned().collect()));
    }
    if state.designated_chief_id.as_ref() == Some(&bot.id) {
        writes.push(RosterWrite::SetDesignatedChief(None));
    }
    writes.push(RosterWrite::RemoveBot(bot.id.clone()));
    Ok(DeletedBot {
        bot,
        writes,
        failed_tasks,
    })
}

/// The room without `bot_id` in its members, Sessions or admin seat, when it
/// had the Bot in any of them.
fn without_bot(room: &Room, bot_id: &str, now: u64) -> Option<Room> {
    let seated = room.members.iter().any(|m| m == bot_id);
    if !seated && !room.sessions.contains_key(bot_id) {
        return None;
    }
    let mut room = room.clone();
    room.members.retain(|m| m != bot_id);
    room.sessions.remove(bot_id);
    if room.admin.as_deref() == Some(bot_id) {
        room.admin = None;
    }
    room.updated_at = now;
    Some(room)
}

#[cfg(test)]
mod tests {
    use super::super::fixture::{grant, held, member, put_approval, shape, team};
    use super::*;
    use flybot_protocol::ErrorCode;
    use flybot_protocol::state::{Task, TaskStatus};

    fn task(id: &str, bot_id: &str, status: TaskStatus) -> Task {
        Task {
            id: id.into(),
            bot_id: bot_id.into(),
            title: format!("title of {id}"),
            status,
            requester_id: Some("member-a".into()),
            room_id: None,
            created_at: 1,
            updated_at: 1,
            extra: Default::default(),
        }
    }

    #[test]
    /// Rules #54, #52, #1453, #613.
    fn delete_bot_fails_its_cards_stales_its_holds_retires_its_sessions_and_leaves_everything() {
        let mut state = team();
        for t in [
            task("task-open", "bot-a", TaskStatus::Working),
            task("task-ready", "bot-a", TaskStatus::ResultReady),
            task("task-other", "bot-b", TaskStatus::Working),
        ] {
            state.tasks.insert(t.id.clone(), t);
        }
        state.grants.insert("bot-a".into(), vec![grant("member-b")]);
        state
            .grants
            .insert("bot-rev".into(), vec![grant("bot-a"), grant("member-a")]);
        let to_ada = held(&state, "hold-1", "bot-b", "bot-a");
        put_approval(&mut state, "hold-1", &to_ada);

        let deleted = delete_bot(&state, &member("member-a"), "bot-a", 50).unwrap();

        assert_eq!(deleted.bot.id, "bot-a");
        assert_eq!(
            shape(&deleted.writes),
            [
                "task task-open Failed",
                "held hold-1 Stale Some(\"target-gone\")",
                "retire session-bot-a of bot-a",
                "retire room-session-a of bot-a",
                "room room-1 members [\"bot-b\"] admin None at 50",
                "grants bot-rev [\"member-a\"]",
                "grants bot-a []",
                "main []",
                "chief None",
                "remove bot bot-a",
            ]
        );
        assert_eq!(deleted.failed_tasks.writes.len(), 1);
    }

    #[test]
    /// Rule #613.
    fn delete_bot_of_a_plain_bot_touches_no_main_list_or_chief() {
        let state = team();
        let deleted = delete_bot(&state, &member("member-b"), "bot-rev", 50).unwrap();
        assert_eq!(
            shape(&deleted.writes),
            [
                "retire session-bot-rev of bot-rev",
                "grants bot-rev []",
                "remove bot bot-rev",
            ]
        );
    }

    #[test]
    /// Rule #49.
    fn a_refused_delete_bot_answers_the_refusal_and_no_writes() {
        let state = team();
        let refused = delete_bot(&state, &member("member-b"), "bot-a", 50).unwrap_err();
        assert_eq!(refused.code, ErrorCode::Forbidden);
        assert_eq!(refused.message, crate::unseen::UNSEEN_BOT);
        let unknown = delete_bot(&state, &member("member-a"), "bot-x", 50).unwrap_err();
        assert_eq!(unknown.code, ErrorCode::NotFound);
    }
}
