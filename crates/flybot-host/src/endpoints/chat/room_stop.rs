//! `room-stop {roomId}` → `{roomId, wasRunning}`: a person stops a room's
//! whole round (the page's Stop round). The member speaking now is cancelled
//! as a stop line cancels it (#1267), the members still to speak are
//! skipped, and the lines that waited for the next round open none (#1679:
//! nothing is retried behind the person's back). Stop itself posts no line;
//! a speaker cut mid-answer keeps what it had said, with a room line naming
//! it (issue 31, `rooms/round_steps.rs`).

use super::room_chat::room_window;
use crate::rooms::{RoomParticipant, Rounds};
use flybot_core::access::Actor;
use flybot_core::rooms::steer::{Arrival, RoomNow, Route, route_line};
use flybot_protocol::ApiError;
use flybot_protocol::answers::RoomStopped;
use serde::Deserialize;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct RoomStop {
    pub room_id: String,
}

pub fn stop(rounds: &Rounds, actor: &Actor, req: RoomStop) -> Result<RoomStopped, ApiError> {
    let (room, _) = rounds
        .team()
        .read(|state| room_window(state, actor, &req.room_id))?;
    let speaking = rounds.logs().run(&room.id, |r| {
        let now = RoomNow {
            running: r.running,
            speaking: r.speaking.is_some(),
            oldest_wait_since: None,
            now: 0,
        };
        match route_line(&now, Arrival::StopRound) {
            Route::HaltRound => {
                r.halted = true;
                r.stopped = true;
                Some(r.speaking.clone())
            }
            _ => None,
        }
    });
    if let Some(Some((_, session))) = &speaking {
        RoomParticipant::cancel(&rounds.participant(), session);
    }
    Ok(RoomStopped {
        room_id: room.id,
        was_running: speaking.is_some(),
    })
}
