//! The saved team, `state.json` version 2 with the identity schema of #47.
//!
//! Every record keeps the fields this build does not know in `extra`, so a file
//! written by a newer build loses nothing when this one writes it back.

use crate::approval::Approval;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// The state version this build reads and writes (#47).
pub const STATE_VERSION: u64 = 2;

/// Fields a record carries that this build does not model.
pub type Extra = BTreeMap<String, Value>;

/// The whole team as `state.json` holds it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TeamState {
    pub version: u64,
    /// The journal sequence number this team includes; the channel's `revision`.
    #[serde(default)]
    pub journal_seq: u64,
    /// The chained digest of the journal line at `journal_seq` (hex SHA-256).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub journal_digest: Option<String>,
    #[serde(default)]
    pub members: BTreeMap<String, Member>,
    #[serde(default)]
    pub bots: BTreeMap<String, Bot>,
    /// The owner's designated Chief (#47): one of `main_bot_ids`, or none.
    #[serde(default)]
    pub designated_chief_id: Option<String>,
    /// The deployment-wide Main Bot list (#613).
    #[serde(default)]
    pub main_bot_ids: Vec<String>,
    #[serde(default)]
    pub rooms: BTreeMap<String, Room>,
    #[serde(default)]
    pub tasks: BTreeMap<String, Task>,
    /// Per-Bot grants (#90): default deny, so a Bot absent here has none.
    #[serde(default)]
    pub grants: BTreeMap<String, Vec<Grant>>,
    #[serde(default)]
    pub flybot: FlybotSection,
    #[serde(default)]
    pub prefs: BTreeMap<String, Value>,
    #[serde(default)]
    pub projects: BTreeMap<String, Value>,
    #[serde(default)]
    pub invitations: BTreeMap<String, Invitation>,
    #[serde(default)]
    pub auth_sessions: BTreeMap<String, AuthSession>,
    /// Session id → the id of the deleted Bot that owned it (#1453); only grows.
    #[serde(default)]
    pub retired_sessions: BTreeMap<String, String>,
    /// A workflow run's job card id → the Project it is bound to (#1691).
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub project_runs: BTreeMap<String, String>,
    /// Scheduled tasks by id (#354), active, paused and done.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub schedules: crate::schedule::Schedules,
    /// Each task's last run (#473), the newest 200 tasks.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub schedule_runs: crate::schedule::ScheduleRuns,
    /// Room id → the question a Bot asked about work that room's member
    /// handed it, waiting in the room's dock (#550): one per room.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub questions: BTreeMap<String, crate::group_question::GroupQuestion>,
    /// Project id → its memory (#1712): decisions, questions, the digest.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub project_memory: BTreeMap<String, crate::project_memory::ProjectMemory>,
    /// Uploads by id (issue 32); their bytes live under `attachments/`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub attachments: BTreeMap<String, crate::attachment::Attachment>,
    /// Bot Social on Matrix (issue 33): identity, friends, rooms, sync.
    #[serde(default, skip_serializing_if = "crate::social::SocialState::is_empty")]
    pub social: crate::social::SocialState,
    #[serde(flatten)]
    pub extra: Extra,
}

/// A person of the team (#47, #48).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Member {
    pub id: String,
    pub name: String,
    pub created_at: u64,
    #[serde(flatten)]
    pub extra: Extra,
}

/// A Bot of the team. `owner_id` names the member that owns it (#47).
///
/// Its JSON (camelCase keys, `createdBy` and `false` flags left out) is
/// written and read in `bot_record`. The typed fields after `hidden` are keys
/// the record carried in `extra` before they were typed: they keep their
/// keys, are written in key order among `extra`'s own, so a Bot's bytes are
/// what they were, and a value of another shape stays in `extra`, read as
/// absent as before.
#[derive(Debug, Clone, PartialEq)]
pub struct Bot {
    pub id: String,
    pub name: String,
    pub owner_id: String,
    pub model: String,
    pub instructions: String,
    /// The Bot's own chat Session.
    pub session_id: String,
    pub created_at: u64,
    pub updated_at: u64,
    /// `createdBy`: the parent Bot that made this one (#1582: never a
    /// person, never a run's caller).
    pub created_by: Option<String>,
    /// A workflow run Bot (#1373): hidden and announced to nobody.
    pub run: bool,
    pub hidden: bool,
    /// `role`: the Bot's queue role (#1247), a short name such as `Dev`.
    pub role: Option<String>,
    /// `external`: the record of an external member (#198), a subprocess or
    /// OpenCode. Kept as written: `flybot-interop` checks it at each turn, so
    /// a record that no longer validates is refused then, never run.
    pub external: Option<Value>,
    /// `recordDecisions`: the Bot opted in to `record_decision` (#396).
    pub record_decisions: Option<bool>,
    /// `retired`: the Bot was archived (#638); terminal, never cleared.
    pub retired: Option<bool>,
    /// `thinking`: the level its requests ask for; none asks nothing.
    pub thinking: Option<crate::ThinkingLevel>,
    /// `harness`: the tier its turns run under (#874 Step 1); none is the
    /// default harness.
    pub harness: Option<crate::HarnessId>,
    /// `madeByMember`: the member whose call made the Bot, when a person
    /// (not a Bot) made it.
    pub made_by_member: Option<String>,
    pub extra: Extra,
}

