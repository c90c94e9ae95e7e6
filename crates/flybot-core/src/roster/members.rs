//! Removing a member (`auth-remove-member`, #48): a member removes itself, or
//! the host's owner removes anyone. Refused while the member owns a Bot
//! (`has_bots`) or when it is the last member; otherwise its sessions are
//! signed out and its open invitations revoked with it.

use super::{RosterWrite, RosterWrites};
use crate::access::host_owner_id;
use flybot_protocol::ApiError;
use flybot_protocol::state::{Invitation, InvitationStatus, TeamState};

/// The writes that remove the member `target` on behalf of the member
/// `acting_member_id`, or the refusal.
pub fn remove_member(
    state: &TeamState,
    acting_member_id: &str,
    target: &str,
) -> Result<RosterWrites, ApiError> {
    let Some(member) = state.members.get(target) else {
        return Err(ApiError::not_found("member", target));
    };
    if acting_member_id != target && host_owner_id(state).as_deref() != Some(acting_member_id) {
        return Err(ApiError::forbidden(
            "Only the host's owner can remove another member; a member can remove itself.",
        ));
    }
    let owned = state.bots.values().filter(|b| b.owner_id == target).count();
    if owned > 0 {
        return Err(ApiError::forbidden(format!(
            "{} still owns {owned} Bot(s); delete them first, then remove the member.",
            member.name
        ))
        .with("reason", "has_bots")
        .with("bots", owned));
    }
    if state.members.len() == 1 {
        return Err(ApiError::forbidden(format!(
            "{} is the host's only member; a host keeps at least one.",
            member.name
        ))
        .with("reason", "last_member"));
    }
    let mut writes = RosterWrites::default();
    writes.extend(
        state
            .auth_sessions
            .values()
            .filter(|s| s.member_id == target)
            .map(|s| RosterWrite::RemoveAuthSession(s.id.clone())),
    );
    writes.extend(
        state
            .invitations
            .values()
            .filter(|i| {
                i.member_id.as_deref() == Some(target) && i.status == InvitationStatus::Open
            })
            .map(|invitation| {
                RosterWrite::PutInvitation(Invitation {
                    status: InvitationStatus::Revoked,
                    ..invitation.clone()
                })
            }),
    );
    writes.push(RosterWrite::RemoveMember(target.to_owned()));
    Ok(writes)
}

#[cfg(test)]
mod tests {
    use super::super::fixture::{shape, team};
    use super::*;
    use flybot_protocol::ErrorCode;

    fn invitation(id: &str, member: &str, status: InvitationStatus) -> Invitation {
        Invitation {
            id: id.into(),
            code_hash: format!("hash-{id}"),
            member_id: Some(member.into()),
            name: None,
            invited_by: Some("member-a".into()),
            status,
            created_at: 3,
            extra: Default::default(),
        }
    }

    /// The team with Rex gone, so `member-b` owns no Bot.
    fn team_without_rex() -> TeamState {
        let mut state = team();
        state.bots.remove("bot-rev");
        for inv in [
            invitation("invite-open", "member-b", InvitationStatus::Open),
            invitation("invite-used", "member-b", InvitationStatus::Redeemed),
        ] {
            state.invitations.insert(inv.id.clone(), inv);
        }
        state
    }

    #[test]
    /// Rule #48.
    fn remove_member_signs_it_out_revokes_its_open_invitations_and_removes_it() {
        let state = team_without_rex();
        let writes = remove_member(&state, "member-a", "member-b").unwrap();
        assert_eq!(
            shape(&writes),
            [
                "sign out auth-member-b",
                "invitation invite-open Revoked",
                "remove member member-b",
            ]
        );
        // A member removes itself too.
        assert!(remove_member(&state, "member-b", "member-b").is_ok());
    }

    #[test]
    /// Rule #48.
    fn remove_member_refuses_a_member_with_bots() {
        let refused = remove_member(&team(), "member-a", "member-b").unwrap_err();
        assert_eq!(refused.code, ErrorCode::Forbidden);
        assert_eq!(
            refused.message,
            "Bob still owns 1 Bot(s); delete them first, then remove the member."
        );
        assert_eq!(refused.details["reason"], "has_bots");
        assert_eq!(refused.details["bots"], 1);
    }

    #[test]
    /// Rule #48.
    fn remove_member_refuses_the_last_member_and_another_members_removal() {
        let state = team_without_rex();
        let not_owner = remove_member(&state, "member-b", "member-a").unwrap_err();
        assert_eq!(not_owner.code, ErrorCode::Forbidden);
        let mut alone = state.clone();
        alone.members.remove("member-a");
        alone.bots.clear();
        let last = remove_member(&alone, "member-b", "member-b").unwrap_err();
        assert_eq!(last.details["reason"], "last_member");
        let unknown = remove_member(&state, "member-a", "member-x").unwrap_err();
        assert_eq!(unknown.code, ErrorCode::NotFound);
    }
}
