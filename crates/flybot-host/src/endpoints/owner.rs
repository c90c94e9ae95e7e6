//! The member a change acts for. On a home that has no member yet, the first
//! change that needs one makes the host's owner, so every Bot has an owner
//! from the start (#47).

use crate::ids::new_id;
use flybot_core::access::{Actor, host_owner_id};
use flybot_protocol::state::Member;
use flybot_store::Change;

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

pub use crate::actor::journal_actor;
