//! The calendar, the edits, quiet hours at create time and the owner rule.

use super::edit::{Changes, Context, NewTask, copy, create, edit, pause, resume};
use super::owner::source_of;
use super::quiet::{QuietHours, quiet_hours};
use super::sentences;
use super::timing::calendar;
use crate::access::Actor;
use flybot_protocol::ErrorCode;
use flybot_protocol::schedule::{ScheduleStatus, ScheduleTask, Timing};
use flybot_protocol::state::{AuthSession, Bot, Member, TeamState};
use serde_json::json;

pub(super) fn ms(rfc3339: &str) -> u64 {
    rfc3339.parse::<jiff::Timestamp>().unwrap().as_millisecond() as u64
}

fn timing(value: serde_json::Value) -> Timing {
    serde_json::from_value(value).unwrap()
}

fn ctx(now: u64) -> Context<'static> {
    Context {
        now,
        host_zone: "UTC",
        quiet: None,
    }
}

pub(super) fn task(when: Timing, now: u64) -> ScheduleTask {
    create(
        NewTask {
            id: "schedule-1".into(),
            session_id: "s-ada".into(),
            title: "Standup",
            prompt: "Post the standup",
            when: &when,
            created_by: "m-1".into(),
        },
        &ctx(now),
    )
    .unwrap()
}

/// The daylight-saving table: a wall clock in a zone across the spring gap
/// (the time does not exist: the first instant after it) and the autumn
/// fold (the time happens twice: once, at its first occurrence), for
/// daily, weekly and cron timings in Europe and America. Each row: the
/// timing, the instant to look from, the next two runs.
#[test]
fn a_wall_clock_across_daylight_saving_runs_once_at_the_first_instant_it_names() {
    let rows = [
        // Berlin, 2026-03-29: 02:00 CET jumps to 03:00 CEST; 02:30 is 03:30.
        (
            json!({"kind": "daily", "time": "02:30", "zone": "Europe/Berlin"}),
            "2026-03-28T12:00:00Z",
            ["2026-03-29T01:30:00Z", "2026-03-30T00:30:00Z"],
        ),
        // Berlin, 2026-10-25: 03:00 CEST falls back to 02:00 CET; the first 02:30.
        (
            json!({"kind": "daily", "time": "02:30", "zone": "Europe/Berlin"}),
            "2026-10-24T12:00:00Z",
            ["2026-10-25T00:30:00Z", "2026-10-26T01:30:00Z"],
        ),
        // New York, 2026-03-08: 02:00 EST jumps to 03:00 EDT.
        (
            json!({"kind": "daily", "time": "02:15", "zone": "America/New_York"}),
            "2026-03-07T12:00:00Z",
            ["2026-03-08T07:15:00Z", "2026-03-09T06:15:00Z"],
        ),
        // New York, 2026-11-01: 02:00 EDT falls back to 01:00 EST; 01:30 twice.
        (
            json!({"kind": "daily", "time": "01:30", "zone": "America/New_York"}),
            "2026-10-31T12:00:00Z",
            ["2026-11-01T05:30:00Z", "2026-11-02T06:30:00Z"],
        ),
        // A weekly Sunday 02:30 in Berlin on the spring-forward Sunday.
        (
            json!({"kind": "weekly", "weekday": "sun", "time": "02:30", "zone": "Europe/Berlin"}),
            "2026-03-28T12:00:00Z",
            ["2026-03-29T01:30:00Z", "2026-04-05T00:30:00Z"],
        ),
        // Cron at 09:00 keeps the wall clock: UTC moves by an hour.
        (
            json!({"kind": "cron", "rule": "0 9 * * *", "zone": "Europe/Berlin"}),
            "2026-03-28T12:00:00Z",
            ["2026-03-29T07:00:00Z", "2026-03-30T07:00:00Z"],
        ),
    ];
    for (when, from, [first, second]) in rows {
        let cal = calendar(&timing(when.clone()), "UTC").unwrap();
        let next = cal.next_after(ms(from), 0).unwrap();
        assert_eq!(next, ms(first), "{when} from {from}");
        assert_eq!(
            cal.next_after(next, 0),
            Some(ms(second)),
            "{when} after {first}"
        );
    }
}

