//! The scheduled tasks' endpoints (#354, #473, #1287, #1321): `schedules`,
//! `schedule-create`, `schedule-update`, `schedule-pause`,
//! `schedule-resume`, `schedule-delete`, `schedule-retry`. Each takes the
//! schedule service it needs; the rules are in `flybot_core::schedules`.

use super::{Answer, body::parse, typed, unknown};
use crate::actor::Caller;
use crate::schedules::Scheduler;
use crate::schedules::book::{rows_on, team_quiet};
use crate::schedules::writes::{self, Switch};
use flybot_core::access::Actor;
use flybot_core::schedules::owner::{owns, place_of};
use flybot_protocol::ApiError;
use flybot_protocol::schedule::{ScheduleAnswer, ScheduleList, ScheduleRows};

/// Answers the schedule endpoints; `bot/unknown-endpoint` for the others.
pub async fn call(scheduler: &Scheduler, caller: &Caller, endpoint: &str, body: &[u8]) -> Answer {
    let book = &scheduler.book;
    let row = |row: Result<_, ApiError>| typed(row.map(|row| ScheduleAnswer { schedule: row }));
    match endpoint {
        "schedules" => typed(list(scheduler, caller.require()?, parse(body)?)),
        "schedule-create" => row(writes::create(book, caller.require()?, parse(body)?)
            .await
            .map(Some)),
        "schedule-update" => row(writes::update(book, caller.require()?, parse(body)?)
            .await
            .map(Some)),
        "schedule-pause" => {
            row(writes::switch(book, caller.require()?, parse(body)?, Switch::Pause).await)
        }
        "schedule-resume" => {
            row(writes::switch(book, caller.require()?, parse(body)?, Switch::Resume).await)
        }
        "schedule-delete" => {
            row(writes::switch(book, caller.require()?, parse(body)?, Switch::Delete).await)
        }
        "schedule-retry" => {
            row(
                crate::schedules::retry::retry(scheduler, caller.require()?, parse(body)?)
                    .await
                    .map(Some),
            )
        }
        _ => Err(unknown(endpoint)),
    }
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
