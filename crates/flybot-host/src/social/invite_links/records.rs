//! What a room keeps of its invite links (#852, #878, #892), typed, in
//! `room.extra`: the links (`localInvites`, the only authority on this
//! home), the Matrix lobby their tickets lead to (`inviteLobby`), the
//! knocks the sync saw and not yet answered (`inviteKnocks`), the last
//! refusal or wait per home (`inviteRefused`), the tries of a seat whose
//! notice did not leave (`inviteTries`) and the seats a link made
//! (`ticketSeats`: `{remote, admittedBy: 'ticket', ticket, hostBotId}`).

use flybot_protocol::state::Room;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// One link (#852): several may be open at once (#878); not single-use,
/// each home joins once (`homes`), until withdrawn (#892).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LocalInvite {
    pub ticket: String,
    /// The Bot the link knocks on (the room's lead), by its id.
    pub handle: String,
    pub bot_id: String,
    pub url: String,
    pub minted_at: u64,
    pub minted_by: String,
    /// A link minted with a deadline keeps it; none by default (#892).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires_at: Option<u64>,
    /// The homes it seated and their Bots' handles.
    #[serde(default)]
    pub homes: BTreeMap<String, Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub withdrawn_at: Option<u64>,
    /// Kept on the Matrix server (the lobby's state and its knocks).
    #[serde(default)]
    pub server: bool,
}

impl LocalInvite {
    /// Open: not withdrawn and not out of date (a used link stays open).
    pub fn is_open(&self, now: u64) -> bool {
        self.withdrawn_at.is_none() && self.expires_at.is_none_or(|at| now < at)
    }
}

/// A seat a link made (#884): no published friend behind it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TicketSeat {
    pub remote: bool,
    /// Always `ticket`.
    pub admitted_by: String,
    pub ticket: String,
    /// The Bot of this home the seat's traffic goes from.
    pub host_bot_id: String,
}

/// Why a home waits on a link, kept for the room's admin (the Members
/// card's "waiting", #1064): a refusal's code, or `held` (the seat's
/// notice waits on the owner's approval), or `not-delivered` (the notice
/// did not leave after a few tries). `bots` names the Bots the claim
/// brings, for `not-addable` and the waits.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Refused {
    pub code: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ticket: Option<String>,
    pub at: u64,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bots: Vec<String>,
}

fn read<T: DeserializeOwned + Default>(room: &Room, key: &str) -> T {
    room.extra
        .get(key)
        .and_then(|v| serde_json::from_value(v.clone()).ok())
        .unwrap_or_default()
}

fn write<T: Serialize>(room: &mut Room, key: &str, value: &T, empty: bool) {
    match serde_json::to_value(value) {
        Ok(_) if empty => {
            room.extra.remove(key);
        }
        Ok(v) => {
            room.extra.insert(key.to_owned(), v);
        }
        Err(_) => {}
    }
}

pub fn invites(room: &Room) -> Vec<LocalInvite> {
    read(room, "localInvites")
}

pub fn set_invites(room: &mut Room, invites: &[LocalInvite]) {
    write(room, "localInvites", &invites, invites.is_empty());
}

pub fn lobby(room: &Room) -> Option<String> {
    read(room, "inviteLobby")
}

pub fn set_lobby(room: &mut Room, lobby: &str) {
    write(room, "inviteLobby", &lobby, false);
}

pub fn knocks(room: &Room) -> Vec<String> {
    read(room, "inviteKnocks")
}

pub fn set_knocks(room: &mut Room, knocks: &[String]) {
    write(room, "inviteKnocks", &knocks, knocks.is_empty());
}

pub fn refused(room: &Room) -> BTreeMap<String, Refused> {
    read(room, "inviteRefused")
}

pub fn set_refused(room: &mut Room, refused: &BTreeMap<String, Refused>) {
    write(room, "inviteRefused", refused, refused.is_empty());
}

pub fn ticket_seats(room: &Room) -> BTreeMap<String, TicketSeat> {
    read(room, "ticketSeats")
}

pub fn set_ticket_seats(room: &mut Room, seats: &BTreeMap<String, TicketSeat>) {
    write(room, "ticketSeats", seats, seats.is_empty());
}

pub fn tries(room: &Room) -> BTreeMap<String, u32> {
    read(room, "inviteTries")
}

pub fn set_tries(room: &mut Room, tries: &BTreeMap<String, u32>) {
    write(room, "inviteTries", tries, tries.is_empty());
}
