//! The room's own side of its links (#876, #878, #892): `room-invite`
//! lists the open links (what the Members card copies and counts), and
//! `room-invite-mint` / `room-invite-revoke` add one or withdraw one or
//! all. Each is the home owner's call on a room of theirs (Bot Social
//! speaks for the home); a room shared from another home has its own
//! invitation and mints none. The server is written first: a lobby or a
//! link state the homeserver did not take refuses the call and changes
//! nothing here.

use super::InviteLinks;
use super::lobby;
use super::records::{
    LocalInvite, Refused, invites, lobby as lobby_of, refused, set_invites, set_lobby,
};
use super::ticket::{alias, link_url, new_ticket, server_of};
use super::verdict::ServerLink;
use crate::social::shared_rooms::records::shared_from;
use flybot_core::access::Actor;
use flybot_protocol::state::{Room, TeamState};
use flybot_protocol::{ApiError, ErrorCode};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// `room-invite {roomId}` and `room-invite-seat {roomId}`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RoomOnly {
    pub room_id: String,
}

/// `room-invite-mint {roomId, expiresInMs?}`: no deadline by default (#892).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Mint {
    pub room_id: String,
    #[serde(default)]
    pub expires_in_ms: Option<u64>,
}

/// `room-invite-revoke {roomId, ticket?}`: one link, or every open one.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Revoke {
    pub room_id: String,
    #[serde(default)]
    pub ticket: Option<String>,
}

/// A room's links as its admin sees them.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Links {
    pub room_id: String,
    /// The open links, newest last.
    pub links: Vec<LocalInvite>,
    /// The newest open link (`localInviteOf`), or none.
    pub newest: Option<LocalInvite>,
    /// How many open links there are.
    pub count: usize,
    /// Homes whose knock seated nobody, with the code (the Members card).
    pub waiting: BTreeMap<String, Refused>,
    /// The link a mint just made.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub minted: Option<LocalInvite>,
}

/// The room `actor` may hand out links for: theirs, of this home.
pub fn admin_room(state: &TeamState, actor: &Actor, room_id: &str) -> Result<Room, ApiError> {
    let me = actor.member_id(state);
    let room = (state.rooms.get(room_id))
        .filter(|r| me.as_deref() == Some(r.owner_id.as_str()))
        .ok_or_else(|| ApiError::not_found("room", room_id))?;
    let face = room.extra.get("origin").and_then(|o| o.as_str())
        == Some(crate::social::face_to_face::records::FACE_TO_FACE);
    if shared_from(room).is_some() || face {
        return Err(ApiError::forbidden(
            "This room is shared from another home, or is a face-to-face room, and has its own invitation; ask its owner for a link or share its number.",
        ));
    }
    Ok(room.clone())
}

/// The Bot a link knocks on: the room's lead, else its first Bot.
fn lead_of(state: &TeamState, room: &Room) -> Option<(String, String)> {
    let lead = room.admin.iter().chain(&room.members).find(|id| {
        room.members.contains(id) && state.bots.get(*id).is_some_and(|b| !b.is_retired())
    })?;
    let name = state.bots.get(lead).map(|b| b.name.clone())?;
    Some((lead.clone(), name))
}

pub fn links_of(room: &Room, now: u64) -> Links {
    let open: Vec<LocalInvite> = invites(room)
        .into_iter()
        .filter(|l| l.is_open(now))
        .collect();
    Links {
        room_id: room.id.clone(),
        newest: open.last().cloned(),
        count: open.len(),
        links: open,
        waiting: refused(room),
        minted: None,
    }
}

fn not_taken(e: &crate::social::client::MatrixError) -> ApiError {
    ApiError::new(
        ErrorCode::Unavailable,
        format!("The homeserver did not take the link ({e}); nothing changed, try again."),
    )
}

impl InviteLinks {
    fn now(&self) -> u64 {
        self.social.team().store().clock_ms()
    }

    /// `room-invite`: the room's open links.
    pub fn links(&self, actor: &Actor, req: RoomOnly) -> Result<Links, ApiError> {
        crate::social::check_owner(&self.social, actor)?;
        let room = (self.social.team()).read(|s| admin_room(s, actor, &req.room_id))?;
        Ok(links_of(&room, self.now()))
    }