#[test]
fn cron_and_weekly_follow_their_zone() {
    let cron = calendar(
        &timing(json!({"kind": "cron", "rule": "0 9 * * 1-5", "zone": "Asia/Shanghai"})),
        "UTC",
    )
    .unwrap();
    // Friday 2026-12-04 02:00 UTC is 10:00 in Shanghai: next is Monday 09:00.
    assert_eq!(
        cron.next_after(ms("2026-12-04T02:00:00Z"), 0),
        Some(ms("2026-12-07T01:00:00Z"))
    );
    let weekly = calendar(&timing(json!({"kind": "weekly", "weekday": "wed", "time": "18:00", "zone": "America/New_York"})), "UTC").unwrap();
    assert_eq!(
        weekly.next_after(ms("2026-12-03T00:00:00Z"), 0),
        Some(ms("2026-12-09T23:00:00Z"))
    );
}

#[test]
fn at_reads_a_wall_clock_in_the_callers_zone_else_the_hosts() {
    let tokyo = calendar(
        &timing(json!({"kind": "at", "at": "2026-12-24T09:00", "zone": "Asia/Tokyo"})),
        "UTC",
    )
    .unwrap();
    assert_eq!(tokyo.next_after(0, 0), Some(ms("2026-12-24T00:00:00Z")));
    let host = calendar(
        &timing(json!({"kind": "at", "at": "2026-12-24T09:00"})),
        "Europe/Berlin",
    )
    .unwrap();
    assert_eq!(host.next_after(0, 0), Some(ms("2026-12-24T08:00:00Z")));
}

#[test]
/// Rule #1651.
fn every_takes_seconds_or_minutes_and_refuses_outside_a_minute_to_a_week() {
    let now = ms("2026-12-03T10:00:00Z");
    let ninety = task(timing(json!({"kind": "every", "seconds": 90})), now);
    assert_eq!(ninety.next_run_at, Some(now + 90_000));
    let minutes = task(timing(json!({"kind": "every", "minutes": 5})), now);
    assert_eq!(minutes.next_run_at, Some(now + 300_000));
    for bad in [
        json!({"kind": "every", "seconds": 59}),
        json!({"kind": "every", "seconds": 604_801}),
        json!({"kind": "every", "minutes": 0}),
    ] {
        let err = calendar(&timing(bad), "UTC").unwrap_err();
        assert_eq!(
            (err.code, err.sentence.as_str()),
            (ErrorCode::Invalid, sentences::EVERY_RANGE)
        );
    }
}

#[test]
/// Rule #354.
fn edit_keeps_the_id_and_next_run_when_only_the_text_changes() {
    let now = ms("2026-12-03T10:00:00Z");
    let before = task(timing(json!({"kind": "every", "seconds": 3600})), now);
    let later = Context {
        now: now + 600_000,
        ..ctx(now)
    };
    let renamed = edit(
        &before,
        &Changes {
            title: Some("Daily standup"),
            prompt: None,
            when: Some(&before.when),
        },
        &later,
    )
    .unwrap();
    assert_eq!(
        (renamed.id.as_str(), renamed.next_run_at),
        ("schedule-1", before.next_run_at)
    );
    let retimed = edit(
        &before,
        &Changes {
            title: None,
            prompt: None,
            when: Some(&timing(json!({"kind": "every", "seconds": 120}))),
        },
        &later,
    )
    .unwrap();
    assert_eq!(retimed.next_run_at, Some(now + 600_000 + 120_000));
}

