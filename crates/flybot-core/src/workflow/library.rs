//! Who may change the workflow library (issue 29): the host owner only.
//!
//! The library (`workflows/<id>.json` and the project's default in
//! `workflows/project.json`) is one per host, like the connectors (#49):
//! every member's Bots run from it, and a run Bot's workflow shapes work the
//! owner answers for. One library with one writer keeps "the default"
//! meaning one thing; a library per member would need a default per member
//! and a rule for whose library a Bot's `run_workflow` reads, which nothing
//! asks for yet. So a second member (and a second member's Bot, through
//! `define_workflow`) may read and run workflows but not save, customize or
//! change the default. Before anyone is a member the one person owns it.

use crate::access::host_owner_id;
use flybot_protocol::ApiError;
use flybot_protocol::state::TeamState;

/// The sentence a write by anyone but the host owner is refused with.
pub const OWNERS_ONLY: &str = "The workflow library is the host owner's: only the host owner saves workflows or changes the default.";

/// Whether `member` (the caller's member id, or a Bot's owner) may write
/// the workflow library: `bot/forbidden` unless it is the host owner.
pub fn may_change_library(state: &TeamState, member: Option<&str>) -> Result<(), ApiError> {
    match host_owner_id(state) {
        None => Ok(()),
        Some(owner) if member == Some(owner.as_str()) => Ok(()),
        Some(_) => Err(ApiError::forbidden(OWNERS_ONLY)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::roster::fixture::team;
    use flybot_protocol::ErrorCode;

    #[test]
    fn workflow_library_29_is_the_host_owners_to_change() {
        let mut state = team();
        assert!(may_change_library(&state, Some("member-a")).is_ok());
        for other in [Some("member-b"), None] {
            let refused = may_change_library(&state, other).map_err(|e| (e.code, e.message));
            assert_eq!(refused, Err((ErrorCode::Forbidden, OWNERS_ONLY.to_owned())));
        }
        state.members.clear();
        assert!(may_change_library(&state, None).is_ok());
    }
}
