//! `state` → the team as the actor may see it (#49): a view that borrows
//! the team's records while it is written out, so a client's poll copies
//! nothing but the bytes. No credential digest is in any of its rows.

use crate::state::{Grant, InvitationStatus};
use serde::Serialize;
use serde_json::Value;
use std::collections::BTreeMap;

/// The whole view, in the order a client reads it.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StateView<'a> {
    pub version: u64,
    pub actor: ActorView,
    pub model: ModelView<'a>,
    pub members: Vec<MemberRow<'a>>,
    /// Bots as the channel shows them (`bot_view`).
    pub bots: Vec<Value>,
    pub main_bot_ids: Vec<&'a String>,
    pub designated_chief_id: Option<&'a String>,
    /// Rooms as the channel shows them (`room_view`).
    pub rooms: Vec<Value>,
    /// The unfinished cards, each with its viewer's moves and without
    /// host-only fields (#1253); `finishedTasks` counts the others.
    pub tasks: Vec<TaskView<'a>>,
    pub finished_tasks: usize,
    /// Per Bot, the grants the actor sees (`visibility::grants_seen`).
    pub grants: BTreeMap<&'a String, Vec<&'a Grant>>,
    /// The deployment's preferences; `{}` once they are shared (#49).
    pub prefs: BTreeMap<String, Value>,
    pub projects: Vec<&'a Value>,
    pub invitations: Vec<InvitationRow<'a>>,
    /// Room id → the question waiting in that room's dock (#550), for the
    /// asking Bot's owner and the room's owner only.
    pub questions: BTreeMap<&'a String, &'a crate::group_question::GroupQuestion>,
    pub auth_sessions: Vec<AuthSessionRow<'a>>,
    /// The saved keys by name and scope, never a value; `[]` once they are
    /// shared (#49, #545).
    pub secrets: Vec<crate::secrets::SecretRow>,
    /// The connectors by id, kind and status, never a key; `[]` once they
    /// are shared (#49, #311, #1266).
    pub connectors: Vec<ConnectorSummary>,
    /// The journal's sequence number: it moves on every accepted change.
    pub revision: u64,
    /// The running work the actor may see, as the turns draw it.
    pub work: Value,
    /// Why this host only reads its home, or null.
    pub read_only: Option<ReadOnlyNote>,
}

/// A card as the view carries it: the record and the moves the viewer may
/// make on it (issue 31).
#[derive(Debug, Clone, Serialize)]
pub struct TaskView<'a> {
    #[serde(flatten)]
    pub task: crate::task_view::PublicTask<'a>,
    pub moves: Vec<crate::task::TaskMove>,
}

/// Who is asking: `{memberId, singleOwner, sharedSurfaces}`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ActorView {
    pub member_id: Option<String>,
    pub single_owner: bool,
    /// What the caller may do with the keys and connectors (issue 39), so
    /// a page offers only the controls the host accepts.
    pub shared_surfaces: SharedSurfaceAccess,
}

/// A caller's reach over the host-wide keys and connectors (#49, issue
/// 39); `flybot_core::shared_surfaces` decides it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum SharedSurfaceAccess {
    /// A home with one person: hers to read, add, change and remove.
    Manage,
    /// The host's owner on a shared host: reads the rows and retries a
    /// saved connector; adds, changes and removes nothing (#49).
    Watch,
    /// Any other member: neither the rows nor the controls (#49).
    Blocked,
}

impl SharedSurfaceAccess {
    /// Whether the caller reads the rows (names, status, errors).
    pub fn may_read(self) -> bool {
        matches!(self, Self::Manage | Self::Watch)
    }

    /// Whether the caller may mount a saved connector again.
    pub fn may_retry(self) -> bool {
        matches!(self, Self::Manage | Self::Watch)
    }

    /// Whether the caller may add, change or remove a connector or a key.
    pub fn may_write(self) -> bool {
        matches!(self, Self::Manage)
    }
}

/// The default model, whether it runs offline on the built-in mock, and the
/// configured model names (a page's model picker).
#[derive(Debug, Clone, Serialize)]
pub struct ModelView<'a> {
    pub default: &'a str,
    pub offline: bool,
    pub names: Vec<String>,
}

/// A member: `{id, name, createdAt}`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct MemberRow<'a> {
    pub id: &'a str,
    pub name: &'a str,
    pub created_at: u64,
}

/// An invitation, without its code's digest.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct InvitationRow<'a> {
    pub id: &'a str,
    pub name: Option<&'a str>,
    pub member_id: Option<&'a str>,
    pub status: InvitationStatus,
    pub created_at: u64,
}

/// A signed-in session, without its token's digest.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AuthSessionRow<'a> {
    pub id: &'a str,
    pub member_id: &'a str,
    pub created_at: u64,
}

/// `{message}`: why the home is read-only.
#[derive(Debug, Clone, Serialize)]
pub struct ReadOnlyNote {
    pub message: String,
}

/// A connector in the view: what it is and where it stands, never a key,
/// a command line or a URL (a URL may carry a token).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ConnectorSummary {
    pub id: String,
    /// `mcp` or `channel`.
    pub kind: String,
    pub status: crate::connectors::ConnectorStatus,
    /// How many tools it mounts (an MCP server's).
    pub tool_count: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// The Bot a channel talks to.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bot_id: Option<String>,
}

impl ConnectorSummary {
    pub fn of(row: &crate::connectors::ConnectorRow) -> ConnectorSummary {
        ConnectorSummary {
            id: row.id.clone(),
            kind: row.kind.clone(),
            status: row.status,
            tool_count: row.tools.len(),
            error: row.error.clone(),
            bot_id: row.channel.as_ref().map(|c| c.bot_id.clone()),
        }
    }
}