#[test]
/// Rule #354.
fn resume_computes_afresh_and_refuses_a_passed_one_time_task() {
    let now = ms("2026-12-03T10:00:00Z");
    let every = pause(
        &task(timing(json!({"kind": "every", "seconds": 600})), now),
        now,
    );
    assert_eq!(
        (every.status, every.next_run_at),
        (ScheduleStatus::Paused, None)
    );
    let resumed = resume(&every, &ctx(now + 3_600_000)).unwrap();
    assert_eq!(resumed.next_run_at, Some(now + 3_600_000 + 600_000));
    let once = pause(
        &task(
            timing(json!({"kind": "at", "at": "2026-12-03T11:00:00Z"})),
            now,
        ),
        now,
    );
    let err = resume(&once, &ctx(ms("2026-12-03T12:00:00Z"))).unwrap_err();
    assert_eq!(err.sentence, sentences::AT_ONLY_EDIT);
}

#[test]
/// Rule #1287.
fn copy_keeps_the_sources_next_run_and_refuses_the_same_chat() {
    let now = ms("2026-12-03T10:00:00Z");
    let source = task(timing(json!({"kind": "every", "seconds": 3600})), now);
    let later = ctx(now + 1_800_000);
    let copied = copy(
        &source,
        "schedule-2".into(),
        "s-bo".into(),
        "m-1".into(),
        &later,
    )
    .unwrap();
    assert_eq!(
        (copied.id.as_str(), copied.session_id.as_str()),
        ("schedule-2", "s-bo")
    );
    assert_eq!(copied.next_run_at, source.next_run_at, "not now + interval");
    assert!(copied.suppressed.is_empty());
    let same = copy(
        &source,
        "schedule-3".into(),
        "s-ada".into(),
        "m-1".into(),
        &later,
    )
    .unwrap_err();
    assert_eq!(same.sentence, sentences::SAME_CHAT);
}

#[test]
fn create_refuses_a_time_in_the_past() {
    let now = ms("2026-12-03T10:00:00Z");
    let when = timing(json!({"kind": "at", "at": "2026-12-03T09:00:00Z"}));
    let err = create(
        NewTask {
            id: "x".into(),
            session_id: "s".into(),
            title: "t",
            prompt: "p",
            when: &when,
            created_by: "m".into(),
        },
        &ctx(now),
    )
    .unwrap_err();
    assert_eq!(err.sentence, sentences::PICK_FUTURE);
}

fn quiet(from: &str, to: &str) -> QuietHours {
    quiet_hours(Some(&json!({"on": true, "from": from, "to": to})))
        .unwrap()
        .unwrap()
}

fn create_at(at: &str, zone: &str, quiet: &QuietHours) -> Result<ScheduleTask, super::Refusal> {
    let when = timing(json!({"kind": "at", "at": at, "zone": zone}));
    let ctx = Context {
        now: ms("2026-12-03T10:00:00Z"),
        host_zone: "UTC",
        quiet: Some(quiet),
    };
    create(
        NewTask {
            id: "x".into(),
            session_id: "s".into(),
            title: "t",
            prompt: "p",
            when: &when,
            created_by: "m".into(),
        },
        &ctx,
    )
}

#[test]
/// Rule #1166.
fn quiet_hours_refuses_a_time_inside_the_window_naming_its_end() {
    let night = quiet("22:00", "07:00");
    let err = create_at("2026-12-04T23:30", "Europe/Berlin", &night).unwrap_err();
    assert_eq!(err.code, ErrorCode::QuietHours);
    assert_eq!(
        err.sentence,
        "That time is inside the team's quiet hours, which end at 07:00; pick a time outside them."
    );
    assert!(
        create_at("2026-12-05T06:59", "Europe/Berlin", &night).is_err(),
        "crosses midnight"
    );
    assert!(
        create_at("2026-12-05T07:00", "Europe/Berlin", &night).is_ok(),
        "the end minute is allowed"
    );
    assert!(
        create_at("2026-12-04T22:00", "Europe/Berlin", &night).is_err(),
        "the start minute refuses"
    );
    assert!(create_at("2026-12-04T21:59", "Europe/Berlin", &night).is_ok());
}

