//! Connector access (#311, #335, #601, #1234, #1237, #1271, #1555): a
//! connector's tools are `mcp__<connector>__<tool>`; which of them a Bot's
//! turn may call is one rule here, answering for each denied name the
//! sentence its guard refuses with (the same names leave the Bot's list).
//! Order: the room answer first (#1237), then a run's caps (#1555), then
//! whose Bot it is (#49, #601: the host owner's own Bots only), then the
//! Bot's own switch (#601: absent means on).

pub mod channel;
pub mod feishu_event;
#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_channel;

use crate::rooms::participants::{ParticipantKind, participants_of};
use crate::workflow::run_bot::{CapSwitch, connector_refusal};
use flybot_protocol::ApiError;
use flybot_protocol::state::{Bot, TeamState};
use serde_json::Value;

/// Every connector tool's name starts with this.
pub const PREFIX: &str = "mcp__";
/// The GitHub connector's reserved name.
pub const GITHUB: &str = "github";
/// The Composio gateway's reserved name.
pub const COMPOSIO: &str = "composio";
/// The Bot record's key of its per-connector switches.
pub const SWITCHES: &str = "connectors";
/// The run Bot's key naming the Bots that cap it (#1544).
pub const CAPPED_BY: &str = "cappedBy";
/// The run Bot's key naming its node's tools.
pub const STEP_TOOLS: &str = "stepTools";

/// The name a connector's tool is mounted as.
pub fn tool_name(connector: &str, tool: &str) -> String {
    format!("{PREFIX}{connector}__{tool}")
}

/// The connector and the server's own tool name of a mounted name.
pub fn split_tool_name(name: &str) -> Option<(&str, &str)> {
    name.strip_prefix(PREFIX)?.split_once("__")
}

/// A connector's name: 1 to 32 of a-z, 0-9, `-`, starting with a letter
/// (no `_`, so `mcp__<connector>__<tool>` splits one way only).
pub fn check_name(name: &str) -> Result<(), ApiError> {
    let mut chars = name.chars();
    let first = chars.next().is_some_and(|c| c.is_ascii_lowercase());
    let rest = chars.all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-');
    if !first || !rest || name.len() > 32 {
        return Err(ApiError::invalid(
            "id",
            "A connector's name is 1 to 32 characters: a lower-case letter, then a-z, 0-9 or - (like github).",
        ));
    }
    Ok(())
}

/// Whether the Bot's owner turned `connector` off for it (absent is on; a
/// legacy `true` reads as on).
pub fn switched_off(bot: &Bot, connector: &str) -> bool {
    bot.extra
        .get(SWITCHES)
        .and_then(|switches| switches.get(connector))
        == Some(&Value::Bool(false))
}

/// GitHub's read half (#1234): `list_*`, `get_*`, `search_*`.
pub fn github_reads(tool: &str) -> bool {
    ["list_", "get_", "search_"]
        .iter()
        .any(|prefix| tool.starts_with(prefix))
}

/// Why a group room's member turn may not call `name` (#1234, #1237).
pub fn room_refusal(name: &str) -> Option<String> {
    let (connector, tool) = split_tool_name(name)?;
    match connector {
        GITHUB if github_reads(tool) => None,
        GITHUB => Some(format!(
            "The {name} tool is not available in a group room (#1234): a room gets GitHub's read tools (list/get/search) only. Change GitHub from your own chat."
        )),
        COMPOSIO => Some(format!(
            "The {name} tool is not available in a group room; reach outside apps from your own chat."
        )),
        _ => None,
    }
}

/// The caps of a run Bot for `connector`, as the team holds them (#1555).
/// The connectors are the host owner's (a shared surface, #49), so a cap
/// Bot another member owns is a friend's Bot to them, like one seated from
/// another home: it has no switch table of the owner's to intersect with.
fn cap_switches(state: &TeamState, bot: &Bot, connector: &str) -> Vec<CapSwitch> {
    let ids = bot.extra.get(CAPPED_BY).and_then(Value::as_array);
    let owner = crate::access::host_owner_id(state);
    ids.into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(|id| match state.bots.get(id) {
            Some(cap) if owner.as_ref().is_some_and(|o| *o != cap.owner_id) => CapSwitch::Remote {
                name: cap.name.clone(),
            },
            Some(cap) => CapSwitch::Team {
                name: cap.name.clone(),
                on: !switched_off(cap, connector),
            },
            None if is_remote_bot(state, id) => CapSwitch::Remote {
                name: id.to_owned(),
            },
            None => CapSwitch::Gone,
        })
        .collect()
}

/// Whether `id` is a friend's Bot seated in one of the team's rooms.
pub fn is_remote_bot(state: &TeamState, id: &str) -> bool {
    state.rooms.values().any(|room| {
        participants_of(room)
            .iter()
            .any(|seat| seat.kind == ParticipantKind::RemoteBot && seat.id == id)
    })
}

/// The node's step tools of a run Bot.
fn step_tools(bot: &Bot) -> Vec<String> {
    let tools = bot.extra.get(STEP_TOOLS).and_then(Value::as_array);
    tools
        .into_iter()
        .flatten()
        .filter_map(|t| t.as_str().map(str::to_owned))
        .collect()
}

/// Why `bot`'s turn (a room member's when `room_seat`) may not call the
/// connector tool `name`; `None` when it may.
pub fn refusal(state: &TeamState, bot: &Bot, room_seat: bool, name: &str) -> Option<String> {
    // An unparsable connector name fails closed.
    let Some((connector, _)) = split_tool_name(name) else {
        return Some(format!("There is no connector tool named {name}."));
    };
    if room_seat && let Some(why) = room_refusal(name) {
        return Some(why);
    }
    if bot.run {
        let caps = cap_switches(state, bot, connector);
        if let Some(why) = connector_refusal(connector, &step_tools(bot), &caps) {
            return Some(why);
        }
    }
    if let Some(why) = owner_refusal(state, bot, connector) {
        return Some(why);
    }
    switched_off(bot, connector)
        .then(|| format!("The {connector} connector is turned off for {}.", bot.name))
}

/// Why `bot` may not use the host owner's `connector` at all (#49, #601):
/// the connectors are the owner's, given to "the owner's own use of every
/// Bot", so a Bot another member owns never gets them. Before anyone is a
/// member every Bot is the one person's.
pub fn owner_refusal(state: &TeamState, bot: &Bot, connector: &str) -> Option<String> {
    let owner = crate::access::host_owner_id(state)?;
    (bot.owner_id != owner).then(|| {
        format!("The {connector} connector is the host owner's; it is not available to another member's Bot.")
    })
}

/// Every denied name of `names` with its sentence: the guard refuses each
/// and the mask takes each out of the list (#1271: computed whole, so a
/// rebuild that fails keeps the previous mask).
pub fn denied(
    state: &TeamState,
    bot: &Bot,
    room_seat: bool,
    names: &[String],
) -> Vec<(String, String)> {
    names
        .iter()
        .filter(|name| name.starts_with(PREFIX))
        .filter_map(|name| refusal(state, bot, room_seat, name).map(|why| (name.clone(), why)))
        .collect()
}
