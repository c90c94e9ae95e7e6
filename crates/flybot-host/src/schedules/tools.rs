//! The Bots' schedule tools on the host (#354, #628): create, list, update
//! and delete act on the calling Session's own tasks (the Bot's own chat);
//! `bot_schedules` lists the Bot's tasks Bot-wide and says so. A room seat
//! has none of them (#1237): the turn's mask leaves them out, and a call
//! from a seat is refused here too.

use super::book::{ScheduleBook, context, row_of, rows_on, team_quiet};
use super::writes::new_schedule_id;
use flybot_agent::tools::BoxFuture;
use flybot_agent::tools::schedules::{CreateArgs, ScheduleAccess, ScheduleCaller, UpdateArgs};
use flybot_core::schedules::edit::{self, Changes, NewTask};
use flybot_core::schedules::owner::{Place, bot_sessions, place_of};
use flybot_core::schedules::{Refusal, sentences};
use flybot_protocol::ApiError;
use flybot_protocol::schedule::{ScheduleRow, ScheduleTask};
use flybot_protocol::state::TeamState;

/// The schedule tools' host.
pub struct HostSchedules {
    pub book: ScheduleBook,
}

/// The calling Session as a Bot's own chat; a room seat is refused.
fn own_chat(state: &TeamState, caller: &ScheduleCaller) -> Result<String, Refusal> {
    match place_of(state, &caller.session_id) {
        Some(Place::Bot { bot_id, session_id }) if bot_id == caller.bot_id => Ok(session_id),
        _ => Err(Refusal::invalid("session", sentences::NOT_IN_ROOM)),
    }
}

fn owner_of(state: &TeamState, bot_id: &str) -> String {
    state
        .bots
        .get(bot_id)
        .map_or_else(String::new, |bot| bot.owner_id.clone())
}

fn own_task(state: &TeamState, session: &str, id: &str) -> Result<ScheduleTask, Refusal> {
    state
        .schedules
        .get(id)
        .filter(|task| task.session_id == session)
        .cloned()
        .ok_or_else(|| Refusal::not_found(sentences::NO_SUCH_TASK))
}

fn text_of(rows: &[ScheduleRow]) -> String {
    serde_json::to_string(rows).unwrap_or_else(|_| "[]".to_owned())
}

fn sentence(e: ApiError) -> String {
    e.message
}

impl ScheduleAccess for HostSchedules {
    fn create<'a>(
        &'a self,
        caller: ScheduleCaller,
        args: CreateArgs,
    ) -> BoxFuture<'a, Result<String, String>> {
        Box::pin(async move {
            let when = args.when.clone();
            let (now, zone) = (self.book.now(), self.book.host_zone.clone());
            let row = self
                .book
                .write(&caller.bot_id, |change| {
                    let state = change.state();
                    let session = own_chat(state, &caller)?;
                    let quiet = team_quiet(state);
                    let new = NewTask {
                        id: new_schedule_id(),
                        session_id: session,
                        title: &args.title,
                        prompt: &args.prompt,
                        when: &when,
                        created_by: owner_of(state, &caller.bot_id),
                    };
                    let task = edit::create(new, &context(now, &zone, quiet.as_ref()))?;
                    change.put_schedule(&task);
                    Ok(row_of(change.state(), &task))
                })
                .await
                .map_err(sentence)?;
            Ok(format!("Scheduled: {}", text_of(&[row])))
        })
    }

    fn list(&self, caller: ScheduleCaller) -> Result<String, String> {
        self.book.team.read(|state| {
            let session = own_chat(state, &caller).map_err(|r| r.sentence)?;
            let rows = rows_on(state, &[session]);
            Ok(format!(
                "The scheduled tasks of this chat only (bot_schedules lists the whole Bot's): {}",
                text_of(&rows)
            ))
        })
    }

    fn update<'a>(
        &'a self,
        caller: ScheduleCaller,
        args: UpdateArgs,
    ) -> BoxFuture<'a, Result<String, String>> {
        Box::pin(async move {
            let when = args.when.clone();
            let (now, zone) = (self.book.now(), self.book.host_zone.clone());
            let row = self
                .book
                .write(&caller.bot_id, |change| {
                    let state = change.state();
                    let session = own_chat(state, &caller)?;
                    let task = own_task(state, &session, &args.id)?;
                    let quiet = team_quiet(state);
                    let changes = Changes {
                        title: args.title.as_deref(),
                        prompt: args.prompt.as_deref(),
                        when: when.as_ref(),
                    };
                    let next = edit::edit(&task, &changes, &context(now, &zone, quiet.as_ref()))?;
                    change.put_schedule(&next);
                    Ok(row_of(change.state(), &next))
                })
                .await
                .map_err(sentence)?;
            Ok(format!("Updated: {}", text_of(&[row])))
        })
    }

    fn delete<'a>(
        &'a self,
        caller: ScheduleCaller,
        id: String,
    ) -> BoxFuture<'a, Result<String, String>> {
        Box::pin(async move {
            self.book
                .write(&caller.bot_id, |change| {
                    let session = own_chat(change.state(), &caller)?;
                    let task = own_task(change.state(), &session, &id)?;
                    change.remove_schedule(&task.id);
                    Ok(())
                })
                .await
                .map_err(sentence)?;
            Ok(format!("Deleted the scheduled task {id}."))
        })
    }

    fn bot_wide(&self, caller: ScheduleCaller) -> Result<String, String> {
        self.book.team.read(|state| {
            let sessions = bot_sessions(state, &caller.bot_id);
            let rows = rows_on(state, &sessions);
            Ok(format!(
                "Bot-wide: every scheduled task of this Bot, in its own chat and in each group chat it sits in ({} in all). schedule_list answers for one Session only. {}",
                rows.len(),
                text_of(&rows)
            ))
        })
    }
}
