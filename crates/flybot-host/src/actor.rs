//! Who is calling (#48): the member behind the `x-flybot-member-session`
//! header. `body.actorId` is never read.

use crate::ids::secret_hash;
use flybot_core::access::{Actor, enforced};
use flybot_protocol::state::TeamState;
use flybot_protocol::{ApiError, ErrorCode};

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
