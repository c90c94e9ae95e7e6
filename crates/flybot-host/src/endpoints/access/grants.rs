//! Per-Bot grants (#90): the records and their validation. Default deny,
//! Chief included: a Bot with no grant reaches no other owner. `reach()`
//! itself is judged on every send and delivery; a changed list evicts the
//! Bots no longer granted from rooms with friends' Bots or several owners
//! (the core `roster::room_seats::evict_unshared` rule).

use crate::actor::journal_actor;
use crate::rooms::RoomLogs;
use crate::team::Team;
use flybot_core::access::Actor;
use flybot_core::roster::managed_bot_for;
use flybot_core::roster::room_seats::evict_unshared;
use flybot_protocol::ApiError;
use flybot_protocol::answers::GrantsAnswer;
use flybot_protocol::channel::SetGrants;
use flybot_protocol::state::Grant;

/// The most grants one Bot carries.
const GRANTS_MAX: usize = 64;

/// `set-grants {botId, grants: [{grantee, roomId?}]}` → `{botId, grants}`;
/// replaces the Bot's whole list, an empty list revoking every grant.
pub async fn set(
    team: &Team,
    logs: &RoomLogs,
    actor: &Actor,
    req: SetGrants,
) -> Result<GrantsAnswer, ApiError> {
    if req.grants.len() > GRANTS_MAX {
        return Err(ApiError::invalid(
            "grants",
            format!("A Bot carries at most {GRANTS_MAX} grants."),
        ));
    }
    let grants = team
        .mutate(journal_actor(actor), |change| {
            let state = change.state();
            let bot = managed_bot_for(state, actor, &req.bot_id, "grant it")?;
            let mut clean: Vec<Grant> = Vec::new();
            for (i, grant) in req.grants.iter().enumerate() {
                let field = format!("grants[{i}]");
                let known = state.members.contains_key(&grant.grantee)
                    || state.bots.contains_key(&grant.grantee);
                if !known || grant.grantee == bot.id {
                    return Err(ApiError::invalid(
                        &format!("{field}.grantee"),
                        format!(
                            "{} is neither a member nor another Bot of this host.",
                            grant.grantee
                        ),
                    ));
                }
                if let Some(room) = &grant.room_id
                    && !state.rooms.contains_key(room)
                {
                    return Err(ApiError::invalid(
                        &format!("{field}.roomId"),
                        format!("No room has the id {room}."),
                    ));
                }
                if !clean.contains(grant) {
                    clean.push(grant.clone());
                }
            }
            let current = state.grants.get(&bot.id).cloned().unwrap_or_default();
            let bot_id = bot.id.clone();
            if current != clean {
                change.set_grants(&bot_id, &clean);
                // Bots no longer shared leave at each room's next line (#50).
                let evicted = evict_unshared(
                    change.state(),
                    |room_id| logs.last_seq(room_id) + 1,
                    change.now_ms(),
                );
                for eviction in &evicted.evicted {
                    tracing::info!(
                        "grants: {:?} evicted from room {}",
                        eviction.bots,
                        eviction.room_id
                    );
                }
                change.apply_roster(&evicted.writes);
            }
            Ok(clean)
        })
        .await?;
    Ok(GrantsAnswer {
        bot_id: req.bot_id,
        grants,
    })
}
