//! Scheduled tasks (#354, #473, #1287, #1166, #1651): the stored task, its
//! timing, its last run, and the channel's requests and answers for them.
//! A task belongs to a Session: a Bot's own chat (its Session id) or a room
//! (the room's id is its own Session).

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// When a task runs. `at` is one instant; the others repeat. The schedule
/// tools take it as their `when` argument too (its schema derived here,
/// under the `schema` feature).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "schema", derive(schemars::JsonSchema))]
#[serde(tag = "kind", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Timing {
    /// One instant: `at` is an RFC 3339 time, or a wall clock
    /// (`2026-12-24T09:00`) read in `zone` (else the host's zone).
    At {
        at: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        zone: Option<String>,
    },
    /// Every `seconds` (60 to 604,800), or the older `minutes` form (#1651).
    Every {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        seconds: Option<u64>,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        minutes: Option<u64>,
    },
    /// Each day at `time` (`HH:MM`) in `zone`.
    Daily {
        time: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        zone: Option<String>,
    },
    /// Each week on `weekday` (`mon` … `sun`) at `time` in `zone`.
    Weekly {
        weekday: String,
        time: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        zone: Option<String>,
    },
    /// A cron rule (five or six fields) in `zone`.
    Cron {
        rule: String,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        zone: Option<String>,
    },
}

impl Timing {
    /// Whether the task runs once only.
    pub fn is_once(&self) -> bool {
        matches!(self, Timing::At { .. })
    }
}

/// A timing in a request: a timing, or `{kind: "keep"}` on an edit.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(untagged)]
pub enum WhenInput {
    Keep(KeepTiming),
    Timing(Timing),
}

/// `{kind: "keep"}`: the edit keeps the task's timing (#354).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct KeepTiming {
    pub kind: KeepKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum KeepKind {
    Keep,
}

/// A stored task: `state.schedules[<id>]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScheduleTask {
    pub id: String,
    /// The owning Session: a Bot's own-chat Session id or a room id.
    pub session_id: String,
    pub title: String,
    pub prompt: String,
    pub when: Timing,
    pub status: ScheduleStatus,
    /// The next instant it is due (ms since the epoch); none once a one-time
    /// task ran, or while paused.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub next_run_at: Option<u64>,
    /// A run held by quiet hours, released at the window's end (#1166).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub held_until: Option<u64>,
    /// The times quiet hours suppressed, newest last (at most 100).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub suppressed: Vec<u64>,
    /// The member who made it.
    pub created_by: String,
    pub created_at: u64,
    pub updated_at: u64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub paused_at: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ScheduleStatus {
    Active,
    Paused,
    /// A one-time task that ran: kept for its history, never due again.
    Done,
}

/// A task's last run (#473): `state.scheduleRuns[<id>]`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ScheduleRun {
    pub at: u64,
    pub result: RunResult,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The due time this run was for.
    pub scheduled_for: u64,
    /// Due while the host was down (#354).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub missed: bool,
    /// The Session the run went to, and the inbox item (own chat) or the
    /// room line (group) that carried it.
    pub session_id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub message_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub room_seq: Option<u64>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RunResult {
    Running,
    Ran,
    Failed,
    Stopped,
}

/// `copyFrom: {sessionId, id}` (#1287).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CopyFrom {
    pub session_id: String,
    pub id: String,
}

/// `schedule-create {botId | roomId, title, prompt, when}` or
/// `{botId | roomId, copyFrom}`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ScheduleCreate {
    #[serde(default)]
    pub bot_id: Option<String>,
    #[serde(default)]
    pub room_id: Option<String>,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub prompt: Option<String>,
    #[serde(default)]
    pub when: Option<Timing>,
    #[serde(default)]
    pub copy_from: Option<CopyFrom>,
}

/// `schedule-update {sessionId, id, title?, prompt?, when?, botId? | roomId?}`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ScheduleUpdate {
    pub session_id: String,
    pub id: String,
    #[serde(default)]
    pub title: Option<String>,
    #[serde(default)]
    pub prompt: Option<String>,
    #[serde(default)]
    pub when: Option<WhenInput>,
    /// Move the task to this Bot's own chat, or to this room.
    #[serde(default)]
    pub bot_id: Option<String>,
    #[serde(default)]
    pub room_id: Option<String>,
}

/// `schedule-pause | -resume | -delete | -retry {sessionId, id}`.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ScheduleRef {
    pub session_id: String,
    pub id: String,
}

/// `schedules {botId?, roomId?}`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ScheduleList {
    #[serde(default)]
    pub bot_id: Option<String>,
    #[serde(default)]
    pub room_id: Option<String>,
}

/// One row of `schedules`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScheduleRow {
    pub id: String,
    pub title: String,
    pub prompt: String,
    pub when: Timing,
    pub next_run_at: Option<u64>,
    pub status: ScheduleStatus,
    pub session_id: String,
    /// The Bot whose own chat owns it, or the room.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bot_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub room_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub last_run: Option<LastRun>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub held_until: Option<u64>,
    pub suppressed: usize,
}

/// A row's `lastRun: {at, result, reason?, missed?}`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct LastRun {
    pub at: u64,
    pub result: RunResult,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub missed: bool,
}

/// `schedules` → `{schedules, quietUnchecked?, automation}`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ScheduleRows {
    pub schedules: Vec<ScheduleRow>,
    /// Quiet hours are on and a repeat or cron task exists (#1166).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub quiet_unchecked: bool,
    pub automation: bool,
}

/// A write's answer: `{schedule}` (none after a delete).
#[derive(Debug, Clone, Serialize)]
pub struct ScheduleAnswer {
    pub schedule: Option<ScheduleRow>,
}

/// The stored schedule collections, by task id.
pub type Schedules = BTreeMap<String, ScheduleTask>;
/// The last runs, by task id.
pub type ScheduleRuns = BTreeMap<String, ScheduleRun>;
