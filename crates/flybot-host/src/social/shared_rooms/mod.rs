//! Inbound shared rooms (issue 34, #825-#949) on Bot Social's Matrix
//! transport: a local room that gains a friend's Bot is shared through a
//! Matrix room this home makes, marked by the `org.flybot.share` state
//! event (the join: roster, notice, history); the friend's home projects
//! it at once as a room of its own (`origin: inbound-share`, "Shared room
//! from <inviter>"), and each chat line travels as an `m.room.message`
//! carrying an `org.flybot.share` line. In from the one sync (`receive`,
//! inside its journaled change), into the room log (`drain`), out through
//! the one outbox (`send`); a deleted room ends for its guests first
//! (`ending`). The wire shapes are `envelope`; what a room keeps of it,
//! `records`.

mod drain;
mod ending;
pub mod envelope;
pub mod guest;
pub mod guests;
pub mod receive;
pub mod records;
pub mod send;

use super::Social;
use crate::rooms::RoomLogs;
use std::sync::Arc;

/// The shared rooms' service. Cheap to clone.
#[derive(Clone)]
pub struct SharedRooms {
    social: Social,
    logs: Arc<RoomLogs>,
}

impl SharedRooms {
    pub fn new(social: &Social, logs: &Arc<RoomLogs>) -> SharedRooms {
        SharedRooms {
            social: social.clone(),
            logs: logs.clone(),
        }
    }

    /// Follows the team's writes and the rooms' new lines: queued remote
    /// lines go into the logs, this home's new lines go out.
    pub fn start(&self) {
        let this = self.clone();
        super::room_follower::follow_rooms(&self.social, move || {
            let this = this.clone();
            async move {
                this.drain().await;
                this.hide_revoked().await;
                this.fan_out().await;
            }
        });
    }

    /// The `@` names of a line that name a friend's Bot seated in `room`:
    /// not "no one in this room" (they sit here, on their own home).
    pub fn seated_elsewhere(room: &flybot_protocol::state::Room, names: &[String]) -> Vec<String> {
        let seated: Vec<String> = flybot_core::rooms::participants::participants_of(room)
            .into_iter()
            .filter(|p| {
                p.kind == flybot_core::rooms::participants::ParticipantKind::RemoteBot
                    && p.is_live()
            })
            .filter_map(|p| p.name)
            .map(|n| n.split(" (").next().unwrap_or(&n).to_lowercase())
            .collect();
        names
            .iter()
            .filter(|n| !seated.contains(&n.to_lowercase()))
            .cloned()
            .collect()
    }
}

/// `names` with the remote seats' names and the names shared lines
/// brought (issue 34), for a room's page.
pub fn with_remote_names(
    room: &flybot_protocol::state::Room,
    mut names: std::collections::BTreeMap<String, String>,
) -> std::collections::BTreeMap<String, String> {
    for seat in flybot_core::rooms::participants::participants_of(room) {
        if let Some(name) = seat.name {
            names.entry(seat.id).or_insert(name);
        }
    }
    for (id, name) in records::names(room) {
        names.entry(id).or_insert(name);
    }
    names
}
