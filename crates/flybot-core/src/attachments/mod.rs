//! The rules of attachments (issue 32): who may read one (the line decides,
//! #50), how much a member may store, which model reads an image for a
//! model that cannot see (#779), and what a model is handed instead of the
//! bytes: an image's placeholder and reading, a text file fenced (#98).

pub mod images;
pub mod text;

use crate::rooms::participants::{ParticipantKind, participants_of, window_start};
use flybot_protocol::attachment::{Attachment, Posting};
use flybot_protocol::state::TeamState;
use flybot_protocol::{ApiError, ErrorCode};

/// The size limits of uploads (config.toml `[attachments]`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limits {
    /// One file, in bytes.
    pub per_file: u64,
    /// Everything one member has uploaded, in bytes.
    pub per_member: u64,
}

/// Whether `member_id` may read `attachment`: its owner may; in a room,
/// a member whose membership window covers a line that carries it may
/// (#50: a late joiner's window starts after the line, so it may not).
/// Another member's attachment in an own chat is never readable.
pub fn may_read(state: &TeamState, member_id: &str, attachment: &Attachment) -> bool {
    if attachment.owner_id == member_id {
        return true;
    }
    attachment.postings.iter().any(|posting| match posting {
        Posting::Room { room_id, seq } => state.rooms.get(room_id).is_some_and(|room| {
            window_start(state, &participants_of(room), member_id).is_some_and(|s| s <= *seq)
        }),
        Posting::Chat { .. } => false,
    })
}

/// Whether the Bot `bot_id`, in its Session `session_id`, may read
/// `attachment` (`read_attachment`, issue 32): the line's rule seen from
/// the seat, so only an attachment on a line of this Session's own chat,
/// or of the room this Session sits in (a live seat) at or after the
/// seat's join (#50).
/// Every other attachment is as unknown as an id never made.
pub fn session_may_read(
    state: &TeamState,
    session_id: &str,
    bot_id: &str,
    attachment: &Attachment,
) -> bool {
    attachment.postings.iter().any(|posting| match posting {
        Posting::Chat { session_id: chat } => chat == session_id,
        Posting::Room { room_id, seq } => state.rooms.get(room_id).is_some_and(|room| {
            room.sessions.get(bot_id).is_some_and(|s| s == session_id)
                && participants_of(room)
                    .into_iter()
                    .find(|p| p.id == bot_id && p.kind == ParticipantKind::LocalBot && p.is_live())
                    .is_some_and(|p| p.joined_seq <= *seq)
        }),
    })
}

/// Refuses an upload of `size` bytes by `owner_id` past a limit, with one
/// sentence that names it; writes nothing.
pub fn check_quota(
    state: &TeamState,
    owner_id: &str,
    size: u64,
    limits: Limits,
) -> Result<(), ApiError> {
    if size > limits.per_file {
        return Err(ApiError::new(
            ErrorCode::TooLarge,
            format!(
                "The file is {} and the limit per file is {}; send a smaller one.",
                shown_size(size),
                shown_size(limits.per_file)
            ),
        )
        .with("limit", limits.per_file));
    }
    let used: u64 = state
        .attachments
        .values()
        .filter(|a| a.owner_id == owner_id)
        .map(|a| a.size)
        .sum();
    if used.saturating_add(size) > limits.per_member {
        return Err(ApiError::new(
            ErrorCode::TooLarge,
            format!(
                "Your attachments already hold {} of the {} each member may store; this file does not fit.",
                shown_size(used),
                shown_size(limits.per_member)
            ),
        )
        .with("limit", limits.per_member));
    }
    Ok(())
}

/// A size as a person reads it: bytes, KiB or MiB.
pub fn shown_size(bytes: u64) -> String {
    const KIB: u64 = 1024;
    if bytes >= KIB * KIB && bytes.is_multiple_of(KIB * KIB) {
        format!("{} MiB", bytes / (KIB * KIB))
    } else if bytes >= KIB * KIB {
        let tenths = bytes * 10 / (KIB * KIB);
        format!("{}.{} MiB", tenths / 10, tenths % 10)
    } else if bytes >= KIB {
        format!("{} KiB", bytes / KIB)
    } else {
        format!("{bytes} bytes")
    }
}

/// A file name as stored and shown: one printable line of at most 200
/// characters, never a path; `file` when nothing is left.
pub fn clean_name(raw: &str) -> String {
    let base = raw.rsplit(['/', '\\']).next().unwrap_or(raw);
    let name: String = base.chars().filter(|c| !c.is_control()).take(200).collect();
    let name = name.trim();
    if name.is_empty() || name == "." || name == ".." {
        "file".to_owned()
    } else {
        name.to_owned()
    }
}

#[cfg(test)]
mod tests;