    /// `room-invite-mint`: a new link, on the server first.
    pub async fn mint(&self, actor: &Actor, req: Mint) -> Result<Links, ApiError> {
        let social = &self.social;
        crate::social::check_owner(social, actor)?;
        let (account, matrix) = social.require_matrix()?;
        let (room, lead, inviter) = social.team().read(|s| {
            let room = admin_room(s, actor, &req.room_id)?;
            let lead = lead_of(s, &room).ok_or_else(|| {
                ApiError::invalid(
                    "roomId",
                    "Add one of your Bots to the room first; a link knocks on it.",
                )
            })?;
            let inviter = crate::social::shared_rooms::send::inviter_name(s, &room);
            Ok::<_, ApiError>((room, lead, inviter))
        })?;
        let ticket = new_ticket().ok_or_else(|| {
            ApiError::new(
                ErrorCode::Unavailable,
                "No randomness for a ticket; try again.",
            )
        })?;
        let lobby = match lobby_of(&room) {
            Some(lobby) => lobby,
            None => {
                let name = room.name.clone();
                let made = social.renewing(&matrix, |m| {
                    let name = name.clone();
                    async move { lobby::create(&m, &name).await }
                });
                made.await.map_err(|e| not_taken(&e))?
            }
        };
        let now = self.now();
        let expires_at = req.expires_in_ms.map(|ms| now.saturating_add(ms));
        let server_link = ServerLink {
            status: "open".into(),
            room_name: room.name.clone(),
            lead_name: lead.1.clone(),
            inviter_name: inviter,
            expires_at,
        };
        let server = server_of(&account.user_id).to_owned();
        let (l, t, s, a) = (&lobby, &ticket, &server_link, alias(&ticket, &server));
        let put = social.renewing(
            &matrix,
            |m| async move { lobby::put_link(&m, l, t, s).await },
        );
        put.await.map_err(|e| not_taken(&e))?;
        let aliased = social.renewing(&matrix, |m| {
            let a = a.clone();
            async move { lobby::put_alias(&m, &a, l).await }
        });
        aliased.await.map_err(|e| not_taken(&e))?;
        let invite = LocalInvite {
            url: link_url(&server, &lead.0, &ticket),
            ticket,
            handle: lead.0.clone(),
            bot_id: lead.0,
            minted_at: now,
            minted_by: social
                .team()
                .read(|s| actor.member_id(s))
                .unwrap_or_default(),
            expires_at,
            homes: BTreeMap::new(),
            withdrawn_at: None,
            server: true,
        };
        let room_id = room.id.clone();
        social
            .team()
            .mutate("social", move |change| {
                let mut room = (change.state().rooms.get(&room_id).cloned())
                    .ok_or_else(|| ApiError::not_found("room", &room_id))?;
                let now = change.now_ms();
                // Dead links that seated nobody are dropped now (#878).
                let mut all: Vec<LocalInvite> = invites(&room)
                    .into_iter()
                    .filter(|l| l.is_open(now) || !l.homes.is_empty())
                    .collect();
                all.push(invite.clone());
                set_invites(&mut room, &all);
                set_lobby(&mut room, &lobby);
                change.put_room(&room);
                Ok(Links {
                    minted: Some(invite),
                    ..links_of(&room, now)
                })
            })
            .await
    }

    /// `room-invite-revoke`: nobody new joins by the link(s); the seats
    /// they made stay (owner decision on #853).
    pub async fn revoke(&self, actor: &Actor, req: Revoke) -> Result<Links, ApiError> {
        let social = &self.social;
        crate::social::check_owner(social, actor)?;
        let (_, matrix) = social.require_matrix()?;
        let room = social.team().read(|s| admin_room(s, actor, &req.room_id))?;
        let now = self.now();
        let targets: Vec<LocalInvite> = invites(&room)
            .into_iter()
            .filter(|l| l.is_open(now))
            .filter(|l| req.ticket.as_deref().is_none_or(|t| t == l.ticket))
            .collect();
        if let (true, Some(ticket)) = (targets.is_empty(), &req.ticket) {
            return Err(ApiError::not_found("open invite link", ticket));
        }
        if let Some(lobby) = lobby_of(&room) {
            let inviter = social
                .team()
                .read(|s| crate::social::shared_rooms::send::inviter_name(s, &room));
            for link in &targets {
                let withdrawn = ServerLink {
                    status: "withdrawn".into(),
                    room_name: room.name.clone(),
                    lead_name: String::new(),
                    inviter_name: inviter.clone(),
                    expires_at: link.expires_at,
                };
                let (l, t, w) = (&lobby, &link.ticket, &withdrawn);
                let put =
                    social.renewing(
                        &matrix,
                        |m| async move { lobby::put_link(&m, l, t, w).await },
                    );
                put.await.map_err(|e| not_taken(&e))?;
            }
        }
        let tickets: Vec<String> = targets.into_iter().map(|l| l.ticket).collect();
        let room_id = room.id.clone();
        social
            .team()
            .mutate("social", move |change| {
                let mut room = (change.state().rooms.get(&room_id).cloned())
                    .ok_or_else(|| ApiError::not_found("room", &room_id))?;
                let now = change.now_ms();
                let mut all = invites(&room);
                for link in all.iter_mut().filter(|l| tickets.contains(&l.ticket)) {
                    link.withdrawn_at = Some(now);
                }
                set_invites(&mut room, &all);
                change.put_room(&room);
                Ok(links_of(&room, now))
            })
            .await
    }
}
