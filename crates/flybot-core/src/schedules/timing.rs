//! A task's timing on the calendar: reading `at` / `every` / `daily` /
//! `weekly` / `cron` into a checked `Calendar`, and the next instant it is
//! due after a given one. Zones, DST gaps and folds are jiff's: a wall clock
//! in a gap runs at the first instant after it, one in a fold at its first
//! occurrence (jiff's `compatible` rule). Cron rules are croner's, on jiff.

use super::refusal::{Refusal, sentences};
use flybot_protocol::schedule::Timing;
use jiff::civil::{DateTime, Time, Weekday};
use jiff::tz::TimeZone;
use jiff::{Timestamp, Zoned};

/// The shortest and longest `every` (#1651): a minute and a week.
pub const EVERY_MIN_SECONDS: u64 = 60;
pub const EVERY_MAX_SECONDS: u64 = 604_800;

/// A timing checked and resolved to its zone.
#[derive(Debug, Clone)]
pub enum Calendar {
    Once(u64, TimeZone),
    Every(u64),
    Daily(Time, TimeZone),
    Weekly(Weekday, Time, TimeZone),
    Cron(Box<croner::Cron>, TimeZone),
}

/// Reads `timing`; a zone left out is `host_zone`.
pub fn calendar(timing: &Timing, host_zone: &str) -> Result<Calendar, Refusal> {
    match timing {
        Timing::At { at, zone } => {
            let tz = zone_of(zone.as_deref(), host_zone)?;
            Ok(Calendar::Once(instant_of(at, &tz)?, tz))
        }
        Timing::Every { seconds, minutes } => {
            Ok(Calendar::Every(every_seconds(*seconds, *minutes)?))
        }
        Timing::Daily { time, zone } => Ok(Calendar::Daily(
            clock_of(time)?,
            zone_of(zone.as_deref(), host_zone)?,
        )),
        Timing::Weekly {
            weekday,
            time,
            zone,
        } => Ok(Calendar::Weekly(
            weekday_of(weekday)?,
            clock_of(time)?,
            zone_of(zone.as_deref(), host_zone)?,
        )),
        Timing::Cron { rule, zone } => {
            let cron = croner::parser::CronParser::builder()
                .seconds(croner::parser::Seconds::Optional)
                .build()
                .parse(rule)
                .map_err(|_| Refusal::invalid("when.rule", sentences::BAD_CRON))?;
            Ok(Calendar::Cron(
                Box::new(cron),
                zone_of(zone.as_deref(), host_zone)?,
            ))
        }
    }
}

/// `every`'s period in seconds: `seconds`, else `minutes` × 60 (#1651).
pub fn every_seconds(seconds: Option<u64>, minutes: Option<u64>) -> Result<u64, Refusal> {
    let period = match (seconds, minutes) {
        (Some(s), None) => s,
        (None, Some(m)) => m.saturating_mul(60),
        (Some(_), Some(_)) | (None, None) => {
            return Err(Refusal::invalid("when.seconds", sentences::EVERY_RANGE));
        }
    };
    if !(EVERY_MIN_SECONDS..=EVERY_MAX_SECONDS).contains(&period) {
        return Err(Refusal::invalid("when.seconds", sentences::EVERY_RANGE));
    }
    Ok(period)
}

impl Calendar {
    /// The zone its wall clocks are read in; `every` has none.
    pub fn zone(&self) -> Option<&TimeZone> {
        match self {
            Calendar::Once(_, tz)
            | Calendar::Daily(_, tz)
            | Calendar::Weekly(_, _, tz)
            | Calendar::Cron(_, tz) => Some(tz),
            Calendar::Every(_) => None,
        }
    }

    /// The first instant strictly after `after_ms` this calendar is due, or
    /// `None` when it never is again. `every` counts from `anchor_ms`, the
    /// instant it was last due (or made).
    pub fn next_after(&self, after_ms: u64, anchor_ms: u64) -> Option<u64> {
        match self {
            Calendar::Once(at, _) => (*at > after_ms).then_some(*at),
            Calendar::Every(seconds) => {
                let period = seconds * 1000;
                if anchor_ms > after_ms {
                    return Some(anchor_ms);
                }
                let steps = (after_ms - anchor_ms) / period + 1;
                Some(anchor_ms + steps * period)
            }
            Calendar::Daily(time, tz) => {
                next_wall(after_ms, tz, |date| Some(date.to_datetime(*time)))
            }
            Calendar::Weekly(weekday, time, tz) => next_wall(after_ms, tz, |date| {
                (date.weekday() == *weekday).then(|| date.to_datetime(*time))
            }),
            Calendar::Cron(cron, tz) => {
                let from = zoned_at(after_ms, tz)?;
                let next = cron.find_next_occurrence(&from, false).ok()?;
                ms_of(next.timestamp())
            }
        }
    }

