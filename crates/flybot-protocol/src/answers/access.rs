//! The sign-in endpoints' answers (#48): invitations, sessions and members
//! as the channel shows them, never with a stored digest.

use crate::state::InvitationStatus;
use serde::Serialize;

/// A member's id and name.
#[derive(Debug, Clone, Serialize)]
pub struct MemberName {
    pub id: String,
    pub name: String,
}

/// `auth-invite` → `{invitation: {id, code, name, memberId, status}}`: the
/// code is shown once, here.
#[derive(Debug, Clone, Serialize)]
pub struct InvitationMade {
    pub invitation: NewInvitation,
}

/// A new invitation with its one-time code.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct NewInvitation {
    pub id: String,
    pub code: String,
    pub name: Option<String>,
    pub member_id: Option<String>,
    pub status: InvitationStatus,
}

/// `auth-redeem` → `{session: {id, token}, member: {id, name}}`.
#[derive(Debug, Clone, Serialize)]
pub struct Redeemed {
    pub session: NewSession,
    pub member: MemberName,
}

/// A new session with its token, shown once.
#[derive(Debug, Clone, Serialize)]
pub struct NewSession {
    pub id: String,
    pub token: String,
}

/// `auth-whoami` → `{member, session, singleOwner}`; `member` and
/// `session` are null while no one has signed in.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct WhoAmI {
    pub member: Option<MemberName>,
    pub session: Option<SessionId>,
    pub single_owner: bool,
}

/// A session named by its id.
#[derive(Debug, Clone, Serialize)]
pub struct SessionId {
    pub id: String,
}

/// `auth-revoke` → `{session: {id, revoked}}`.
#[derive(Debug, Clone, Serialize)]
pub struct SessionRevoked {
    pub session: RevokedSession,
}

/// The session a revoke signed out.
#[derive(Debug, Clone, Serialize)]
pub struct RevokedSession {
    pub id: String,
    pub revoked: bool,
}

/// `auth-revoke-invite` → `{invitation: {id, status}}`.
#[derive(Debug, Clone, Serialize)]
pub struct InvitationRevoked {
    pub invitation: InvitationState,
}

/// An invitation's id and where it stands.
#[derive(Debug, Clone, Serialize)]
pub struct InvitationState {
    pub id: String,
    pub status: InvitationStatus,
}

/// `auth-remove-member` → `{member: {id, removed}}`.
#[derive(Debug, Clone, Serialize)]
pub struct MemberRemoved {
    pub member: RemovedMember,
}

/// The member a removal took off the team.
#[derive(Debug, Clone, Serialize)]
pub struct RemovedMember {
    pub id: String,
    pub removed: bool,
}

/// `auth-sessions` → `{sessions: [...]}`: the caller's own sign-ins, newest
/// first, for Settings to list and revoke (issue 29).
#[derive(Debug, Clone, Serialize)]
pub struct SessionList {
    pub sessions: Vec<SessionSummary>,
}

/// One sign-in as Settings shows it: never its token.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SessionSummary {
    pub id: String,
    pub created_at: u64,
    pub last_seen_at: Option<u64>,
    /// When it expires if it stays unused, and at the latest.
    pub expires_at: u64,
    /// The session this request came with.
    pub current: bool,
}