#[test]
/// Rule #1166.
fn quiet_hours_reads_the_time_in_the_tasks_own_zone() {
    let night = quiet("22:00", "07:00");
    // 23:30 in Tokyo is 15:30 in London: the task's zone decides.
    assert!(create_at("2026-12-04T23:30", "Asia/Tokyo", &night).is_err());
    assert!(create_at("2026-12-04T15:30", "Europe/London", &night).is_ok());
}

#[test]
/// Rule #1166.
fn quiet_hours_lets_every_and_cron_through() {
    let night = quiet("00:00", "23:59");
    let ctx = Context {
        now: ms("2026-12-03T10:00:00Z"),
        host_zone: "UTC",
        quiet: Some(&night),
    };
    for when in [
        json!({"kind": "every", "seconds": 60}),
        json!({"kind": "cron", "rule": "*/5 * * * *"}),
    ] {
        let when = timing(when);
        assert!(
            create(
                NewTask {
                    id: "x".into(),
                    session_id: "s".into(),
                    title: "t",
                    prompt: "p",
                    when: &when,
                    created_by: "m".into()
                },
                &ctx
            )
            .is_ok()
        );
    }
}

#[test]
/// Rule #1166.
fn quiet_hours_setting_refuses_an_invalid_window() {
    for bad in [
        json!({"on": true, "from": "25:00", "to": "07:00"}),
        json!({"on": "yes", "from": "22:00", "to": "07:00"}),
        json!({"on": true, "from": "22:00"}),
        json!({"on": true, "from": "22:00", "to": "07:00", "atEnd": "later"}),
    ] {
        assert_eq!(
            quiet_hours(Some(&bad)).unwrap_err().sentence,
            sentences::QUIET_WINDOW
        );
    }
    assert_eq!(
        quiet_hours(Some(&json!({"on": false, "from": "22:00", "to": "07:00"}))).unwrap(),
        None
    );
}

fn two_members() -> TeamState {
    let mut state = TeamState::default();
    for (id, at) in [("m-ada", 1), ("m-bo", 2)] {
        state.members.insert(
            id.into(),
            serde_json::from_value(json!({"id": id, "name": id, "createdAt": at})).unwrap(),
        );
        state.auth_sessions.insert(
            format!("a-{id}"),
            serde_json::from_value::<AuthSession>(
                json!({"id": format!("a-{id}"), "memberId": id, "tokenHash": "x", "createdAt": 1}),
            )
            .unwrap(),
        );
    }
    let _: Option<Member> = None;
    state.bots.insert(
        "bot-a".into(),
        Bot::new("bot-a", "Ada", "m-ada", "mock", "s-ada", 1),
    );
    state.bots.insert(
        "bot-b".into(),
        Bot::new("bot-b", "Bo", "m-bo", "mock", "s-bo", 1),
    );
    let mut t = task(timing(json!({"kind": "every", "seconds": 600})), 0);
    t.session_id = "s-bo".into();
    state.schedules.insert(t.id.clone(), t);
    state
}

fn member(id: &str) -> Actor {
    Actor::Member {
        member_id: id.into(),
        session_id: format!("a-{id}"),
    }
}

#[test]
/// Rule #1321.
fn same_user_another_members_task_answers_as_an_unknown_one() {
    let state = two_members();
    let peer = source_of(&state, &member("m-ada"), "s-bo", "schedule-1").unwrap_err();
    let unknown = source_of(&state, &member("m-ada"), "s-bo", "schedule-404").unwrap_err();
    assert_eq!(peer, unknown);
    assert_eq!(peer.sentence, sentences::NO_SUCH_TASK);
    assert!(!peer.sentence.contains("Standup"));
    assert!(source_of(&state, &member("m-bo"), "s-bo", "schedule-1").is_ok());
    assert!(
        source_of(&state, &Actor::SingleOwner, "s-bo", "schedule-1").is_ok(),
        "nobody signed in: untouched"
    );
    let session = source_of(&state, &member("m-bo"), "s-nowhere", "schedule-1").unwrap_err();
    assert_eq!(session.sentence, sentences::NO_SUCH_SESSION);
}
