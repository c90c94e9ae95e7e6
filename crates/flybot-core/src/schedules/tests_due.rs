//! The missed-run rule (#354) and the quiet-hours hold (#1166).

use super::due::{Fire, after_fire, fire};
use super::quiet::quiet_hours;
use super::tests::{ms, task};
use super::timing::calendar;
use flybot_protocol::schedule::{ScheduleStatus, Timing};
use jiff::tz::TimeZone;
use serde_json::json;

fn every_minute(now: u64) -> flybot_protocol::schedule::ScheduleTask {
    task(
        serde_json::from_value::<Timing>(json!({"kind": "every", "seconds": 60})).unwrap(),
        now,
    )
}

#[test]
/// Rule #354.
fn missed_runs_a_recurring_task_runs_once_for_its_latest_missed_time() {
    let made = ms("2026-12-03T10:00:00Z");
    let t = every_minute(made);
    let cal = calendar(&t.when, "UTC").unwrap();
    // Down from 10:00:30 to 10:05:30: five times passed.
    let start = ms("2026-12-03T10:05:30Z");
    let f = fire(&t, &cal, start, start, None, &TimeZone::UTC).unwrap();
    assert_eq!(
        f,
        Fire::Deliver {
            scheduled_for: ms("2026-12-03T10:05:00Z"),
            missed: true,
            next_run_at: Some(ms("2026-12-03T10:06:00Z")),
            released: false
        }
    );
    let after = after_fire(&t, &f, start);
    assert_eq!(
        fire(&after, &cal, start, start, None, &TimeZone::UTC),
        None,
        "never once per missed time"
    );
}

#[test]
/// Rule #354.
fn missed_runs_a_passed_one_time_task_runs_once_at_start_and_is_done() {
    let made = ms("2026-12-03T10:00:00Z");
    let t = task(
        serde_json::from_value(json!({"kind": "at", "at": "2026-12-03T11:00:00Z"})).unwrap(),
        made,
    );
    let cal = calendar(&t.when, "UTC").unwrap();
    let start = ms("2026-12-03T12:00:00Z");
    let f = fire(&t, &cal, start, start, None, &TimeZone::UTC).unwrap();
    assert_eq!(
        f,
        Fire::Deliver {
            scheduled_for: ms("2026-12-03T11:00:00Z"),
            missed: true,
            next_run_at: None,
            released: false
        }
    );
    assert_eq!(after_fire(&t, &f, start).status, ScheduleStatus::Done);
}

#[test]
/// Rule #354.
fn missed_runs_a_paused_task_runs_nothing() {
    let made = ms("2026-12-03T10:00:00Z");
    let t = super::edit::pause(&every_minute(made), made);
    let cal = calendar(&t.when, "UTC").unwrap();
    assert_eq!(
        fire(
            &t,
            &cal,
            made + 3_600_000,
            made + 3_600_000,
            None,
            &TimeZone::UTC
        ),
        None
    );
}

#[test]
/// Rule #1166.
fn quiet_hours_holds_a_delivery_inside_the_window_and_runs_it_once_at_the_end() {
    let made = ms("2026-12-03T21:00:00Z");
    let t = every_minute(made);
    let cal = calendar(&t.when, "UTC").unwrap();
    let quiet = quiet_hours(Some(&json!({"on": true, "from": "22:00", "to": "07:00"})))
        .unwrap()
        .unwrap();
    let now = ms("2026-12-03T22:00:00Z");
    let mut t = t;
    t.next_run_at = Some(now);
    let f = fire(&t, &cal, now, made, Some(&quiet), &TimeZone::UTC).unwrap();
    let end = ms("2026-12-04T07:00:00Z");
    assert_eq!(
        f,
        Fire::Suppress {
            scheduled_for: now,
            next_run_at: Some(now + 60_000),
            held_until: Some(end)
        }
    );
    let held = after_fire(&t, &f, now);
    assert_eq!(
        (held.suppressed.clone(), held.held_until),
        (vec![now], Some(end))
    );
    // The next minute is suppressed too; the hold stays the one run at the end.
    let f2 = fire(
        &held,
        &cal,
        now + 60_000,
        made,
        Some(&quiet),
        &TimeZone::UTC,
    )
    .unwrap();
    let held2 = after_fire(&held, &f2, now + 60_000);
    assert_eq!((held2.suppressed.len(), held2.held_until), (2, Some(end)));
    let release = fire(&held2, &cal, end, made, Some(&quiet), &TimeZone::UTC).unwrap();
    assert!(
        matches!(release, Fire::Deliver { scheduled_for, released: true, .. } if scheduled_for == end)
    );
}

#[test]
/// Rule #1166.
fn quiet_hours_skip_records_the_suppressed_run_and_holds_nothing() {
    let made = ms("2026-12-03T21:00:00Z");
    let mut t = every_minute(made);
    let cal = calendar(&t.when, "UTC").unwrap();
    let quiet = quiet_hours(Some(
        &json!({"on": true, "from": "22:00", "to": "07:00", "atEnd": "skip"}),
    ))
    .unwrap()
    .unwrap();
    let now = ms("2026-12-03T23:00:00Z");
    t.next_run_at = Some(now);
    let f = fire(&t, &cal, now, made, Some(&quiet), &TimeZone::UTC).unwrap();
    assert_eq!(
        f,
        Fire::Suppress {
            scheduled_for: now,
            next_run_at: Some(now + 60_000),
            held_until: None
        }
    );
}
