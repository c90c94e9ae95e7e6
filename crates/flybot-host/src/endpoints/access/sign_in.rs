//! Member sign-in (#48): invitations, redeeming them for a session, sign-out,
//! and removing a member. All of it runs inside `Team::mutate`, which is one
//! writer, so two removals cannot both pass the last-member check.

use crate::actor::{OWNER_TOKEN_SESSION, acting_member, ensure_owner, journal_actor};
use crate::edge::EdgeConfig;
use crate::ids::{new_id, new_secret, secret_hash};
use crate::team::Team;
use flybot_core::access::{Actor, host_owner_id};
use flybot_core::names::{clean_name, clean_optional_name};
use flybot_protocol::answers::{
    InvitationMade, InvitationRevoked, InvitationState, MemberName, MemberRemoved, NewInvitation,
    NewSession, Redeemed, RemovedMember, RevokedSession, SessionId, SessionList, SessionRevoked,
    SessionSummary, WhoAmI,
};
use flybot_protocol::channel::{AuthInvite, AuthRedeem, AuthRemoveMember, AuthRevoke, ById};
use flybot_protocol::state::{AuthSession, Invitation, InvitationStatus, Member};
use flybot_protocol::{ApiError, ErrorCode};
use serde_json::Value;

fn no_randomness() -> ApiError {
    ApiError::new(
        ErrorCode::Stale,
        "The host could not draw a random code from the system; try again.",
    )
}

/// `auth-invite {name?}` → `{invitation: {id, code}}`: a new member's
/// invitation. Invitations are for other people only (issue 29): the owner
/// signs in with her token, so no code ever names her.
pub async fn invite(
    team: &Team,
    actor: &Actor,
    req: AuthInvite,
) -> Result<InvitationMade, ApiError> {
    let name = clean_optional_name("name", req.name.as_deref())?;
    let code = new_secret().ok_or_else(no_randomness)?;
    let code_hash = secret_hash(&code);
    let invitation = team
        .mutate(journal_actor(actor), |change| {
            // The owner's record exists before anyone she invites.
            let invited_by = Some(acting_member(change, actor));
            let invitation = Invitation {
                id: new_id("invite"),
                code_hash,
                member_id: None,
                name,
                invited_by,
                status: InvitationStatus::Open,
                created_at: change.now_ms(),
                extra: Default::default(),
            };
            change.put_invitation(&invitation);
            Ok(invitation)
        })
        .await?;
    Ok(InvitationMade {
        invitation: NewInvitation {
            id: invitation.id,
            code,
            name: invitation.name,
            member_id: invitation.member_id,
            status: invitation.status,
        },
    })
}

/// `auth-redeem {code, name}` → `{session: {id, token}, member: {id, name}}`.
pub async fn redeem(team: &Team, req: AuthRedeem) -> Result<Redeemed, ApiError> {
    let name = clean_name("name", &req.name)?;
    let token = new_secret().ok_or_else(no_randomness)?;
    let code_hash = secret_hash(req.code.trim());
    let token_hash = secret_hash(&token);
    let (session, member) = team
        .mutate("redeem", |change| {
            let state = change.state();
            let Some(invitation) = state
                .invitations
                .values()
                .find(|inv| inv.code_hash == code_hash)
                .cloned()
            else {
                return Err(ApiError::new(
                    ErrorCode::Unauthorized,
                    "This invitation code is not known; ask a member for a new one.",
                )
                .with("reason", "unknown"));
            };
            match invitation.status {
                InvitationStatus::Open => {}
                InvitationStatus::Revoked => {
                    return Err(ApiError::new(
                        ErrorCode::Unauthorized,
                        "This invitation was revoked; ask a member for a new one.",
                    )
                    .with("reason", "revoked"));
                }
                InvitationStatus::Redeemed => {
                    return Err(ApiError::new(
                        ErrorCode::Unauthorized,
                        "This invitation was already used; ask a member for a new one.",
                    )
                    .with("reason", "used"));
                }
            }
            let member = match &invitation.member_id {
                Some(id) => {
                    let Some(existing) = state.members.get(id) else {
                        return Err(ApiError::new(
                            ErrorCode::Stale,
                            "The member this invitation was for has been removed; ask for a new invitation.",
                        ));
                    };
                    Member { name: name.clone(), ..existing.clone() }
                }
                None => Member {
                    id: new_id("member"),
                    name: name.clone(),
                    created_at: change.now_ms(),
                    extra: Default::default(),
                },
            };
            let session = new_session(member.id.clone(), token_hash, change.now_ms());
            change.put_member(&member);
            change.put_auth_session(&session);
            change.put_invitation(&Invitation { status: InvitationStatus::Redeemed, ..invitation });
            Ok((session, member))
        })
        .await?;
    Ok(redeemed(session, token, member))
}

