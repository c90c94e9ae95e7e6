//! What a caller may do with the host-wide surfaces: the saved keys and the
//! connectors (#49, issue 39). Said once here; the endpoints, the state view
//! and the page all ask this one rule.
//!
//! The spec blocks members' calls to these shared, non-isolatable surfaces
//! once a second member exists, and hides their rows from every view. It
//! does not take away what the owner already set up for "the owner's own
//! use of every Bot": the connectors keep running for her own Bots (and only
//! hers, `connectors::owner_refusal`). So the host's owner keeps reading the
//! rows (names, status, errors; never a key's value) and may retry a saved
//! connector that failed, because a connector she cannot see fail is a tool
//! her Bots silently lost, and a retry starts only what she already added.
//! Adding, changing or removing a connector or a key stays blocked for
//! everyone while the host is shared: the spec's rule, unchanged.

use crate::access::{Actor, enforced, host_owner_id};
pub use flybot_protocol::answers::SharedSurfaceAccess;
use flybot_protocol::state::TeamState;

/// The caller's reach over the keys and connectors.
pub fn shared_surface_access(state: &TeamState, actor: &Actor) -> SharedSurfaceAccess {
    if !enforced(state) {
        return SharedSurfaceAccess::Manage;
    }
    let is_host_owner = match actor {
        Actor::SingleOwner => true,
        Actor::Member { member_id, .. } => host_owner_id(state).as_ref() == Some(member_id),
    };
    if is_host_owner {
        SharedSurfaceAccess::Watch
    } else {
        SharedSurfaceAccess::Blocked
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flybot_protocol::state::Member;

    fn member(id: &str, created_at: u64) -> Member {
        serde_json::from_value(serde_json::json!({
            "id": id, "name": id, "createdAt": created_at
        }))
        .unwrap()
    }

    fn signed_in(id: &str) -> Actor {
        Actor::Member {
            member_id: id.to_owned(),
            session_id: format!("s-{id}"),
        }
    }

    fn team(members: &[(&str, u64)]) -> TeamState {
        let mut state = TeamState::default();
        for (id, at) in members {
            state.members.insert((*id).to_owned(), member(id, *at));
        }
        state
    }

    #[test]
    /// Rule #49.
    fn shared_surfaces_the_rule_for_each_caller_and_home() {
        let alone = team(&[("ann", 1)]);
        let shared = team(&[("ann", 1), ("bob", 2)]);
        let cases = [
            (&alone, Actor::SingleOwner, SharedSurfaceAccess::Manage),
            (&alone, signed_in("ann"), SharedSurfaceAccess::Manage),
            (&shared, signed_in("ann"), SharedSurfaceAccess::Watch),
            (&shared, signed_in("bob"), SharedSurfaceAccess::Blocked),
            (&shared, signed_in("stranger"), SharedSurfaceAccess::Blocked),
        ];
        for (state, actor, want) in cases {
            assert_eq!(shared_surface_access(state, &actor), want, "{actor:?}");
        }
    }

    #[test]
    /// Rule #49.
    fn shared_surfaces_what_each_reach_allows() {
        use SharedSurfaceAccess::*;
        let table = [
            // (reach, read rows, retry a saved connector, add/change/remove)
            (Manage, true, true, true),
            (Watch, true, true, false),
            (Blocked, false, false, false),
        ];
        for (reach, read, retry, write) in table {
            assert_eq!(
                (reach.may_read(), reach.may_retry(), reach.may_write()),
                (read, retry, write),
                "{reach:?}"
            );
        }
    }
}
