//! Face-to-face rooms (issue 34, #83-#476) on Bot Social's Matrix
//! transport: a room hosted on the Matrix server with people and Bots of
//! several homes (`origin: face-to-face`). One home makes it (a public
//! Matrix room with the alias `#flybot-face-<number>:<server>`), others
//! join it by that number; membership is the server's. Each line travels
//! as a Matrix event, applied once per event id by the one sync
//! (`receive`, inside its journaled change), into the room log (`drain`),
//! and this home's own lines go out through the one outbox (`fan_out`).
//! The doors (make, join, leave) are `doors`; the turn rule is the core's
//! `rooms::face`, read where a round opens (`face_round`).

mod doors;
mod drain;
pub mod envelope;
mod fan_out;
pub mod held;
mod maker;
pub mod receive;
pub mod records;

pub use doors::{FaceCreate, FaceJoin, FaceLeave};
pub use maker::{FaceClose, FaceLead};

use super::Social;
use crate::rooms::RoomLogs;
use crate::social::shared_rooms;
use flybot_core::rooms::face::{FaceLine, open_face_round};
use flybot_core::rooms::log::{AuthorKind, LineKind, RoomLine};
use flybot_core::rooms::mentions::calls;
use flybot_core::rooms::participants::{ParticipantKind, participants_of};
use flybot_core::rooms::round::{Round, Setup};
use flybot_protocol::state::Room;
use flybot_protocol::{ApiError, ErrorCode};
use records::{FaceStatus, face};
use std::sync::Arc;

/// The face-to-face rooms' service. Cheap to clone.
#[derive(Clone)]
pub struct FaceRooms {
    social: Social,
    logs: Arc<RoomLogs>,
}

impl FaceRooms {
    pub fn new(social: &Social, logs: &Arc<RoomLogs>) -> FaceRooms {
        FaceRooms {
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
                this.fan_out().await;
            }
        });
    }
}

/// A line to a face room this home left, or its maker closed, is refused
/// `bot/room-ended` before anything is appended: a room the server no
/// longer carries must not look sent.
pub fn refuse_ended(room: &Room) -> Result<(), ApiError> {
    match face(room).map(|f| f.status) {
        Some(FaceStatus::Left) | Some(FaceStatus::Closed) => Err(ApiError::new(
            ErrorCode::RoomEnded,
            "You left this face-to-face room or it was closed; join it again from Past rooms to write there.",
        )),
        Some(FaceStatus::Open) | None => Ok(()),
    }
}

/// #124: whether the owner's own line in a face room opens a Bot round
/// here (only when it names one of this home's Bots); `None` for a room
/// that is not face-to-face.
pub fn owner_line_opens_round(
    state: &flybot_protocol::state::TeamState,
    room: &Room,
    text: &str,
) -> Option<bool> {
    face(room)?;
    let setup = crate::rooms::runner::setup_of(state, room);
    Some(!calls(text, &setup.order).ids.is_empty())
}

/// The round a line of a face room opens (the core's face turn rule), or
/// `None` for any other room. A round opens on a line before any of this
/// home's Bots answered it (a round a restart cut resumes from its note,
/// not here), so a Bot's line logged between the line and now answered the
/// round before it (#455: the line came mid-round) and does not count as
/// an answer to this one (#456).
pub fn face_round(room: &Room, line: &RoomLine, setup: Setup) -> Option<Round> {
    let record = face(room)?;
    let named = calls(&line.text, &setup.order).ids;
    let face_line = match (line.author_kind, line.kind) {
        (_, LineKind::Event) | (_, LineKind::Claim) | (AuthorKind::System, _) => {
            return Some(Round::with_speakers(setup, Vec::new(), false, false));
        }
        (AuthorKind::Human, LineKind::Chat) if !line.author_id.starts_with('@') => {
            FaceLine::Owner { text: &line.text }
        }
        (AuthorKind::Human, LineKind::Chat) => FaceLine::Friend {
            text: &line.text,
            attested: !record.quiet.contains(&line.seq),
            calls: &named,
        },
        (AuthorKind::LocalBot, LineKind::Chat) => FaceLine::LocalBot {
            from: &line.author_id,
            text: &line.text,
        },
        (AuthorKind::RemoteBot, LineKind::Chat) => FaceLine::RemoteBot { calls: &named },
    };
    Some(open_face_round(setup, face_line, &[]))
}

/// A face-to-face room's roster as its Bots' standing section reads it
/// (#476): every Bot seated now, of every home (this home's by name,
/// another's by its label), each with its role when it has one (another
/// home's `roleLabel`), and the lead's name when the lead is seated
/// now (none: no lead, or a lead who left).
pub struct Roster {
    pub members: Vec<String>,
    pub lead: Option<String>,
}

/// The roster of `room`, or `None` for a room that is not face-to-face.
pub fn roster(state: &flybot_protocol::state::TeamState, room: &Room) -> Option<Roster> {
    let record = face(room)?;
    let local = |id: &str| state.bots.get(id).map(|b| b.name.clone());
    let with_role = |name: String, role: Option<&str>| match role.filter(|r| !r.is_empty()) {
        Some(role) => format!("{name} · {role}"),
        None => name,
    };
    let mut members: Vec<String> = (room.members.iter())
        .filter_map(|m| state.bots.get(m))
        .map(|b| with_role(b.name.clone(), b.role.as_deref()))
        .collect();
    let seats: Vec<_> = participants_of(room)
        .into_iter()
        .filter(|p| p.kind == ParticipantKind::RemoteBot && p.is_live())
        .collect();
    let remote: Vec<(String, String)> = (seats.iter())
        .map(|p| (p.id.clone(), p.name.clone().unwrap_or(p.id.clone())))
        .collect();
    members.extend(
        (seats.iter().zip(&remote))
            .map(|(p, (_, name))| with_role(name.clone(), p.role_label.as_deref())),
    );
    let lead = record.lead.as_ref().and_then(|lead| {
        match room.admin.as_deref() == Some(lead.handle.as_str()) {
            true => local(&lead.handle),
            false => {
                let seat = shared_rooms::records::seat_id(&lead.home, &lead.handle);
                (remote.iter())
                    .find(|(id, _)| *id == seat)
                    .map(|(_, name)| name.clone())
            }
        }
    });
    Some(Roster { members, lead })
}
