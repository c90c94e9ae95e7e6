//! A local room's invite link (#852): `https://<server>/r/<handle>/<ticket>`,
//! where the ticket is 16 random bytes in base64url (22 characters), the
//! handle the Bot the link knocks on (the room's lead), and the server the
//! inviting home's Matrix server name. The link names no room: the ticket
//! leads to the room's lobby through the alias `#flybot-invite-<ticket>`
//! on that server, so an invitee never names a room it has not seen.

use flybot_protocol::ApiError;

/// A link as read: where, the Bot it knocks on, the ticket.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Link {
    pub server: String,
    pub handle: String,
    pub ticket: String,
}

/// A new ticket: 16 random bytes as base64url, or none when the OS gave
/// no randomness (a ticket is never made from zeros).
pub fn new_ticket() -> Option<String> {
    crate::ids::new_secret()
}

/// The link a room's owner copies.
pub fn link_url(server: &str, handle: &str, ticket: &str) -> String {
    format!("https://{server}/r/{handle}/{ticket}")
}

/// The Matrix server name of a user id (`@alice:example.org` → `example.org`).
pub fn server_of(user_id: &str) -> &str {
    user_id.split_once(':').map_or("", |(_, server)| server)
}

/// The lobby's alias for a ticket.
pub fn alias(ticket: &str, server: &str) -> String {
    format!("#flybot-invite-{ticket}:{server}")
}

fn ticket_shape(ticket: &str) -> bool {
    (16..=64).contains(&ticket.len())
        && ticket
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
}

fn handle_shape(handle: &str) -> bool {
    (1..=128).contains(&handle.len())
        && handle
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.'))
}

fn server_shape(server: &str) -> bool {
    (1..=253).contains(&server.len())
        && server
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b':' | b'[' | b']'))
}

/// Reads a link; a face-room link, a bare ticket, or a ticket outside the
/// 16–64 shape is refused in one sentence (#876).
pub fn parse_link(link: &str) -> Result<Link, ApiError> {
    let bad = || {
        ApiError::invalid(
            "link",
            "That is not a room invite link; paste the whole https://…/r/<Bot>/<ticket> link you were given.",
        )
    };
    let link = link.trim();
    let rest = (link.strip_prefix("https://"))
        .or_else(|| link.strip_prefix("http://"))
        .ok_or_else(bad)?;
    let parts: Vec<&str> = rest.trim_end_matches('/').split('/').collect();
    let [server, "r", handle, ticket] = parts.as_slice() else {
        return Err(bad());
    };
    if !server_shape(server) || !handle_shape(handle) || !ticket_shape(ticket) {
        return Err(bad());
    }
    Ok(Link {
        server: (*server).to_owned(),
        handle: (*handle).to_owned(),
        ticket: (*ticket).to_owned(),
    })
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    /// Rule #852.
    fn a_ticket_is_16_random_bytes_in_base64url_and_the_link_reads_back() {
        let ticket = new_ticket().unwrap();
        assert_eq!(ticket.len(), 22);
        assert!(ticket_shape(&ticket));
        assert_ne!(ticket, new_ticket().unwrap());
        let url = link_url("localhost", "bot-1", &ticket);
        let link = parse_link(&url).unwrap();
        assert_eq!(link.server, "localhost");
        assert_eq!(link.handle, "bot-1");
        assert_eq!(link.ticket, ticket);
        assert_eq!(server_of("@alice:localhost"), "localhost");
    }

    #[test]
    /// Rule #876.
    fn a_face_link_a_bare_ticket_or_a_short_ticket_is_refused() {
        for link in [
            "AAAAAAAAAAAAAAAAAAAAAA",
            "https://localhost/f/AAAAAAAAAAAAAAAAAAAAAA",
            "https://localhost/r/bot-1/short",
            "https://localhost/r/bot-1/AAAAAAAAAAAAAAAAAAAAAA/extra",
            "https://localhost/r/bot 1/AAAAAAAAAAAAAAAAAAAAAA",
            "ftp://localhost/r/bot-1/AAAAAAAAAAAAAAAAAAAAAA",
        ] {
            let refused = parse_link(link).unwrap_err();
            assert_eq!(refused.code.as_str(), "bot/invalid", "{link}");
        }
    }
}
