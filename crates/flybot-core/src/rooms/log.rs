//! The room log line and the membership window over it (#50). Lines carry
//! `authorId` and `authorKind`; a pass posts nothing, so it is never a line.

use super::participants::Participant;
/// Who wrote a line and what it is: channel values, kept in `flybot-protocol`.
pub use flybot_protocol::room_line::{AuthorKind, LineKind};
use serde::{Deserialize, Serialize};

/// One line of the room log.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RoomLine {
    pub seq: u64,
    pub author_id: String,
    pub author_kind: AuthorKind,
    pub kind: LineKind,
    pub text: String,
    pub at: u64,
    /// The hop of a Bot's line: a person's line is 0, an answer one on.
    #[serde(default)]
    pub hop: u32,
    /// The attachments (ids) the line carries (issue 32), in the same
    /// record as the line, so no write can keep one without the other.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub attachments: Vec<String>,
}

/// The lines a seat may read, after `after` when given (#50).
pub fn in_window<'a>(
    lines: &'a [RoomLine],
    seat: &Participant,
    after: Option<u64>,
) -> Vec<&'a RoomLine> {
    lines
        .iter()
        .filter(|l| seat.sees(l.seq) && after.is_none_or(|a| l.seq > a))
        .collect()
}

/// The lines from `start` on, after `after` when given: the window of a
/// viewer whose start [`super::participants::window_start`] answered.
pub fn from_start(lines: &[RoomLine], start: u64, after: Option<u64>) -> Vec<&RoomLine> {
    lines
        .iter()
        .filter(|l| l.seq >= start && after.is_none_or(|a| l.seq > a))
        .collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::super::participants::{ParticipantKind, RoomRole};
    use super::*;

    fn line(seq: u64) -> RoomLine {
        RoomLine {
            seq,
            author_id: "member-a".into(),
            author_kind: AuthorKind::Human,
            kind: LineKind::Chat,
            text: format!("line {seq}"),
            at: seq,
            hop: 0,
            attachments: Vec::new(),
        }
    }

    #[test]
    /// Rule #50.
    fn messages_in_the_window_are_from_the_join_on_and_after_the_cursor() {
        let lines: Vec<RoomLine> = (1..=10).map(line).collect();
        let mut seat = Participant::new("member-b", ParticipantKind::Human, RoomRole::Member, 4);
        let seen: Vec<u64> = in_window(&lines, &seat, None)
            .iter()
            .map(|l| l.seq)
            .collect();
        assert_eq!(seen, vec![4, 5, 6, 7, 8, 9, 10]);
        let after: Vec<u64> = in_window(&lines, &seat, Some(8))
            .iter()
            .map(|l| l.seq)
            .collect();
        assert_eq!(after, vec![9, 10]);
        seat.left_seq = Some(9);
        assert!(in_window(&lines, &seat, None).is_empty());
        assert_eq!(from_start(&lines, 9, Some(9)).len(), 1);
    }
}
