//! The invitee's side of a link (#876, #884, #1176): `room-invite-preview`
//! reads the server's public record of the link (the lobby the ticket's
//! alias names: its room, its lead, its inviter, open or not) and whether
//! this home already claimed it or holds the room; `room-invite-ask`
//! claims it for some of this home's own Bots, all or none, by knocking on
//! the lobby with the claim as the knock's reason. The knock names no room
//! of the inviter's (the link does not either), so an invitee never names
//! a room it has not seen; the inviter seats from what the server holds.

use super::InviteLinks;
use super::lobby;
use super::ticket::{Link, alias, parse_link};
use super::verdict::{CLAIM_BOTS_MAX, Claim, ClaimBot, ServerLink};
use crate::social::client::Matrix;
use crate::social::shared_rooms::records::shared_from;
use flybot_core::access::Actor;
use flybot_core::social::clean_label;
use flybot_protocol::social::RoomClaim;
use flybot_protocol::state::TeamState;
use flybot_protocol::{ApiError, ErrorCode};
use serde::{Deserialize, Serialize};

/// `room-invite-preview {link}`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PreviewReq {
    pub link: String,
}

/// `room-invite-ask {link, bots}`: join with these Bots of this home.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct AskReq {
    pub link: String,
    pub bots: Vec<String>,
}

/// What a link says, for the dialog before Join.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Preview {
    pub ticket: String,
    /// `open`, `revoked` or `expired`.
    pub status: String,
    pub room_name: String,
    pub lead_name: String,
    pub inviter_name: String,
    /// The inviting home, as the homeserver says (the lobby's maker).
    pub inviter: String,
    /// This home claimed the link (a claim is not a seat).
    pub claimed: bool,
    /// This home holds the room (a seat is not a claim).
    pub joined: bool,
    /// The room here, once joined.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub room_id: Option<String>,
    /// The code the inviter answered this home's knock with, if it did.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
}

fn lookup_failed(e: &crate::social::client::MatrixError) -> ApiError {
    ApiError::new(
        ErrorCode::NotFound,
        format!(
            "That link leads to no room the homeserver knows ({e}); check it or ask for a new one."
        ),
    )
    .with("reason", "lookup-failed")
}

/// The room this home holds from `inviter` for `ticket`'s claim.
fn joined_room(state: &TeamState, inviter: &str, ticket: &str) -> Option<String> {
    let claim = state.social.room_claims.get(ticket)?;
    state
        .rooms
        .values()
        .find(|r| {
            shared_from(r).is_some_and(|f| f.home == inviter)
                && claim.bots.iter().any(|b| r.members.contains(b))
        })
        .map(|r| r.id.clone())
}

impl InviteLinks {
    /// Reads the link's record at the server: (lobby, preview).
    async fn read_link(
        &self,
        matrix: &Matrix,
        me: &str,
        link: &Link,
    ) -> Result<(String, Preview), ApiError> {
        let social = &self.social;
        let a = alias(&link.ticket, &link.server);
        let found = social.renewing(matrix, |m| {
            let a = a.clone();
            async move { lobby::resolve(&m, &a).await }
        });
        let lobby_id = found.await.map_err(|e| lookup_failed(&e))?;
        let l = &lobby_id;
        let read = social.renewing(matrix, |m| async move { lobby::state(&m, l).await });
        let events = read.await.map_err(|e| lookup_failed(&e))?;
        let record = lobby::record(&events);
        let maker = lobby::maker(&events).unwrap_or_default();
        let server: ServerLink = record.links.get(&link.ticket).cloned().ok_or_else(|| {
            ApiError::new(
                ErrorCode::NotFound,
                "That link is not one this room handed out; ask for a new one.",
            )
            .with("reason", "unclaimed")
        })?;
        let now = social.team().store().clock_ms();
        let status = match (server.status.as_str(), server.expires_at) {
            ("open", Some(at)) if now >= at => "expired",
            ("open", _) => "open",
            _ => "revoked",
        };
        let refused = lobby::membership_of(&events, me)
            .filter(|(membership, _)| membership == "leave")
            .and_then(|(_, reason)| reason.strip_prefix("flybot:").map(str::to_owned));
        let (claimed, room_id) = social.team().read(|s| {
            let claimed = s.social.room_claims.contains_key(&link.ticket);
            (claimed, joined_room(s, &maker, &link.ticket))
        });
        let preview = Preview {
            ticket: link.ticket.clone(),
            status: status.to_owned(),
            room_name: clean_label(&server.room_name, "A room"),
            lead_name: clean_label(&server.lead_name, "Bot"),
            inviter_name: clean_label(&server.inviter_name, "Someone"),
            inviter: maker,
            claimed,
            joined: room_id.is_some(),
            room_id,
            refused,
        };
        Ok((lobby_id, preview))
    }

