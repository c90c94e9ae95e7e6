//! A local room's invite links' endpoints (issue 34, #876, #884, #1064):
//! `room-invite` lists a room's open links, `room-invite-mint` adds one,
//! `room-invite-revoke` withdraws one or all, `room-invite-seat` reads the
//! claims again now (Seat them); `room-invite-preview` and
//! `room-invite-ask` are the invitee's side (read a link, claim it for
//! some of this home's Bots). All six are the home owner's alone (Bot
//! Social speaks for the home), the first four on a room the owner holds:
//! anyone else gets `bot/forbidden` or `bot/not-found` and nothing changes.

use super::body::parse;
use super::extract::route_table;
use super::typed;

route_table! {
    "room-invite" => |host, caller, body| {
        let actor = caller.require()?;
        typed(host.invite_links().links(actor, parse(body)?))
    };
    "room-invite-ask" => |host, caller, body| {
        let actor = caller.require()?;
        typed(host.invite_links().ask(actor, parse(body)?).await)
    };
    "room-invite-mint" => |host, caller, body| {
        let actor = caller.require()?;
        typed(host.invite_links().mint(actor, parse(body)?).await)
    };
    "room-invite-preview" => |host, caller, body| {
        let actor = caller.require()?;
        typed(host.invite_links().preview(actor, parse(body)?).await)
    };
    "room-invite-revoke" => |host, caller, body| {
        let actor = caller.require()?;
        typed(host.invite_links().revoke(actor, parse(body)?).await)
    };
    "room-invite-seat" => |host, caller, body| {
        let actor = caller.require()?;
        typed(host.invite_links().seat_now(actor, parse(body)?).await)
    };
}
