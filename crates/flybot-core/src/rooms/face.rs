//! The face-to-face turn rule (#167, changed in #287, #295 and #299):
//! `openingSpeakers` for a room hosted on the Matrix server with people and
//! Bots of several homes. Each home runs its own round over its own Bots,
//! so this rule only ever picks this home's Bots.
//!
//! - The owner's own line on this home opens no Bot round unless it names
//!   a local Bot (#124): the other homes answer it.
//! - A person of another home, attested by the server as typed by its
//!   owner (#295): the Bots it names (the sender's explicit mention list,
//!   #293, never a reparse of its words), or on a plain line or `@all`
//!   every local Bot, the admin (the room's lead, #476) first then the
//!   room's order, at most `FACE_PLAIN_SPEAKERS` (#167, #287), routed by
//!   intent (#299) unless it is a line to everyone. A line the server does
//!   not attest stays quiet.
//! - A Bot's post, of this home or another, starts only the local Bots it
//!   names (#475): another home's `@all` wakes none of mine.
//! - One answer per Bot per line (#456): a Bot that answered the line
//!   already is left out without a model call.

use super::mentions::{calls, is_everyone_line};
use super::round::{Round, Setup};

/// At most this many local Bots answer one plain line (#167).
pub const FACE_PLAIN_SPEAKERS: usize = 6;

/// A line of a face-to-face room, as the turn rule reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FaceLine<'a> {
    /// The owner's own typed line on this home (#124).
    Owner { text: &'a str },
    /// A person of another home (`postHuman`, #180): `attested` when the
    /// server says the home's owner typed it; `calls` are the handles of
    /// this home's Bots the sender's home named.
    Friend {
        text: &'a str,
        attested: bool,
        calls: &'a [String],
    },
    /// One of this home's Bots posted `text`.
    LocalBot { from: &'a str, text: &'a str },
    /// Another home's Bot: `calls` are the handles of this home's Bots it
    /// named, resolved by its home.
    RemoteBot { calls: &'a [String] },
}

/// Who answers a face line and how the round runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FaceOpening {
    /// Local Bots, in speaking order.
    pub speakers: Vec<String>,
    /// The first answer ends the round for the rest (#299).
    pub routed: bool,
    /// A line to everyone: each may answer, never cut.
    pub broadcast: bool,
}

impl FaceOpening {
    fn nobody() -> FaceOpening {
        FaceOpening {
            speakers: Vec::new(),
            routed: false,
            broadcast: false,
        }
    }

    fn named(setup: &Setup, ids: &[String], answered: &[String]) -> FaceOpening {
        FaceOpening {
            speakers: ordered(setup, ids, answered),
            routed: false,
            broadcast: false,
        }
    }
}

/// `setup`'s speaking order (admin first) restricted to `ids`, without the
/// Bots that answered the line already (#456).
fn ordered(setup: &Setup, ids: &[String], answered: &[String]) -> Vec<String> {
    setup
        .speaking_order()
        .into_iter()
        .filter(|id| ids.contains(id) && !answered.contains(id))
        .collect()
}

/// `openingSpeakers` for a face room. `answered` are the local Bots that
/// answered this line already.
pub fn opening_speakers(setup: &Setup, line: FaceLine<'_>, answered: &[String]) -> FaceOpening {
    match line {
        FaceLine::Owner { text } => {
            let found = calls(text, &setup.order);
            FaceOpening::named(setup, &found.ids, answered)
        }
        FaceLine::Friend {
            text,
            attested,
            calls,
        } => {
            if !attested {
                return FaceOpening::nobody();
            }
            let mine: Vec<String> = calls
                .iter()
                .filter(|c| setup.is_member(c))
                .cloned()
                .collect();
            if !mine.is_empty() {
                return FaceOpening::named(setup, &mine, answered);
            }
            if !calls.is_empty() && !super::mentions::calls(text, &[]).all {
                // It names only Bots of other homes: they answer there.
                return FaceOpening::nobody();
            }
            let everyone = is_everyone_line(text) || super::mentions::calls(text, &[]).all;
            let mut speakers = ordered(setup, &setup.speaking_order(), answered);
            speakers.truncate(FACE_PLAIN_SPEAKERS);
            // A follow-up: the Bot that spoke last is asked first.
            if let Some(at) = setup
                .last_speaker
                .as_ref()
                .and_then(|last| speakers.iter().position(|id| id == last))
            {
                let last = speakers.remove(at);
                speakers.insert(0, last);
            }
            FaceOpening {
                speakers,
                routed: !everyone,
                broadcast: everyone,
            }
        }
        FaceLine::LocalBot { from, text } => {
            let named: Vec<String> = calls(text, &setup.order)
                .ids
                .into_iter()
                .filter(|id| id != from)
                .collect();
            FaceOpening::named(setup, &named, answered)
        }
        FaceLine::RemoteBot { calls } => FaceOpening::named(setup, calls, answered),
    }
}

/// The round a face line opens (one single pass: the replies' own `@`s
/// call inside it, under the usual caps).
pub fn open_face_round(setup: Setup, line: FaceLine<'_>, answered: &[String]) -> Round {
    let opening = opening_speakers(&setup, line, answered);
    Round::with_speakers(setup, opening.speakers, opening.routed, opening.broadcast)
}

#[cfg(test)]
mod tests;
