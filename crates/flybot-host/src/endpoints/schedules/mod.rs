//! The scheduled tasks' endpoints (#354, #473, #1287, #1321): `schedules`,
//! `schedule-create`, `schedule-update`, `schedule-pause`,
//! `schedule-resume`, `schedule-delete`, `schedule-retry`. Each takes the
//! schedule service it needs; the rules are in `flybot_core::schedules`.

use super::extract::route_table;
use super::{Answer, body::parse, typed};
use crate::schedules::Scheduler;
use crate::schedules::book::{rows_on, team_quiet};
use crate::schedules::writes::{self, Switch};
use flybot_core::access::Actor;
use flybot_core::schedules::owner::{is_project_digest, owns, place_of};
use flybot_protocol::ApiError;
use flybot_protocol::schedule::{ScheduleAnswer, ScheduleList, ScheduleRow, ScheduleRows};

route_table! {
    "schedules" => |host, caller, body| typed(list(host.scheduler(), caller.require()?, parse(body)?));
    "schedule-create" => |host, caller, body| {
        let book = &host.scheduler().book;
        row(writes::create(book, caller.require()?, parse(body)?).await.map(Some))
    };
    "schedule-update" => |host, caller, body| {
        let book = &host.scheduler().book;
        row(writes::update(book, caller.require()?, parse(body)?).await.map(Some))
    };
    "schedule-pause" => |host, caller, body| {
        let book = &host.scheduler().book;
        row(writes::switch(book, caller.require()?, parse(body)?, Switch::Pause).await)
    };
    "schedule-resume" => |host, caller, body| {
        let book = &host.scheduler().book;
        row(writes::switch(book, caller.require()?, parse(body)?, Switch::Resume).await)
    };
    "schedule-delete" => |host, caller, body| {
        let book = &host.scheduler().book;
        row(writes::switch(book, caller.require()?, parse(body)?, Switch::Delete).await)
    };
    "schedule-retry" => |host, caller, body| {
        let retried = crate::schedules::retry::retry(host.scheduler(), caller.require()?, parse(body)?);
        row(retried.await.map(Some))
    };
}

/// A schedule endpoint's answer: `{schedule}`.
fn row(row: Result<Option<ScheduleRow>, ApiError>) -> Answer {
    typed(row.map(|row| ScheduleAnswer { schedule: row }))
}

/// `schedules {botId?, roomId?}` → the actor's tasks, soonest first, with
/// `quietUnchecked` when it applies (#1166) and whether automation runs.
fn list(scheduler: &Scheduler, actor: &Actor, req: ScheduleList) -> Result<ScheduleRows, ApiError> {
    scheduler.book.team.read(|state| {
        let mut sessions: Vec<String> = state
            .schedules
            .values()
            .map(|task| task.session_id.clone())
            .filter(|session| {
                place_of(state, session).is_some_and(|place| owns(state, actor, &place))
            })
            // #1712: a Project assistant's daily task is shown on its
            // Project's page, not as an ordinary task.
            .filter(|session| !is_project_digest(state, session))
            .collect();
        sessions.sort();
        sessions.dedup();
        if let Some(bot_id) = &req.bot_id {
            let own = state.bots.get(bot_id).map(|bot| bot.session_id.clone());
            sessions.retain(|s| Some(s) == own.as_ref());
        }
        if let Some(room_id) = &req.room_id {
            sessions.retain(|s| s == room_id);
        }
        let quiet_on = team_quiet(state).is_some();
        Ok(ScheduleRows {
            quiet_unchecked: flybot_core::schedules::quiet_unchecked(state, quiet_on, &sessions),
            schedules: rows_on(state, &sessions),
            automation: scheduler.book.automation,
        })
    })
}
