//! The route table of sign-in, the roster and the host-wide surfaces.

use super::body::parse;
use super::extract::route_table;
use super::{access, host as host_info, roster, typed};
use flybot_protocol::channel::Empty;

route_table! {
    // Sign-in (#48). Redeeming needs no session: it is how one is made.
    "auth-redeem" => |host, caller, body| typed(access::sign_in::redeem(host.team(), parse(body)?).await);
    "auth-invite" => |host, caller, body| {
        typed(access::sign_in::invite(host.team(), caller.require()?, parse(body)?).await)
    };
    "auth-whoami" => |host, caller, body| {
        let _: Empty = parse(body)?;
        typed(Ok(access::sign_in::whoami(host.team(), caller.require()?)))
    };
    "auth-revoke" => |host, caller, body| {
        typed(access::sign_in::revoke(host.team(), caller.require()?, parse(body)?).await)
    };
    "auth-sessions" => |host, caller, body| {
        let _: Empty = parse(body)?;
        let edge = &host.config().edge;
        typed(Ok(access::sign_in::sessions(host.team(), caller.require()?, edge)))
    };
    "auth-revoke-invite" => |host, caller, body| {
        typed(access::sign_in::revoke_invite(host.team(), caller.require()?, parse(body)?).await)
    };
    "auth-remove-member" => |host, caller, body| {
        typed(access::sign_in::remove_member(host.team(), caller.require()?, parse(body)?).await)
    };
    // The roster.
    "create-bot" => |host, caller, body| {
        let config = host.config();
        typed(roster::bots::create(host.board(), config, caller.require()?, parse(body)?).await)
    };
    "update-bot" => |host, caller, body| {
        let models = &host.config().models;
        typed(roster::bots::update(host.board(), models, caller.require()?, parse(body)?).await)
    };
    "duplicate-bot" => |host, caller, body| {
        typed(roster::bots::duplicate(host.board(), caller.require()?, parse(body)?).await)
    };
    "delete-bot" => |host, caller, body| {
        let memory = host.memory();
        typed(roster::bots::delete(host.board(), &memory, caller.require()?, parse(body)?).await)
    };
    "retire-bot" => |host, caller, body| {
        typed(roster::bots::retire(host.board(), caller.require()?, parse(body)?).await)
    };
    "set-main" => |host, caller, body| {
        typed(roster::bots::set_main(host.board(), caller.require()?, parse(body)?).await)
    };
    "create-room" => |host, caller, body| {
        typed(roster::rooms::create(host.team(), caller.require()?, parse(body)?).await)
    };
    "update-room" => |host, caller, body| {
        let logs = host.rooms();
        typed(roster::rooms::update(host.team(), logs, caller.require()?, parse(body)?).await)
    };
    "delete-room" => |host, caller, body| {
        let (actor, req): (_, flybot_protocol::channel::ById) = (caller.require()?, parse(body)?);
        // #884: its invite links end at the server before the room does,
        // and #1167: its guests read a leave.
        host.invite_links().drop_room_invites(actor, &req.id).await?;
        host.shared_rooms().end_for_guests(actor, &req.id).await?;
        typed(roster::rooms::delete(host.team(), actor, req).await)
    };
    "set-grants" => |host, caller, body| {
        let logs = host.rooms();
        typed(access::grants::set(host.team(), logs, caller.require()?, parse(body)?).await)
    };
    // Shared, non-isolatable surfaces (#49).
    "set-prefs" => |host, caller, body| {
        typed(host_info::prefs::set_prefs(host.team(), caller.require()?, parse(body)?).await)
    };
    "diagnostics" => |host, caller, body| {
        let _: Empty = parse(body)?;
        typed(host_info::prefs::diagnostics(host.team(), host.config(), caller.require()?).await)
    };
    // The About block's download (#68): the same shared rule.
    "diagnostics-log" => |host, caller, body| {
        let _: Empty = parse(body)?;
        let home = &host.config().home;
        typed(host_info::about::diagnostics_log(host.team(), home, caller.require()?))
    };
}
