//! What a face-to-face room carries over Matrix (#83): the room's
//! `org.flybot.face` state (its number, title and lead), set only by the
//! home that made it (the room's power levels give that event to the
//! creator alone); each home's own `org.flybot.face.home` state under its
//! Matrix user id as the state key (the homeserver lets only that user set
//! it), naming the person and the Bots it brought; and each line as an
//! `m.room.message` whose content holds an `org.flybot.face` line.

use flybot_protocol::room_line::AuthorKind;
use serde::{Deserialize, Serialize};

/// The room's own state event (state key `""`).
pub const FACE_STATE: &str = "org.flybot.face";
/// A home's part in the room (state key: the home's Matrix user id).
pub const HOME_STATE: &str = "org.flybot.face.home";
/// The key of a face line inside an `m.room.message`'s content.
pub const FACE_KEY: &str = "org.flybot.face";
/// The alias a room number is joined by: `#flybot-face-<number>:<server>`.
pub const ALIAS_PREFIX: &str = "flybot-face-";
/// A room number has this many digits (#304).
pub const CODE_DIGITS: usize = 6;

/// The room's `org.flybot.face` state.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FaceMeta {
    /// The six-digit number the room is joined by (#304).
    pub code: String,
    /// The name its maker gave it; empty: the shared auto title (#172).
    #[serde(default)]
    pub name: String,
    /// When it was made, ms (#194: every home's title says the same).
    pub created_at: u64,
    /// The room's lead (#476), a Bot of some home.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lead: Option<LeadRef>,
    /// `closed` once its maker closed it: nobody writes there any more.
    #[serde(default)]
    pub closed: bool,
}

/// A Bot of some home, by its home and its id there.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct LeadRef {
    pub home: String,
    pub handle: String,
}

/// Whether a home is in the room or left it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum HomeStatus {
    Joined,
    Left,
}

/// A home's `org.flybot.face.home` state: its person and its Bots.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct HomePart {
    pub owner_name: String,
    #[serde(default)]
    pub bots: Vec<BotEntry>,
    pub status: HomeStatus,
}

/// One Bot a home brought.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct BotEntry {
    pub handle: String,
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub role: Option<String>,
    /// Its look, when its home gives one: a `#rrggbb` color and an emoji or
    /// initials (kept only in those shapes, `records::clean_look`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub avatar: Option<String>,
}

/// A line of the room, from the home that wrote it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct FaceLineOut {
    /// The line's seq on the home that wrote it.
    pub seq: u64,
    pub author_kind: AuthorKind,
    /// The Bot that wrote it, by its id in its home.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub handle: Option<String>,
    /// A person's line is hop 0, a Bot's one on.
    #[serde(default)]
    pub hop: u32,
    /// The Bots the line names, as `<home>/<handle>` (#293).
    #[serde(default)]
    pub calls: Vec<String>,
    /// The home's owner typed it (#295: a FlyBot home attests it).
    #[serde(default)]
    pub typed: bool,
}

/// The alias of room number `code` on `server`.
pub fn alias_of(code: &str, server: &str) -> String {
    format!("#{ALIAS_PREFIX}{code}:{server}")
}

/// The server part of a Matrix user id (`@name:server` → `server`).
pub fn server_of(user_id: &str) -> &str {
    user_id.split_once(':').map_or("", |(_, s)| s)
}

/// Reads a room number as a person types it: six digits, optionally
/// `:server` after; anything else is `None`.
pub fn read_code(typed: &str) -> Option<(String, Option<String>)> {
    let typed = typed.trim();
    let (code, server) = match typed.split_once(':') {
        Some((c, s)) => (c, Some(s)),
        None => (typed, None),
    };
    let ok = code.len() == CODE_DIGITS && code.chars().all(|c| c.is_ascii_digit());
    let server_ok = server.is_none_or(|s| {
        !s.is_empty()
            && s.len() <= 255
            && s.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']'))
    });
    (ok && server_ok).then(|| (code.to_owned(), server.map(str::to_owned)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    /// Rule #304.
    fn a_room_number_is_six_digits_and_maybe_a_server() {
        assert_eq!(read_code(" 123456 "), Some(("123456".into(), None)));
        assert_eq!(
            read_code("123456:example.org"),
            Some(("123456".into(), Some("example.org".into())))
        );
        for bad in ["12345", "1234567", "12a456", "123456:", "123456:a/b", ""] {
            assert_eq!(read_code(bad), None, "{bad}");
        }
        assert_eq!(
            alias_of("123456", "localhost"),
            "#flybot-face-123456:localhost"
        );
    }
}