/// The owner's page trades her token for a session of its own (issue 29):
/// `{session: {id, token}, member: {id, name}}`, the owner renamed to
/// `name` when one is given. The caller has checked the token.
pub async fn owner_session(team: &Team, name: Option<&str>) -> Result<Redeemed, ApiError> {
    let name = clean_optional_name("name", name)?;
    let token = new_secret().ok_or_else(no_randomness)?;
    let token_hash = secret_hash(&token);
    let (session, member) = team
        .mutate("owner", |change| {
            let owner_id = ensure_owner(change);
            let mut member = change
                .state()
                .members
                .get(&owner_id)
                .cloned()
                .ok_or_else(|| {
                    ApiError::new(ErrorCode::Stale, "The owner's record is gone; try again.")
                })?;
            if let Some(name) = name {
                member.name = name;
                change.put_member(&member);
            }
            let session = new_session(owner_id, token_hash, change.now_ms());
            change.put_auth_session(&session);
            Ok((session, member))
        })
        .await?;
    Ok(redeemed(session, token, member))
}

/// A new sign-in session of `member_id`, kept by its token's digest.
fn new_session(member_id: String, token_hash: String, now_ms: u64) -> AuthSession {
    AuthSession {
        id: new_id("auth"),
        member_id,
        token_hash,
        created_at: now_ms,
        last_seen_at: None,
        extra: Default::default(),
    }
}

/// What a sign-in answers: the session's id and token (shown only now)
/// and the member it signed in.
fn redeemed(session: AuthSession, token: String, member: Member) -> Redeemed {
    Redeemed {
        session: NewSession {
            id: session.id,
            token,
        },
        member: MemberName {
            id: member.id,
            name: member.name,
        },
    }
}

/// `auth-whoami` → `{member, session, singleOwner}`.
pub fn whoami(team: &Team, actor: &Actor) -> WhoAmI {
    team.store().read(|state| {
        let member_id = actor.member_id(state);
        let member = member_id
            .as_ref()
            .and_then(|id| state.members.get(id))
            .map(|m| MemberName {
                id: m.id.clone(),
                name: m.name.clone(),
            });
        let session = match actor {
            Actor::SingleOwner => None,
            Actor::Member { session_id, .. } => Some(SessionId {
                id: session_id.clone(),
            }),
        };
        WhoAmI {
            member,
            session,
            single_owner: matches!(actor, Actor::SingleOwner),
        }
    })
}

/// `auth-revoke {sessionId?}`: signs out the caller's session, or another
/// session of the same member (Settings' list, issue 29). A call made with
/// the owner's token names the session to revoke.
pub async fn revoke(
    team: &Team,
    actor: &Actor,
    req: AuthRevoke,
) -> Result<SessionRevoked, ApiError> {
    let own = match actor {
        Actor::Member { session_id, .. } if session_id != OWNER_TOKEN_SESSION => Some(session_id),
        _ => None,
    };
    let Some(target) = req.session_id.or_else(|| own.cloned()) else {
        return Err(ApiError::new(
            ErrorCode::Invalid,
            "Name the session to sign out (sessionId): this call came with the owner's token, not a session.",
        )
        .with("field", "sessionId"));
    };
    team.mutate(journal_actor(actor), |change| {
        let member_id = actor.member_id(change.state());
        let Some(session) = change.state().auth_sessions.get(&target) else {
            return Err(ApiError::not_found("session", &target));
        };
        if Some(&session.member_id) != member_id.as_ref() {
            // Another member's session is not named back (issue 29).
            return Err(ApiError::not_found("session", &target));
        }
        change.remove_auth_session(&target);
        Ok(())
    })
    .await?;
    Ok(SessionRevoked {
        session: RevokedSession {
            id: target,
            revoked: true,
        },
    })
}

