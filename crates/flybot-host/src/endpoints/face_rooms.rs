//! Face-to-face rooms' endpoints (issue 34, #83): `face-room-create` makes
//! a room on the Matrix server with the caller's Bots in it,
//! `face-room-join` joins one by its six-digit number (or reopens a past
//! one, #171, #1072), `face-room-leave` leaves it and keeps the
//! transcript; `face-room-lead` and `face-room-close` change its lead or
//! close it, on the home that made it only (#476). All are the home
//! owner's alone (Bot Social speaks for the home): anyone else gets
//! `bot/forbidden` and nothing changes.

use super::body::parse;
use super::extract::route_table;
use super::typed;
use crate::view::room_view;

route_table! {
    "face-room-create" => |host, caller, body| {
        let actor = caller.require()?;
        let rooms = host.face_rooms();
        typed(rooms.create(actor, parse(body)?).await.map(|room| {
            serde_json::json!({"room": room_view(&room)})
        }))
    };
    "face-room-join" => |host, caller, body| {
        let actor = caller.require()?;
        let rooms = host.face_rooms();
        typed(rooms.join(actor, parse(body)?).await.map(|room| {
            serde_json::json!({"room": room_view(&room)})
        }))
    };
    "face-room-lead" => |host, caller, body| {
        let actor = caller.require()?;
        let rooms = host.face_rooms();
        typed(rooms.set_lead(actor, parse(body)?).await.map(|room| {
            serde_json::json!({"room": room_view(&room)})
        }))
    };
    "face-room-close" => |host, caller, body| {
        let actor = caller.require()?;
        let rooms = host.face_rooms();
        typed(rooms.close(actor, parse(body)?).await.map(|room| {
            serde_json::json!({"room": room_view(&room)})
        }))
    };
    "face-room-leave" => |host, caller, body| {
        let actor = caller.require()?;
        let rooms = host.face_rooms();
        typed(rooms.leave(actor, parse(body)?).await.map(|room| {
            serde_json::json!({"room": room_view(&room)})
        }))
    };
}
