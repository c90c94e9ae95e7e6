//! Who is calling (#48, issue 29): the owner behind the owner's token
//! (`Authorization: Bearer`), a member behind a live sign-in session (the
//! header, the bearer or the page's cookie), or nobody. `body.actorId` is
//! never read. An anonymous caller is somebody only in the owner's explicit
//! open mode, and only while the home has no other member: whether access
//! is open follows who the home's members are, never whether a session is
//! live.

use crate::edge::EdgeConfig;
use crate::ids::{new_id, secret_hash};
use crate::web::guard::Credential;
use flybot_core::access::{Actor, enforced, host_owner_id};
use flybot_protocol::state::{AuthSession, Member, TeamState};
use flybot_protocol::{ApiError, ErrorCode};
use flybot_store::Change;

pub const SESSION_HEADER: &str = "x-flybot-member-session";

/// The session id a journal line and `auth-whoami` show for a call made
/// with the owner's token rather than a session.
pub const OWNER_TOKEN_SESSION: &str = "owner-token";

/// The caller as resolved from the request's credential.
#[derive(Debug, Clone, PartialEq)]
pub enum Caller {
    Actor(Actor),
    /// The request carries no credential and the host is not open.
    Anonymous,
    /// The credential names no live session (revoked, or never issued).
    BadToken,
    /// The credential names a session that expired.
    Expired,
}

impl Caller {
    /// The actor, or the refusal for a caller that must sign in first.
    pub fn require(&self) -> Result<&Actor, ApiError> {
        let sentence = match self {
            Caller::Actor(actor) => return Ok(actor),
            Caller::Anonymous => {
                "Sign in first: open the link `flybot serve` printed (or run `flybot token`), send the owner's token as Authorization: Bearer, or redeem an invitation."
            }
            Caller::BadToken => {
                "This sign-in is not valid any more; sign in again with the owner's link or a new invitation."
            }
            Caller::Expired => {
                "This sign-in expired; sign in again with the owner's link or a new invitation."
            }
        };
        Err(ApiError::new(ErrorCode::Unauthorized, sentence))
    }
}

/// What resolving a caller needs besides the team: the owner token's
/// digest, the edge's settings, and the time.
pub struct Admission<'a> {
    pub owner_token_hash: Option<&'a str>,
    pub edge: &'a EdgeConfig,
    pub now_ms: u64,
}

/// Resolves `credential` against the team.
pub fn resolve(state: &TeamState, credential: &Credential, admission: &Admission<'_>) -> Caller {
    let Some(token) = credential.token() else {
        return match admission.edge.open_mode && !enforced(state) {
            true => Caller::Actor(Actor::SingleOwner),
            false => Caller::Anonymous,
        };
    };
    let hash = secret_hash(token);
    // The owner's token is taken as a bearer or a header, never from a
    // cookie: the page trades it for a session of its own.
    let owner_token = admission.owner_token_hash == Some(hash.as_str());
    if owner_token && !matches!(credential, Credential::Cookie(_)) {
        return Caller::Actor(owner_actor(state));
    }
    match state.auth_sessions.values().find(|s| s.token_hash == hash) {
        None => Caller::BadToken,
        Some(session) if expired(session, admission) => Caller::Expired,
        Some(session) => Caller::Actor(Actor::Member {
            member_id: session.member_id.clone(),
            session_id: session.id.clone(),
        }),
    }
}

/// The owner as she acts with her token: the home's one person, or, once
/// the home has other members, a member like them, scoped to her own.
fn owner_actor(state: &TeamState) -> Actor {
    match host_owner_id(state) {
        Some(member_id) if enforced(state) => Actor::Member {
            member_id,
            session_id: OWNER_TOKEN_SESSION.to_owned(),
        },
        _ => Actor::SingleOwner,
    }
}

/// Whether a session is past its absolute lifetime or idle too long.
pub fn expired(session: &AuthSession, admission: &Admission<'_>) -> bool {
    let now = admission.now_ms;
    let seen = session.last_seen_at.unwrap_or(session.created_at);
    now.saturating_sub(session.created_at) >= admission.edge.session_max_ms
        || now.saturating_sub(seen) >= admission.edge.session_idle_ms
}

/// How stale a session's `lastSeenAt` may get before a use records it: an
/// hour, or a tenth of the idle limit when that is shorter, so the idle
/// clock is right to a tenth and a busy page writes once an hour at most.
pub fn touch_due(session: &AuthSession, edge: &EdgeConfig, now_ms: u64) -> bool {
    let every = (edge.session_idle_ms / 10).min(60 * 60 * 1000);
    let seen = session.last_seen_at.unwrap_or(session.created_at);
    now_ms.saturating_sub(seen) >= every
}

/// The label a journal line records for the actor.
pub fn journal_actor(actor: &Actor) -> &str {
    match actor {
        Actor::SingleOwner => "owner",
        Actor::Member { member_id, .. } => member_id,
    }
}

/// The host owner's id, making the owner record if the home has none.
pub fn ensure_owner(change: &mut Change<'_>) -> String {
    if let Some(id) = host_owner_id(change.state()) {
        return id;
    }
    let member = Member {
        id: new_id("member"),
        name: "Owner".to_owned(),
        created_at: change.now_ms(),
        extra: Default::default(),
    };
    change.put_member(&member);
    member.id
}

/// The member the actor acts as (the single owner is the host's owner).
pub fn acting_member(change: &mut Change<'_>, actor: &Actor) -> String {
    match actor {
        Actor::SingleOwner => ensure_owner(change),
        Actor::Member { member_id, .. } => member_id.clone(),
    }
}
