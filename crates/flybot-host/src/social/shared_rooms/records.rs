//! What a shared room keeps on its room record (`room.extra`), typed: the
//! host side's `share` (the Matrix room its lines travel in and how far its
//! log went out), the guest side's `sharedFrom` (`origin: inbound-share`:
//! whose room it mirrors, bound to the transport's sender, #873), the lines
//! taken from the sync and not yet in the log (`shareInbox`), the remote
//! seqs shown (`shownShare`) and the remote lines answered (`answered`).

use flybot_protocol::room_line::AuthorKind;
use flybot_protocol::state::Room;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::envelope::RosterEntry;

/// `room.answered` keeps this many keys (#825).
pub const ANSWERED_KEPT: usize = 200;
/// `room.shownShare` keeps this many keys.
pub const SHOWN_KEPT: usize = 500;
/// The origin of a mirror.
pub const INBOUND_SHARE: &str = "inbound-share";

/// The host side: this home's room shared with friends' Bots.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HostShare {
    pub matrix_room_id: String,
    /// The homes invited (each a guest).
    pub guests: Vec<String>,
    /// A guest home's own Matrix room, so no guest sees another guest
    /// home's Bots (#904); a guest not named here is in `matrix_room_id`.
    #[serde(default, skip_serializing_if = "std::collections::BTreeMap::is_empty")]
    pub guest_rooms: std::collections::BTreeMap<String, String>,
    /// The last join or leave's number.
    pub join_seq: u64,
    /// The log's lines up to here are in the outbox.
    pub fanned_seq: u64,
}

/// Where a mirror is: open, or marked by a leave or a hide (#1167).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum MirrorStatus {
    Open,
    Left,
    Hidden,
}

/// The guest side: the room of another home this one projects.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SharedFrom {
    /// The inviter's home: the sender of the join, as the transport says.
    pub home: String,
    /// The room's id on its home.
    pub remote_room_id: String,
    pub matrix_room_id: String,
    /// Shown as "Shared room from <inviter>" (#848).
    pub inviter_name: String,
    pub status: MirrorStatus,
    /// The newest join or leave applied.
    pub join_seq: u64,
    /// The roster the last join carried (#904).
    #[serde(default)]
    pub roster: Vec<RosterEntry>,
    /// The history was copied (once, into an empty mirror).
    #[serde(default)]
    pub history_taken: bool,
    /// The log's lines up to here are in the outbox.
    #[serde(default)]
    pub fanned_seq: u64,
}

/// A remote line taken from the sync, on its way into the room log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Inbound {
    /// `<home>:<seq>`, unique per remote line.
    pub key: String,
    pub author_id: String,
    pub author_kind: AuthorKind,
    /// The text, already fenced (#98).
    pub text: String,
    pub hop: u32,
    /// This room's own Bots the line calls (`localCalls`).
    #[serde(default)]
    pub calls: Vec<String>,
    /// A history line: no turn is started for it.
    #[serde(default)]
    pub history: bool,
}

fn read<T: DeserializeOwned>(room: &Room, key: &str) -> Option<T> {
    room.extra
        .get(key)
        .and_then(|v| serde_json::from_value(v.clone()).ok())
}

fn write<T: Serialize>(room: &mut Room, key: &str, value: &T) {
    if let Ok(v) = serde_json::to_value(value) {
        room.extra.insert(key.to_owned(), v);
    }
}

pub fn host_share(room: &Room) -> Option<HostShare> {
    read(room, "share")
}

pub fn set_host_share(room: &mut Room, share: &HostShare) {
    write(room, "share", share);
}

pub fn shared_from(room: &Room) -> Option<SharedFrom> {
    read(room, "sharedFrom")
}

pub fn set_shared_from(room: &mut Room, from: &SharedFrom) {
    write(room, "sharedFrom", from);
    room.extra
        .insert("origin".into(), Value::from(INBOUND_SHARE));
    room.extra
        .entry("maxHops".to_owned())
        .or_insert(Value::from(super::envelope::DEFAULT_MAX_HOPS));
}

pub fn max_hops(room: &Room) -> u32 {
    read(room, "maxHops").unwrap_or(super::envelope::DEFAULT_MAX_HOPS)
}

pub fn inbox(room: &Room) -> Vec<Inbound> {
    read(room, "shareInbox").unwrap_or_default()
}

pub fn set_inbox(room: &mut Room, lines: &[Inbound]) {
    if lines.is_empty() {
        room.extra.remove("shareInbox");
    } else {
        write(room, "shareInbox", &lines);
    }
}

fn keys(room: &Room, key: &str) -> Vec<String> {
    read(room, key).unwrap_or_default()
}

fn push_key(room: &mut Room, key: &str, value: String, kept: usize) {
    let mut all = keys(room, key);
    all.push(value);
    let over = all.len().saturating_sub(kept);
    all.drain(..over);
    write(room, key, &all);
}

/// Whether the remote line `key` was shown here already (`shownShare`).
pub fn shown(room: &Room, key: &str) -> bool {
    keys(room, "shownShare").iter().any(|k| k == key)
}

pub fn note_shown(room: &mut Room, key: String) {
    push_key(room, "shownShare", key, SHOWN_KEPT);
}

/// Whether `remote_room:seq:bot` was answered (`room.answered`).
pub fn answered(room: &Room, key: &str) -> bool {
    keys(room, "answered").iter().any(|k| k == key)
}

pub fn note_answered(room: &mut Room, key: String) {
    push_key(room, "answered", key, ANSWERED_KEPT);
}

/// The display name of an author a remote line brought, by author id.
pub fn note_name(room: &mut Room, author_id: &str, name: &str) {
    let mut names: std::collections::BTreeMap<String, String> =
        read(room, "shareNames").unwrap_or_default();
    names.insert(author_id.to_owned(), name.to_owned());
    write(room, "shareNames", &names);
}

/// The names remote lines brought, by author id, for the room's page.
pub fn names(room: &Room) -> std::collections::BTreeMap<String, String> {
    read(room, "shareNames").unwrap_or_default()
}

/// The id of a remote Bot's seat: its home and its handle, so two Bots of
/// the same name from different homes stay apart (#904).
pub fn seat_id(home: &str, handle: &str) -> String {
    format!("{home}/{handle}")
}

/// The room a Matrix room mirrors here: a stable id made from it.
pub fn mirror_id(matrix_room_id: &str) -> String {
    format!(
        "room-shr-{}",
        super::super::outbox::short_hash(matrix_room_id)
    )
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    /// Rule #825.
    fn answered_keeps_the_last_200() {
        let mut room = Room {
            id: "r".into(),
            name: "R".into(),
            owner_id: "m".into(),
            members: vec![],
            admin: None,
            participants: vec![],
            sessions: Default::default(),
            created_at: 1,
            updated_at: 1,
            extra: Default::default(),
        };
        for n in 0..250 {
            note_answered(&mut room, format!("x:{n}:bot"));
        }
        assert!(!answered(&room, "x:49:bot"));
        assert!(answered(&room, "x:50:bot") && answered(&room, "x:249:bot"));
        assert_eq!(keys(&room, "answered").len(), ANSWERED_KEPT);
    }
}