    /// The latest instant in `(after_ms, upto_ms]` this calendar is due,
    /// walking forward from `after_ms` (at most a year of minutes for cron).
    pub fn latest_in(&self, after_ms: u64, upto_ms: u64, anchor_ms: u64) -> Option<u64> {
        if let Calendar::Every(seconds) = self {
            let period = seconds * 1000;
            let first = self.next_after(after_ms, anchor_ms)?;
            if first > upto_ms {
                return None;
            }
            return Some(first + (upto_ms - first) / period * period);
        }
        let mut latest = None;
        let mut cursor = after_ms;
        for _ in 0..600_000 {
            match self.next_after(cursor, anchor_ms) {
                Some(next) if next <= upto_ms => {
                    latest = Some(next);
                    cursor = next;
                }
                _ => break,
            }
        }
        latest
    }
}

/// The first wall clock `pick` answers for a day, from `after_ms`'s day on
/// (eight days at most), read in `tz`, that is after `after_ms`.
fn next_wall(
    after_ms: u64,
    tz: &TimeZone,
    pick: impl Fn(jiff::civil::Date) -> Option<DateTime>,
) -> Option<u64> {
    let from = zoned_at(after_ms, tz)?;
    let mut date = from.date();
    for _ in 0..9 {
        if let Some(wall) = pick(date) {
            let instant = tz.to_ambiguous_zoned(wall).compatible().ok()?;
            let ms = ms_of(instant.timestamp())?;
            if ms > after_ms {
                return Some(ms);
            }
        }
        date = date.tomorrow().ok()?;
    }
    None
}

/// A named zone from the bundled database; `None` is the host's.
pub fn zone_of(zone: Option<&str>, host_zone: &str) -> Result<TimeZone, Refusal> {
    let name = zone.unwrap_or(host_zone);
    TimeZone::get(name).map_err(|_| Refusal::invalid("when.zone", sentences::BAD_ZONE))
}

/// `at` as an instant: an RFC 3339 time, or a wall clock in `tz`.
fn instant_of(at: &str, tz: &TimeZone) -> Result<u64, Refusal> {
    let bad = || Refusal::invalid("when.at", sentences::BAD_AT);
    if let Ok(ts) = at.parse::<Timestamp>() {
        return ms_of(ts).ok_or_else(bad);
    }
    let wall: DateTime = at.parse().map_err(|_| bad())?;
    let zoned = tz
        .to_ambiguous_zoned(wall)
        .compatible()
        .map_err(|_| bad())?;
    ms_of(zoned.timestamp()).ok_or_else(bad)
}

fn clock_of(time: &str) -> Result<Time, Refusal> {
    time.parse::<Time>()
        .map_err(|_| Refusal::invalid("when.time", sentences::BAD_TIME))
}

fn weekday_of(day: &str) -> Result<Weekday, Refusal> {
    Ok(
        match day.to_ascii_lowercase().get(..3).unwrap_or_default() {
            "mon" => Weekday::Monday,
            "tue" => Weekday::Tuesday,
            "wed" => Weekday::Wednesday,
            "thu" => Weekday::Thursday,
            "fri" => Weekday::Friday,
            "sat" => Weekday::Saturday,
            "sun" => Weekday::Sunday,
            _ => return Err(Refusal::invalid("when.weekday", sentences::BAD_WEEKDAY)),
        },
    )
}

/// `ms` as a zoned time in `tz`.
pub fn zoned_at(ms: u64, tz: &TimeZone) -> Option<Zoned> {
    let ts = Timestamp::from_millisecond(i64::try_from(ms).ok()?).ok()?;
    Some(ts.to_zoned(tz.clone()))
}

fn ms_of(ts: Timestamp) -> Option<u64> {
    u64::try_from(ts.as_millisecond()).ok()
}
