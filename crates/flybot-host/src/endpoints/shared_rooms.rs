//! Inbound shared rooms' endpoints (issue 34): `room-share-add` seats a
//! friend's Bot in one of the caller's rooms and shares the room with its
//! home; `room-share-remove` takes the seat away and tells that home
//! (#1167); `room-share-hide` hides a room shared from another home. All
//! three are the home owner's alone (Bot Social speaks for the
//! home) and only on a room the owner holds: anyone else gets
//! `bot/forbidden` or `bot/not-found` and nothing changes.

use super::body::parse;
use super::extract::route_table;
use super::typed;
use crate::view::room_view;

route_table! {
    "room-share-add" => |host, caller, body| {
        let actor = caller.require()?;
        let shared = host.shared_rooms();
        typed(shared.add(actor, parse(body)?).await.map(|room| {
            serde_json::json!({"room": room_view(&room)})
        }))
    };
    "room-share-hide" => |host, caller, body| {
        let actor = caller.require()?;
        let shared = host.shared_rooms();
        typed(shared.hide(actor, parse(body)?).await.map(|room| {
            serde_json::json!({"room": room_view(&room)})
        }))
    };
    "room-share-remove" => |host, caller, body| {
        let actor = caller.require()?;
        let shared = host.shared_rooms();
        typed(shared.remove(actor, parse(body)?).await.map(|room| {
            serde_json::json!({"room": room_view(&room)})
        }))
    };
}