impl Bot {
    /// A new Bot: no instructions, no role, not a run Bot, not hidden,
    /// updated when it was made. The one place a Bot is built field by
    /// field, so a new field gets its default here; callers set what differs.
    pub fn new(
        id: impl Into<String>,
        name: impl Into<String>,
        owner_id: impl Into<String>,
        model: impl Into<String>,
        session_id: impl Into<String>,
        created_at: u64,
    ) -> Bot {
        Bot {
            id: id.into(),
            name: name.into(),
            owner_id: owner_id.into(),
            model: model.into(),
            instructions: String::new(),
            session_id: session_id.into(),
            created_at,
            updated_at: created_at,
            created_by: None,
            run: false,
            hidden: false,
            role: None,
            external: None,
            record_decisions: None,
            retired: None,
            thinking: None,
            harness: None,
            made_by_member: None,
            extra: Extra::default(),
        }
    }

    /// Whether the Bot opted in to `record_decision` (#396).
    pub fn records_decisions(&self) -> bool {
        self.record_decisions == Some(true)
    }

    /// Whether the Bot is retired (#638).
    pub fn is_retired(&self) -> bool {
        self.retired == Some(true)
    }
}

/// A group room: Bots (and later people) that talk in rounds.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Room {
    pub id: String,
    pub name: String,
    pub owner_id: String,
    /// Member Bot ids in the room's speaking order.
    #[serde(default)]
    pub members: Vec<String>,
    /// The member Bot that speaks first, or none.
    #[serde(default)]
    pub admin: Option<String>,
    /// Typed participants (#50); people and remote Bots.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub participants: Vec<Value>,
    /// Member Bot id → that member's group Session id.
    #[serde(default)]
    pub sessions: BTreeMap<String, String>,
    pub created_at: u64,
    pub updated_at: u64,
    #[serde(flatten)]
    pub extra: Extra,
}

/// A task card. The task model's own fields (board, waits, contract, queues)
/// live in `extra` and are read and written through `task::TaskFields`, so a
/// card stored before them reads back unchanged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Task {
    pub id: String,
    pub bot_id: String,
    #[serde(default)]
    pub title: String,
    pub status: TaskStatus,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requester_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub room_id: Option<String>,
    pub created_at: u64,
    pub updated_at: u64,
    #[serde(flatten)]
    pub extra: Extra,
}

/// Task states as the spec draws them (#54).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
#[derive(strum::IntoStaticStr, strum::EnumString, strum::EnumIter)]
#[strum(serialize_all = "kebab-case")]
pub enum TaskStatus {
    Open,
    Claimed,
    Working,
    Blocked,
    ResultReady,
    Accepted,
    Cancelled,
    Failed,
}

impl TaskStatus {
    /// The status as the channel and the journal spell it (`"result-ready"`).
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// Accepted, cancelled and failed end a task; nothing moves it again.
    pub fn is_terminal(self) -> bool {
        match self {
            TaskStatus::Accepted | TaskStatus::Cancelled | TaskStatus::Failed => true,
            TaskStatus::Open
            | TaskStatus::Claimed
            | TaskStatus::Working
            | TaskStatus::Blocked
            | TaskStatus::ResultReady => false,
        }
    }
}

/// One grant of a Bot to one grantee, optionally scoped to a room (#90).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Grant {
    /// A member id or a Bot id.
    pub grantee: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub room_id: Option<String>,
}

/// The `flybot` section: approvals now, more later.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FlybotSection {
    /// Tool approvals and held sends, by id (#540, #754, #52).
    #[serde(default)]
    pub approvals: BTreeMap<String, Approval>,
    #[serde(flatten)]
    pub extra: Extra,
}

/// A sign-in invitation (#48). Only the code's SHA-256 is kept.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Invitation {
    pub id: String,
    pub code_hash: String,
    /// The member the code signs in as; none makes a new member on redeem.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub member_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The member who asked for it; none for the bootstrap first invite.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub invited_by: Option<String>,
    pub status: InvitationStatus,
    pub created_at: u64,
    #[serde(flatten)]
    pub extra: Extra,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum InvitationStatus {
    Open,
    Redeemed,
    Revoked,
}

/// A member's signed-in session (#48). Only the token's SHA-256 is kept,
/// so `state.json` never holds a credential.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AuthSession {
    pub id: String,
    pub member_id: String,
    pub token_hash: String,
    pub created_at: u64,
    /// When the session was last used, to the hour (issue 29): an idle
    /// session expires. Unset until its first use after sign-in.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub last_seen_at: Option<u64>,
    #[serde(flatten)]
    pub extra: Extra,
}
