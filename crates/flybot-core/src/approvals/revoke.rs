//! `standing-approval-remove {scope, id, kind}` (#540): a standing grant is
//! revoked on the Bot (`scope: bot`, only by the Bot's owner) or on a room
//! (`scope: room`, where a signed-in member removes only the grants they
//! gave). A refusal changes nothing.

use super::STANDING;
use crate::access::{Actor, may_manage_bot};
use flybot_protocol::state::{Bot, Extra, Room, TeamState};
use flybot_protocol::{ApiError, ErrorCode};
use serde::Deserialize;
use serde_json::Value;

/// Where the grant is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    Bot,
    Room,
}

/// The record a revocation rewrites.
#[derive(Debug, Clone, PartialEq)]
pub enum Revoked {
    Bot(Bot),
    Room(Room),
}

/// Removes the grants of `kind` in `extra` that `may_remove` allows;
/// answers (removed, others of that kind left).
fn take_grants(
    extra: &mut Extra,
    kind: &str,
    may_remove: impl Fn(&Value) -> bool,
) -> (usize, usize) {
    let Some(grants) = extra.get_mut(STANDING).and_then(Value::as_array_mut) else {
        return (0, 0);
    };
    let of_kind = |g: &Value| g.get("kind").and_then(Value::as_str) == Some(kind);
    let before = grants.len();
    let others = grants
        .iter()
        .filter(|g| of_kind(g) && !may_remove(g))
        .count();
    grants.retain(|g| !(of_kind(g) && may_remove(g)));
    (before - grants.len(), others)
}

fn none_held(kind: &str) -> ApiError {
    ApiError::new(
        ErrorCode::NotFound,
        format!("There is no standing approval for {kind} here; nothing was removed."),
    )
    .with("kind", kind)
}

/// The rule: the rewritten Bot or room, or the refusal.
pub fn revoke_standing(
    state: &TeamState,
    actor: &Actor,
    scope: Scope,
    id: &str,
    kind: &str,
) -> Result<Revoked, ApiError> {
    match scope {
        Scope::Bot => {
            let mut bot = state
                .bots
                .get(id)
                .cloned()
                .ok_or_else(|| ApiError::not_found("bot", id))?;
            if !may_manage_bot(actor, &bot) {
                return Err(ApiError::forbidden(
                    "Only the Bot's owner removes its standing approvals.",
                ));
            }
            match take_grants(&mut bot.extra, kind, |_| true) {
                (0, _) => Err(none_held(kind)),
                _ => Ok(Revoked::Bot(bot)),
            }
        }
        Scope::Room => {
            let mut room = state
                .rooms
                .get(id)
                .cloned()
                .ok_or_else(|| ApiError::not_found("room", id))?;
            // Before anyone signs in, every grant is the one person's.
            let me = match actor {
                Actor::SingleOwner => None,
                Actor::Member { .. } => actor.member_id(state),
            };
            let mine = |g: &Value| {
                me.as_deref()
                    .is_none_or(|me| g.get("ownerId").and_then(Value::as_str) == Some(me))
            };
            match take_grants(&mut room.extra, kind, mine) {
                (0, 0) => Err(none_held(kind)),
                (0, _) => Err(ApiError::forbidden(
                    "Only the member who gave a room's standing approval removes it.",
                )),
                _ => Ok(Revoked::Room(room)),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use serde_json::json;

    fn state() -> TeamState {
        let mut state = TeamState::default();
        let bot: Bot = serde_json::from_value(json!({
            "id": "ada", "name": "Ada", "ownerId": "m1", "sessionId": "s-ada",
            "model": "mock", "createdAt": 1, "updatedAt": 1,
            "standingApprovals": [{"kind": "run_command", "label": "x", "at": 1, "ownerId": "m1"}]
        }))
        .unwrap();
        state.bots.insert("ada".into(), bot);
        let room: Room = serde_json::from_value(json!({
            "id": "r1", "name": "Build", "ownerId": "m1", "members": ["ada"],
            "createdAt": 1, "updatedAt": 1,
            "standingApprovals": [
                {"kind": "run_command", "label": "x", "at": 1, "ownerId": "m1"},
                {"kind": "run_command", "label": "x", "at": 2, "ownerId": "m2"}
            ]
        }))
        .unwrap();
        state.rooms.insert("r1".into(), room);
        state
    }

    fn member(id: &str) -> Actor {
        Actor::Member {
            member_id: id.into(),
            session_id: "auth".into(),
        }
    }

    fn grants(extra: &Extra) -> Vec<Value> {
        extra[STANDING].as_array().unwrap().clone()
    }

    #[test]
    /// Rule #540.
    fn standing_approval_remove_revokes_the_bots_grant_for_its_owner_only() {
        let state = state();
        let refused = revoke_standing(&state, &member("m2"), Scope::Bot, "ada", "run_command");
        assert_eq!(refused.unwrap_err().code, ErrorCode::Forbidden);
        let Ok(Revoked::Bot(bot)) =
            revoke_standing(&state, &member("m1"), Scope::Bot, "ada", "run_command")
        else {
            panic!("the owner revokes");
        };
        assert!(grants(&bot.extra).is_empty());
        let none = revoke_standing(&state, &member("m1"), Scope::Bot, "ada", "write_file");
        assert_eq!(none.unwrap_err().code, ErrorCode::NotFound);
    }

    #[test]
    /// Rule #540.
    fn standing_approval_remove_a_member_takes_only_their_own_room_grant() {
        let state = state();
        let Ok(Revoked::Room(room)) =
            revoke_standing(&state, &member("m2"), Scope::Room, "r1", "run_command")
        else {
            panic!("m2 removes the grant m2 gave");
        };
        assert_eq!(grants(&room.extra).len(), 1);
        assert_eq!(grants(&room.extra)[0]["ownerId"], "m1");
        let refused = revoke_standing(&state, &member("m3"), Scope::Room, "r1", "run_command");
        assert_eq!(refused.unwrap_err().code, ErrorCode::Forbidden);
        let Ok(Revoked::Room(all)) = revoke_standing(
            &state,
            &Actor::SingleOwner,
            Scope::Room,
            "r1",
            "run_command",
        ) else {
            panic!("before anyone signs in, the one person removes every grant");
        };
        assert!(grants(&all.extra).is_empty());
    }
}
