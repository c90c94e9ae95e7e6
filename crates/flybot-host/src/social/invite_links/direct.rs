//! `message_bot` to a Bot a link seated (#923, #929): no friendship and no
//! 1:1 Matrix room stand behind such a Bot, so the only way to it is the
//! room the link opened. A send is judged by `peers::reach`, the same
//! list the fan-out and the guest's projection read: it goes only when it
//! matches one pair exactly (that Bot of this home, that handle of that
//! home, in that room); any other Bot of this home is refused with the
//! reach code and nothing is written. An allowed send becomes the Bot's
//! line in that room calling the seat, which the room's one fan-out
//! carries. Pure: the host posts what this answers.

use super::peers::{LinkSeat, link_seats, reach};
use flybot_protocol::state::TeamState;

/// The code of a send no grant and no link pair allows (#273, #923).
pub const REACH_CODE: &str = "not-shared";

/// Where an allowed send goes: the room here and the line to post there.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Posting {
    pub room_id: String,
    pub line: String,
    pub label: String,
}

/// Whether `name` names `seat`: its shown label or its bare name, any case.
fn names(seat: &LinkSeat, name: &str) -> bool {
    let wanted = name.trim().to_lowercase();
    let label = seat.name.to_lowercase();
    let bare = label.split(" (").next().unwrap_or(&label).to_owned();
    !wanted.is_empty() && (label == wanted || bare == wanted)
}

/// `message_bot` from `from` to the link seat `name`: `None` when no seat
/// a link made has that name, else the posting or the refusal sentence.
pub fn judge(
    state: &TeamState,
    from: &str,
    name: &str,
    text: &str,
) -> Option<Result<Posting, String>> {
    let named: Vec<LinkSeat> = (state.rooms.values())
        .flat_map(|room| link_seats(state, room))
        .filter(|seat| names(seat, name))
        .collect();
    let first = named.first()?.clone();
    let open = (named.into_iter())
        .find(|s| reach(state, from, &s.home, &s.handle, &s.scope))
        .filter(|s| {
            (state.rooms.get(&s.room_id)).is_some_and(|r| r.members.iter().any(|m| m == from))
        });
    let Some(seat) = open else {
        let me = (state.bots.get(from)).map_or(from, |b| b.name.as_str());
        let room = (state.rooms.get(&first.room_id)).map_or("its room", |r| r.name.as_str());
        return Some(Err(format!(
            "Refused ({REACH_CODE}): {me} may not write to {}: the invite link of {room} opened it to another Bot of this home only. Ask that Bot, or your owner.",
            first.name
        )));
    };
    let bare = seat
        .name
        .split(" (")
        .next()
        .unwrap_or(&seat.name)
        .to_owned();
    Some(Ok(Posting {
        room_id: seat.room_id,
        line: format!("@{bare} {}", text.trim()),
        label: seat.name,
    }))
}
