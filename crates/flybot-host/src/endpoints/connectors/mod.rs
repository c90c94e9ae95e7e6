//! The secrets' and connectors' endpoints (#545, #311, #601): `secrets`,
//! `secret-set`, `secret-update`, `secret-delete`, `connectors`,
//! `connector-connect`, `connector-disconnect`, `connector-retry`,
//! `bot-connectors`, and the
//! channel connectors' `connector-allow`, `connector-block`,
//! `connector-send` (#1266). Each is a shared,
//! non-isolatable surface (#49): refused with `bot/blocked-shared` while
//! the team has more than one member, except what
//! `flybot_core::shared_surfaces` leaves the host's owner (reading the
//! rows, retrying a saved connector; issue 39).

mod channels;
mod mounts;
mod secrets;

use super::extract::route_table;
use super::{body::parse, typed};

route_table! {
    "connectors" => |host, caller, body| {
        let _: flybot_protocol::channel::Empty = parse(body)?;
        typed(mounts::list(host.connectors(), host.channels(), caller.require()?))
    };
    "connector-connect" => |host, caller, body| {
        let (actor, hub, lines) = (caller.require()?, host.connectors(), host.channels());
        if channels::is_channel(&parse(body)?) {
            return typed(channels::connect(hub, lines, actor, parse(body)?).await);
        }
        let req = parse(body)?;
        channels::check_mcp_id(lines, &req)?;
        typed(mounts::connect(hub, actor, req).await)
    };
    "connector-disconnect" => |host, caller, body| {
        let actor = caller.require()?;
        let req: flybot_protocol::connectors::ConnectorDisconnect = parse(body)?;
        if host.channels().has(&req.id) {
            let connector = host.channels().disconnect(&req.id)?;
            return typed(Ok(flybot_protocol::connectors::ConnectorAnswer { connector }));
        }
        typed(mounts::disconnect(host.connectors(), actor, req))
    };
    "connector-retry" => |host, caller, body| {
        typed(mounts::retry(host.connectors(), caller.require()?, parse(body)?).await)
    };
    "connector-allow" => |host, caller, body| {
        caller.require()?;
        typed(channels::allow(host.channels(), parse(body)?))
    };
    "connector-block" => |host, caller, body| {
        caller.require()?;
        typed(channels::block(host.channels(), parse(body)?))
    };
    "connector-send" => |host, caller, body| {
        caller.require()?;
        typed(channels::send(host.channels(), parse(body)?).await)
    };
    "bot-connectors" => |host, caller, body| {
        typed(mounts::switch(host.connectors(), caller.require()?, parse(body)?).await)
    };
    "secrets" => |host, caller, body| {
        let _: flybot_protocol::channel::Empty = parse(body)?;
        typed(secrets::list(host.connectors().secrets(), caller.require()?))
    };
    "secret-set" => |host, caller, body| {
        typed(secrets::set(host.connectors().secrets(), caller.require()?, parse(body)?))
    };
    "secret-update" => |host, caller, body| {
        typed(secrets::update(host.connectors().secrets(), caller.require()?, parse(body)?))
    };
    "secret-delete" => |host, caller, body| {
        typed(secrets::delete(host.connectors().secrets(), caller.require()?, parse(body)?))
    };
}
