//! `state` → the team as the actor may see it (#49): a view that borrows
//! the team's records while it is written out, so a client's poll copies
//! nothing but the bytes. No credential digest is in any of its rows.

use crate::state::{Grant, InvitationStatus, Task};
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
    /// The unfinished cards; `finishedTasks` counts the others.
    pub tasks: Vec<&'a Task>,
    pub finished_tasks: usize,
    pub grants: BTreeMap<&'a String, &'a Vec<Grant>>,
    /// The deployment's preferences; `{}` once they are shared (#49).
    pub prefs: BTreeMap<String, Value>,
    pub projects: Vec<&'a Value>,
    pub invitations: Vec<InvitationRow<'a>>,
    pub auth_sessions: Vec<AuthSessionRow<'a>>,
    /// The journal's sequence number: it moves on every accepted change.
    pub revision: u64,
    /// The running work the actor may see, as the turns draw it.
    pub work: Value,
    /// Why this host only reads its home, or null.
    pub read_only: Option<ReadOnlyNote>,
}

/// Who is asking: `{memberId, singleOwner}`.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ActorView {
    pub member_id: Option<String>,
    pub single_owner: bool,
}

/// The default model, whether it runs offline on the built-in mock, and the
/// configured model names (a page's model picker).
#[derive(Debug, Clone, Serialize)]
pub struct ModelView<'a> {
    pub default: &'a str,
    pub offline: bool,
    pub names: Vec<&'a str>,
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
