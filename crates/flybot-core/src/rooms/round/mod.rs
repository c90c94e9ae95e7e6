//! Round planning (#557, #804, #932): who speaks for a line, in what order,
//! how often, and when the round ends.
//!
//! A person's line opens a round: the admin first, then the room's order.
//! A line that names members (`@Name`, every alias) calls those; `@all` or a
//! line to everyone calls each and is never cut; a plain line is *routed*:
//! the first Bot that answers ends the round for the rest without a model
//! call. `[PASS]` posts nothing. When every Bot passed on the owner's own
//! line, `fallbackDue` adds one forced turn for the first Bot that passed.
//! Names in a Bot's own line (a reply, or a `post_to_group` while the round
//! runs) are calls inside the running round, bounded by `ROOM_TURNS_EACH` /
//! `ROOM_ADMIN_TURNS_EACH` and the round's own limit — except a member's @
//! of the admin, which the per-member cap never drops (#804).

mod member_calls;
mod opening;
mod post_guards;
#[cfg(test)]
mod tests;
mod turn_taking;

pub use member_calls::Dropped;
pub use opening::{Opener, Setup, is_quiet, next_late_rounds};
pub use post_guards::{PostRefused, may_post, turn_hop};
pub use turn_taking::{Reply, TurnCall};

use std::collections::{BTreeMap, VecDeque};

/// How a slot ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum SlotOutcome {
    Answered,
    Passed,
    /// Ended by the routed-round rule, without a model call.
    Skipped,
    /// Stopped by the person (#1267): nothing it said is posted.
    Stopped,
    Failed,
}

/// One member turn in the round.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Slot {
    pub bot_id: String,
    /// A person's line (or the poster's own line) named this member.
    pub addressed: bool,
    /// The Bot whose line called this member (#913, #932).
    pub by: Option<String>,
    /// `ROOM_REPLY_FORCED`: the fallback turn, no pass option.
    pub forced: bool,
    pub outcome: Option<SlotOutcome>,
}

/// A running round. It is plain data, so the host notes it in the turn
/// log at every step and a restart finishes it where it stopped.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Round {
    pub setup: Setup,
    queue: VecDeque<Slot>,
    pub slots: Vec<Slot>,
    current: Option<Slot>,
    turns: BTreeMap<String, u32>,
    pub routed: bool,
    pub broadcast: bool,
    answered: bool,
    owner_line: bool,
    fallback_used: bool,
    calls: Vec<(String, String)>,
    /// Calls the caps dropped, for diagnostics and tests.
    pub dropped: Vec<(String, Dropped)>,
    /// `@X` names in the opener that named nobody here.
    pub unknown: Vec<String>,
    /// A face-to-face round (#475): another home's Bot answering the line
    /// counts as an answer, and ends a routed round here too.
    #[serde(default)]
    pub other_homes_answer: bool,
}