/// `auth-sessions {}` → the caller's own sign-ins, newest first.
pub fn sessions(team: &Team, actor: &Actor, edge: &EdgeConfig) -> SessionList {
    let current = match actor {
        Actor::Member { session_id, .. } => Some(session_id.as_str()),
        Actor::SingleOwner => None,
    };
    team.store().read(|state| {
        let me = actor.member_id(state);
        let mut sessions: Vec<SessionSummary> = state
            .auth_sessions
            .values()
            .filter(|s| Some(&s.member_id) == me.as_ref())
            .map(|s| {
                let seen = s.last_seen_at.unwrap_or(s.created_at);
                SessionSummary {
                    id: s.id.clone(),
                    created_at: s.created_at,
                    last_seen_at: s.last_seen_at,
                    expires_at: (seen + edge.session_idle_ms)
                        .min(s.created_at + edge.session_max_ms),
                    current: current == Some(s.id.as_str()),
                }
            })
            .collect();
        sessions.sort_by(|a, b| (b.created_at, &b.id).cmp(&(a.created_at, &a.id)));
        SessionList { sessions }
    })
}

/// `auth-revoke-invite {id}`: kills an invitation nobody has redeemed.
pub async fn revoke_invite(
    team: &Team,
    actor: &Actor,
    req: ById,
) -> Result<InvitationRevoked, ApiError> {
    let invitation = team
        .mutate(crate::actor::journal_actor(actor), |change| {
            let state = change.state();
            let Some(invitation) = state.invitations.get(&req.id).cloned() else {
                return Err(ApiError::not_found("invitation", &req.id));
            };
            let allowed = match actor {
                Actor::SingleOwner => true,
                Actor::Member { member_id, .. } => match &invitation.invited_by {
                    Some(inviter) => inviter == member_id,
                    None => host_owner_id(state).as_ref() == Some(member_id),
                },
            };
            if !allowed {
                return Err(ApiError::forbidden(
                    "Only the member who made this invitation can revoke it.",
                ));
            }
            if invitation.status != InvitationStatus::Open {
                return Err(ApiError::new(
                    ErrorCode::Stale,
                    "This invitation was already used or revoked; there is nothing to revoke.",
                )
                .with(
                    "status",
                    serde_json::to_value(invitation.status).unwrap_or(Value::Null),
                ));
            }
            let revoked = Invitation {
                status: InvitationStatus::Revoked,
                ..invitation
            };
            change.put_invitation(&revoked);
            Ok(revoked)
        })
        .await?;
    Ok(InvitationRevoked {
        invitation: InvitationState {
            id: invitation.id,
            status: invitation.status,
        },
    })
}

/// `auth-remove-member {memberId}`: a member removes itself, or the host's
/// owner removes anyone. Refused while the member owns a Bot (`has_bots`) or
/// when it is the last member: core `roster::members::remove_member`.
pub async fn remove_member(
    team: &Team,
    actor: &Actor,
    req: AuthRemoveMember,
) -> Result<MemberRemoved, ApiError> {
    let target = req.member_id;
    team.mutate(journal_actor(actor), |change| {
        let me = acting_member(change, actor);
        let writes = flybot_core::roster::members::remove_member(change.state(), &me, &target)?;
        change.apply_roster(&writes);
        Ok(())
    })
    .await?;
    Ok(MemberRemoved {
        member: RemovedMember {
            id: target,
            removed: true,
        },
    })
}
