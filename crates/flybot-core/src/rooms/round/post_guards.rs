//! The #557 guards on a Bot's `post_to_group` or `message_bot`: never into
//! the room it is speaking in, never past `MAX_HOPS`.

use super::super::MAX_HOPS;
use super::super::log::RoomLine;

/// Why a Bot's `post_to_group` or `message_bot` may not go (#557).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PostRefused {
    /// A Bot never posts into the room it is speaking in: its reply is the
    /// line.
    OwnRoom,
    /// The Bot-to-Bot chain reached `MAX_HOPS`.
    Hops,
}

impl PostRefused {
    pub fn sentence(self) -> &'static str {
        match self {
            PostRefused::OwnRoom => {
                "You are speaking in this group now: your reply is your line there, so do not post_to_group into it."
            }
            PostRefused::Hops => {
                "This Bot-to-Bot chain is long enough; stop here and report to the person."
            }
        }
    }
}

/// The #557 guards on a Bot's post: not into the room it speaks in, and not
/// past `MAX_HOPS`.
pub fn may_post(
    speaking_in: Option<&str>,
    target_room: Option<&str>,
    hop: u32,
) -> Result<(), PostRefused> {
    if speaking_in.is_some() && speaking_in == target_room {
        return Err(PostRefused::OwnRoom);
    }
    if hop >= MAX_HOPS {
        return Err(PostRefused::Hops);
    }
    Ok(())
}

/// The hop a member's turn carries (#557): the deepest line of the round it
/// answers, the opener or a Bot's post that came mid-round and called it.
/// A member called by a post of hop 4 answers at hop 4, not at the
/// opener's 0: counted from the opener, its own post went out at hop 1
/// again, and a ping-pong between two rooms posted twice at one hop. Lines
/// before the round (a first look shows the room's window) do not count.
pub fn turn_hop(opener: &RoomLine, shown: &[RoomLine]) -> u32 {
    shown
        .iter()
        .filter(|line| line.seq >= opener.seq)
        .map(|line| line.hop)
        .fold(opener.hop, u32::max)
}
