//! Team quiet hours (#1166): `prefs.quietHours {on, from, to, atEnd?}`, a
//! half-open wall-clock window `[from, to)` that may cross midnight. A task's
//! time is read in the task's own zone. Create and edit refuse a time inside
//! it (`every` and `cron` are let through, and said so); a delivery inside it
//! is held, then run once at the window's end or skipped (`atEnd`).

use super::refusal::{Refusal, sentences};
use super::timing::{Calendar, zoned_at};
use jiff::civil::Time;
use jiff::tz::TimeZone;
use serde_json::Value;

/// What a held run does when the window ends: the owner's choice per team.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AtEnd {
    /// Run once at the window's end (the default).
    RunOnce,
    /// Skip it: the next run is the next time after the window.
    Skip,
}

/// Quiet hours that are on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuietHours {
    pub from: Time,
    pub to: Time,
    pub at_end: AtEnd,
}

/// Reads `prefs.quietHours`; absent or `on: false` is off (`None`).
pub fn quiet_hours(pref: Option<&Value>) -> Result<Option<QuietHours>, Refusal> {
    let Some(pref) = pref.filter(|v| !v.is_null()) else {
        return Ok(None);
    };
    let bad = || Refusal::invalid("prefs.quietHours", sentences::QUIET_WINDOW);
    let on = pref.get("on").and_then(Value::as_bool).ok_or_else(bad)?;
    let clock = |key: &str| -> Result<Time, Refusal> {
        let text = pref.get(key).and_then(Value::as_str).ok_or_else(bad)?;
        if text.len() != 5 {
            return Err(bad());
        }
        text.parse::<Time>().map_err(|_| bad())
    };
    let (from, to) = (clock("from")?, clock("to")?);
    let at_end = match pref.get("atEnd").and_then(Value::as_str) {
        None | Some("run-once") => AtEnd::RunOnce,
        Some("skip") => AtEnd::Skip,
        Some(_) => return Err(bad()),
    };
    Ok(on.then_some(QuietHours { from, to, at_end }))
}

impl QuietHours {
    /// Whether the wall clock `time` is inside `[from, to)`.
    fn contains(&self, time: Time) -> bool {
        if self.from <= self.to {
            self.from <= time && time < self.to
        } else {
            time >= self.from || time < self.to
        }
    }

    /// When `instant_ms`, read in `tz`, is inside the window: the instant
    /// the window ends. `None` when it is outside.
    pub fn ends_after(&self, instant_ms: u64, tz: &TimeZone) -> Option<u64> {
        let zoned = zoned_at(instant_ms, tz)?;
        if !self.contains(zoned.time()) {
            return None;
        }
        let mut date = zoned.date();
        for _ in 0..3 {
            let end = tz
                .to_ambiguous_zoned(date.to_datetime(self.to))
                .compatible()
                .ok()?;
            let end_ms = u64::try_from(end.timestamp().as_millisecond()).ok()?;
            if end_ms > instant_ms {
                return Some(end_ms);
            }
            date = date.tomorrow().ok()?;
        }
        None
    }

    /// The refusal for a task first due at `due_ms` in `tz` inside the
    /// window, naming when it ends.
    fn refusal(&self) -> Refusal {
        Refusal::quiet(format!(
            "That time is inside the team's quiet hours, which end at {}; pick a time outside them.",
            self.to.strftime("%H:%M")
        ))
    }
}

/// Create and edit (#1166): a one-time, daily or weekly task whose next
/// time falls inside the window is refused; `every` and `cron` pass.
pub fn check_new_time(
    quiet: Option<&QuietHours>,
    calendar: &Calendar,
    next_run_at: Option<u64>,
    host_zone: &TimeZone,
) -> Result<(), Refusal> {
    let (Some(quiet), Some(next)) = (quiet, next_run_at) else {
        return Ok(());
    };
    if unchecked(calendar) {
        return Ok(());
    }
    let tz = calendar.zone().unwrap_or(host_zone);
    match quiet.ends_after(next, tz) {
        Some(_) => Err(quiet.refusal()),
        None => Ok(()),
    }
}

/// Whether a calendar is one quiet hours cannot check at create time.
pub fn unchecked(calendar: &Calendar) -> bool {
    matches!(calendar, Calendar::Every(_) | Calendar::Cron(..))
}
