//! Who is calling (#48): the member behind the `x-flybot-member-session`
//! header (`body.actorId` is never read), and the member a change acts for
//! (the host owner record made on first need, #47).

use crate::ids::{new_id, secret_hash};
use flybot_core::access::{Actor, enforced, host_owner_id};
use flybot_protocol::state::{Member, TeamState};
use flybot_protocol::{ApiError, ErrorCode};
use flybot_store::Change;

pub const SESSION_HEADER: &str = "x-flybot-member-session";

/// The caller as resolved from the header.
#[derive(Debug, Clone, PartialEq)]
pub enum Caller {
    Actor(Actor),
    /// Sessions exist and the request carries none.
    Anonymous,
    /// The header names no live session (revoked, or never issued).
    BadToken,
}

impl Caller {
    /// The actor, or the refusal for a caller that must sign in first.
    pub fn require(&self) -> Result<&Actor, ApiError> {
        match self {
            Caller::Actor(actor) => Ok(actor),
            Caller::Anonymous => Err(ApiError::new(
                ErrorCode::Unauthorized,
                "Sign in first: send your session token in the x-flybot-member-session header.",
            )),
            Caller::BadToken => Err(ApiError::new(
                ErrorCode::Unauthorized,
                "This session token is not valid any more; redeem a new invitation to sign in again.",
            )),
        }
    }
}

pub fn resolve(state: &TeamState, token: Option<&str>) -> Caller {
    match token {
        Some(token) => {
            let hash = secret_hash(token);
            state
                .auth_sessions
                .values()
                .find(|session| session.token_hash == hash)
                .map_or(Caller::BadToken, |session| {
                    Caller::Actor(Actor::Member {
                        member_id: session.member_id.clone(),
                        session_id: session.id.clone(),
                    })
                })
        }
        None if enforced(state) => Caller::Anonymous,
        None => Caller::Actor(Actor::SingleOwner),
    }
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
