//! How a round opens (#557, #932): the room's speaking order, who a line
//! calls, and when a Bot's plain line is quiet.

use super::super::ROOM_LATE_ROUNDS;
use super::super::mentions::{Named, calls, is_everyone_line};
use super::{Round, Slot};
use std::collections::{BTreeMap, VecDeque};

/// The room as a round reads it.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Setup {
    /// Live member Bots in the room's order.
    pub order: Vec<Named>,
    pub admin: Option<String>,
    /// The member Bot whose line came last before the opener: a line that
    /// names nobody may follow up on it, so it is asked first.
    pub last_speaker: Option<String>,
}

impl Setup {
    /// `ids` with the last speaker, when it is among them, moved first:
    /// the Bot that spoke last before a line that names nobody is asked
    /// first (`recentSpeaker`, a follow-up).
    fn follow_up_first(&self, mut ids: Vec<String>) -> Vec<String> {
        let at = self
            .last_speaker
            .as_ref()
            .and_then(|last| ids.iter().position(|id| id == last));
        if let Some(at) = at {
            let last = ids.remove(at);
            ids.insert(0, last);
        }
        ids
    }

    /// The admin first, then the room's order.
    pub fn speaking_order(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .admin
            .iter()
            .filter(|a| self.is_member(a))
            .cloned()
            .collect();
        out.extend(
            self.order
                .iter()
                .map(|n| n.id.clone())
                .filter(|id| Some(id) != self.admin.as_ref()),
        );
        out
    }

    pub fn is_member(&self, id: &str) -> bool {
        self.order.iter().any(|n| n.id == id)
    }

    fn ordered(&self, ids: &[String]) -> Vec<String> {
        self.speaking_order()
            .into_iter()
            .filter(|id| ids.contains(id))
            .collect()
    }
}

/// What opened the round.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opener<'a> {
    /// A person's line; `owner_line` when it is the owner's own (not a
    /// friend's attested line, whose home answers it).
    Person { text: &'a str, owner_line: bool },
    /// A member Bot's own post.
    Bot { from: &'a str, text: &'a str },
    /// A failure, stop or resume notice: calls nobody (#932).
    Event,
}

/// Whether a Bot's plain line is quiet: past `ROOM_LATE_ROUNDS` rounds since
/// the person last spoke, it spreads to nobody (names still call, #932).
pub fn is_quiet(late_rounds: u32) -> bool {
    late_rounds >= ROOM_LATE_ROUNDS
}

/// The late-round count after a round opens: a person's line resets it, a
/// Bot's line that opens a round adds one.
pub fn next_late_rounds(prev: u32, opener: &Opener<'_>) -> u32 {
    match opener {
        Opener::Person { .. } => 0,
        Opener::Bot { .. } => prev.saturating_add(1),
        Opener::Event => prev,
    }
}

impl Round {
    /// `openingSpeakers`: plans the round a line opens.
    pub fn open(setup: Setup, opener: Opener<'_>, late_rounds: u32) -> Round {
        let mut round = Round {
            setup,
            queue: VecDeque::new(),
            slots: Vec::new(),
            current: None,
            turns: BTreeMap::new(),
            routed: false,
            broadcast: false,
            answered: false,
            owner_line: false,
            fallback_used: false,
            calls: Vec::new(),
            dropped: Vec::new(),
            unknown: Vec::new(),
            other_homes_answer: false,
        };
        let (text, from) = match opener {
            Opener::Person { text, owner_line } => {
                round.owner_line = owner_line;
                (text, None)
            }
            Opener::Bot { from, text } => (text, Some(from)),
            Opener::Event => return round,
        };
        let found = calls(text, &round.setup.order);
        round.unknown = found.unknown.clone();
        let named: Vec<String> = found
            .ids
            .into_iter()
            .filter(|id| Some(id.as_str()) != from)
            .collect();
        let everyone: Vec<String> = round
            .setup
            .speaking_order()
            .into_iter()
            .filter(|id| Some(id.as_str()) != from)
            .collect();
        // Names are resolved before the quiet rule (#932).
        let (speakers, addressed) = if !named.is_empty() {
            (round.setup.ordered(&named), true)
        } else if found.all || is_everyone_line(text) {
            round.broadcast = true;
            (everyone, false)
        } else if from.is_some() && is_quiet(late_rounds) {
            (Vec::new(), false)
        } else {
            round.routed = true;
            (round.setup.follow_up_first(everyone), false)
        };
        for id in speakers {
            round.queue.push_back(Slot {
                bot_id: id,
                addressed,
                by: from.map(str::to_string),
                forced: false,
                outcome: None,
            });
        }
        round
    }
}

impl Round {
    /// A round whose speakers a room rule already chose (the face-to-face
    /// rule, `rooms::face`): `speakers` in that order, routed or broadcast
    /// as the rule said; no fallback turn (the line is not the owner's own
    /// on this home, or names its Bots), and other homes' answers count.
    pub fn with_speakers(
        setup: Setup,
        speakers: Vec<String>,
        routed: bool,
        broadcast: bool,
    ) -> Round {
        let mut round = Round::open(setup, Opener::Event, 0);
        round.routed = routed;
        round.broadcast = broadcast;
        round.other_homes_answer = true;
        for id in speakers {
            round.queue.push_back(Slot {
                bot_id: id,
                addressed: false,
                by: None,
                forced: false,
                outcome: None,
            });
        }
        round
    }
}