    /// `room-invite-preview`: the link's public record.
    pub async fn preview(&self, actor: &Actor, req: PreviewReq) -> Result<Preview, ApiError> {
        crate::social::check_owner(&self.social, actor)?;
        let link = parse_link(&req.link)?;
        let (account, matrix) = self.social.require_matrix()?;
        let (_, preview) = self.read_link(&matrix, &account.user_id, &link).await?;
        Ok(preview)
    }

    /// `room-invite-ask`: claims the link for `bots`, all or none.
    pub async fn ask(&self, actor: &Actor, req: AskReq) -> Result<Preview, ApiError> {
        let social = &self.social;
        crate::social::check_owner(social, actor)?;
        let link = parse_link(&req.link)?;
        let (account, matrix) = social.require_matrix()?;
        let bots = social.team().read(|s| own_bots(s, &req.bots))?;
        let (lobby_id, preview) = self.read_link(&matrix, &account.user_id, &link).await?;
        if preview.inviter == account.user_id {
            return Err(ApiError::invalid(
                "link",
                "That link is this home's own; send it to someone else.",
            ));
        }
        if preview.status != "open" {
            let sentence = match preview.status.as_str() {
                "expired" => "That invite link is out of date; ask for a new one.",
                _ => "That invite link was withdrawn; ask the room's owner for a new one.",
            };
            return Err(ApiError::forbidden(sentence).with("reason", preview.status.clone()));
        }
        let claim = Claim::new(&link.ticket, &account.user_id, bots.clone());
        let reason = serde_json::to_string(&claim).unwrap_or_default();
        let (l, r) = (&lobby_id, &reason);
        let knocked = social.renewing(&matrix, |m| async move { lobby::knock(&m, l, r).await });
        if let Err(e) = knocked.await {
            // Knocking twice is refused by the server: the same claim
            // already held there is success (a retry), any other is not.
            let read = social.renewing(&matrix, |m| async move { lobby::state(&m, l).await });
            let held = read
                .await
                .ok()
                .and_then(|events| lobby::membership_of(&events, &account.user_id));
            if held != Some(("knock".to_owned(), reason.clone())) {
                return Err(ApiError::new(
                    ErrorCode::Unavailable,
                    format!(
                        "The homeserver did not take the claim ({e}); nothing was claimed, try again."
                    ),
                ));
            }
        }
        let bots: Vec<String> = bots.into_iter().map(|b| b.id).collect();
        let after_join_seq = social.team().read(|s| {
            super::life::claim_mirror(s, &preview.inviter, &bots).map_or(0, |m| m.join_seq)
        });
        let record = RoomClaim {
            ticket: link.ticket.clone(),
            inviter: preview.inviter.clone(),
            handle: link.handle.clone(),
            lobby: lobby_id,
            bots,
            at: social.team().store().clock_ms(),
            after_join_seq,
        };
        social
            .team()
            .mutate("social", move |change| {
                change.put_room_claim(&record);
                Ok(())
            })
            .await?;
        Ok(Preview {
            claimed: true,
            ..preview
        })
    }
}

/// The Bots named, each one of this home's own live Bots, one to six.
fn own_bots(state: &TeamState, ids: &[String]) -> Result<Vec<ClaimBot>, ApiError> {
    if ids.is_empty() || ids.len() > CLAIM_BOTS_MAX {
        return Err(ApiError::invalid(
            "bots",
            "Pick one to six of your Bots to bring.",
        ));
    }
    let mut bots = Vec::new();
    for id in ids {
        let bot = (state.bots.get(id))
            .filter(|b| !b.is_retired())
            .ok_or_else(|| ApiError::not_found("Bot", id))?;
        if bots.iter().any(|b: &ClaimBot| b.id == *id) {
            return Err(ApiError::invalid("bots", "Name each Bot once."));
        }
        bots.push(ClaimBot {
            id: id.clone(),
            name: bot.name.clone(),
        });
    }
    Ok(bots)
}
