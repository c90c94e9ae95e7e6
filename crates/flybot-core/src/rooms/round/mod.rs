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

use super::mentions::{Named, calls, is_everyone_line, is_pass};
use super::{
    MAX_HOPS, ROOM_ADMIN_TURNS_EACH, ROOM_LATE_ROUNDS, ROOM_ROUND_TURNS_MAX, ROOM_TURNS_EACH,
};
use std::collections::{BTreeMap, VecDeque};

/// The room as a round reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Setup {
    /// Live member Bots in the room's order.
    pub order: Vec<Named>,
    pub admin: Option<String>,
}

impl Setup {
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

/// How a slot ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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
#[derive(Debug, Clone, PartialEq, Eq)]
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

/// A member's reply as the round reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reply<'a> {
    Line(&'a str),
    Stopped,
    Failed,
}

/// The turn the host runs next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnCall {
    pub bot_id: String,
    pub forced: bool,
    pub addressed: bool,
    pub by: Option<String>,
}

/// Why a call inside the round was not queued.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Dropped {
    NotAMember,
    Sender,
    Cap,
    RoundLimit,
}

/// A running round.
#[derive(Debug, Clone, PartialEq, Eq)]
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
            (everyone, false)
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

    fn cap_of(&self, id: &str) -> u32 {
        if self.setup.admin.as_deref() == Some(id) {
            ROOM_ADMIN_TURNS_EACH
        } else {
            ROOM_TURNS_EACH
        }
    }

    fn planned(&self, id: &str) -> u32 {
        let queued = self.queue.iter().filter(|s| s.bot_id == id).count() as u32;
        let running = u32::from(self.current.as_ref().is_some_and(|s| s.bot_id == id));
        self.turns.get(id).copied().unwrap_or(0) + queued + running
    }

    fn total(&self) -> u32 {
        self.slots.len() as u32 + self.queue.len() as u32 + u32::from(self.current.is_some())
    }

    /// A call of `id` by `from` inside the round, checked against the caps
    /// (#557) and the admin-mention exception (#804).
    fn enqueue_call(&mut self, from: &str, id: &str) -> Result<(), Dropped> {
        if !self.setup.is_member(id) {
            return Err(Dropped::NotAMember);
        }
        if from == id {
            return Err(Dropped::Sender);
        }
        if self.total() >= ROOM_ROUND_TURNS_MAX {
            return Err(Dropped::RoundLimit);
        }
        let admin_called = self.setup.admin.as_deref() == Some(id);
        if !admin_called && self.planned(id) >= self.cap_of(id) {
            return Err(Dropped::Cap);
        }
        if let Some(slot) = self
            .queue
            .iter_mut()
            .find(|s| s.bot_id == id && s.outcome.is_none())
        {
            // Already queued: the call keeps that slot from the routed-round
            // skip, so the member named in a reply still speaks (#932).
            if slot.by.is_none() && !slot.addressed {
                slot.by = Some(from.to_string());
            }
            return Ok(());
        }
        self.queue.push_back(Slot {
            bot_id: id.to_string(),
            addressed: false,
            by: Some(from.to_string()),
            forced: false,
            outcome: None,
        });
        Ok(())
    }

    /// #932: a `post_to_group` line of `from` while the round runs; its @
    /// names (members, never the sender) are called at the next loop head.
    /// An event post calls nobody.
    pub fn call_from_post(&mut self, from: &str, text: &str) {
        for id in calls(text, &self.setup.order).ids {
            self.calls.push((from.to_string(), id));
        }
    }

    /// #1254: a dispatch the board took calls nobody: drops the pending
    /// call of `id` by `from`, so the member works from its card instead of
    /// a round turn.
    pub fn uncall(&mut self, from: &str, id: &str) {
        self.calls.retain(|(f, i)| !(f == from && i == id));
    }

    fn drain_calls(&mut self) {
        for (from, id) in std::mem::take(&mut self.calls) {
            if let Err(why) = self.enqueue_call(&from, &id) {
                self.dropped.push((id, why));
            }
        }
    }

    /// The next member turn, or `None` when the round is over. Slots the
    /// routed-round rule ends are recorded as skipped without a turn.
    pub fn next_turn(&mut self) -> Option<TurnCall> {
        if let Some(slot) = self.current.take() {
            self.finish(slot, SlotOutcome::Failed);
        }
        self.drain_calls();
        while let Some(slot) = self.queue.pop_front() {
            let routed_over = self.routed && self.answered && !slot.addressed && slot.by.is_none();
            if routed_over {
                self.finish(slot, SlotOutcome::Skipped);
                continue;
            }
            let call = TurnCall {
                bot_id: slot.bot_id.clone(),
                forced: slot.forced,
                addressed: slot.addressed,
                by: slot.by.clone(),
            };
            *self.turns.entry(slot.bot_id.clone()).or_insert(0) += 1;
            self.current = Some(slot);
            return Some(call);
        }
        if self.fallback_due() {
            self.fallback_used = true;
            let first = self
                .slots
                .iter()
                .find(|s| s.outcome == Some(SlotOutcome::Passed))
                .map(|s| s.bot_id.clone())?;
            *self.turns.entry(first.clone()).or_insert(0) += 1;
            self.current = Some(Slot {
                bot_id: first.clone(),
                addressed: false,
                by: None,
                forced: true,
                outcome: None,
            });
            return Some(TurnCall {
                bot_id: first,
                forced: true,
                addressed: false,
                by: None,
            });
        }
        None
    }

    /// `fallbackDue`: every Bot passed on the owner's own line.
    pub fn fallback_due(&self) -> bool {
        self.owner_line
            && !self.fallback_used
            && !self.answered
            && self.queue.is_empty()
            && self
                .slots
                .iter()
                .any(|s| s.outcome == Some(SlotOutcome::Passed))
            && self.slots.iter().all(|s| {
                matches!(
                    s.outcome,
                    Some(SlotOutcome::Passed) | Some(SlotOutcome::Skipped)
                )
            })
    }

    fn finish(&mut self, mut slot: Slot, outcome: SlotOutcome) {
        slot.outcome = Some(outcome);
        self.slots.push(slot);
    }

    /// Records the running member's reply. Answers whether it posts a line
    /// (a pass, a stop and a failure post nothing of the member's own).
    pub fn record(&mut self, bot_id: &str, reply: Reply<'_>) -> bool {
        let Some(slot) = self.current.take().filter(|s| s.bot_id == bot_id) else {
            return false;
        };
        match reply {
            Reply::Line(text) if is_pass(text) => {
                self.finish(slot, SlotOutcome::Passed);
                false
            }
            Reply::Line(text) => {
                self.answered = true;
                self.finish(slot, SlotOutcome::Answered);
                for id in calls(text, &self.setup.order).ids {
                    self.calls.push((bot_id.to_string(), id));
                }
                true
            }
            Reply::Stopped => {
                self.finish(slot, SlotOutcome::Stopped);
                false
            }
            Reply::Failed => {
                self.finish(slot, SlotOutcome::Failed);
                false
            }
        }
    }

    /// The member speaking now.
    pub fn speaking(&self) -> Option<&str> {
        self.current.as_ref().map(|s| s.bot_id.as_str())
    }

    /// Members queued after the one speaking, in order.
    pub fn queued(&self) -> Vec<String> {
        self.queue.iter().map(|s| s.bot_id.clone()).collect()
    }

    /// Members who answered so far (for the route note).
    pub fn answered_by(&self) -> Vec<String> {
        self.slots
            .iter()
            .filter(|s| s.outcome == Some(SlotOutcome::Answered))
            .map(|s| s.bot_id.clone())
            .collect()
    }
}

/// Why a Bot's `post_to_group` or `message_bot` may not go (#557).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PostRefused {
    /// A Bot never posts into the room it is speaking in: its reply is the
    /// line.
    OwnRoom,
    /// The Bot-to-Bot chain reached `MAX_HOPS`.
    Hops,
}

impl PostRefused {
    pub fn sentence(self) -> &'static str {
        match self {
            PostRefused::OwnRoom => {
                "You are speaking in this group now: your reply is your line there, so do not post_to_group into it."
            }
            PostRefused::Hops => {
                "This Bot-to-Bot chain is long enough; stop here and report to the person."
            }
        }
    }
}

/// The #557 guards on a Bot's post: not into the room it speaks in, and not
/// past `MAX_HOPS`.
pub fn may_post(
    speaking_in: Option<&str>,
    target_room: Option<&str>,
    hop: u32,
) -> Result<(), PostRefused> {
    if speaking_in.is_some() && speaking_in == target_room {
        return Err(PostRefused::OwnRoom);
    }
    if hop >= MAX_HOPS {
        return Err(PostRefused::Hops);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    pub fn setup(n: usize) -> Setup {
        let names = ["Ada", "Bo", "Cy", "Di", "Ed", "Flo"];
        Setup {
            order: (0..n)
                .map(|i| Named::new(&format!("bot-{}", (b'a' + i as u8) as char), names[i]))
                .collect(),
            admin: Some("bot-b".into()),
        }
    }

    fn person(text: &str) -> Opener<'_> {
        Opener::Person {
            text,
            owner_line: true,
        }
    }

    /// Runs the round, answering with `reply(bot_id)`; returns the turns.
    fn run(round: &mut Round, reply: impl Fn(&str, bool) -> String) -> Vec<String> {
        let mut seen = Vec::new();
        while let Some(call) = round.next_turn() {
            let text = reply(&call.bot_id, call.forced);
            round.record(&call.bot_id, Reply::Line(&text));
            seen.push(call.bot_id);
        }
        seen
    }

    #[test]
    fn the_admin_speaks_first_then_the_room_order_and_a_routed_round_ends_after_the_first_answer() {
        let mut round = Round::open(setup(3), person("what do we build?"), 0);
        assert!(round.routed);
        let seen = run(&mut round, |id, _| {
            if id == "bot-b" {
                "[PASS]".into()
            } else {
                "we build X".into()
            }
        });
        assert_eq!(seen, vec!["bot-b", "bot-a"]);
        let skipped: Vec<_> = round
            .slots
            .iter()
            .filter(|s| s.outcome == Some(SlotOutcome::Skipped))
            .map(|s| s.bot_id.as_str())
            .collect();
        assert_eq!(skipped, vec!["bot-c"]);
    }

    #[test]
    fn at_all_and_a_line_to_everyone_are_not_cut() {
        for text in ["@all status?", "everyone, introduce yourselves"] {
            let mut round = Round::open(setup(3), person(text), 0);
            assert!(round.broadcast);
            assert_eq!(
                run(&mut round, |_, _| "here".into()),
                vec!["bot-b", "bot-a", "bot-c"]
            );
        }
    }

    #[test]
    fn at_name_calls_only_the_named_in_speaking_order() {
        let mut round = Round::open(setup(3), person("@Cy and @Ada please"), 0);
        assert_eq!(run(&mut round, |_, _| "ok".into()), vec!["bot-a", "bot-c"]);
        assert!(round.slots.iter().all(|s| s.addressed));
    }

    #[test]
    fn fallback_due_forces_one_answer_when_everyone_passed_on_the_owners_line() {
        let mut round = Round::open(setup(3), person("hmm"), 0);
        let seen = run(&mut round, |_, forced| {
            if forced {
                "fine, here".into()
            } else {
                "[PASS]".into()
            }
        });
        assert_eq!(seen, vec!["bot-b", "bot-a", "bot-c", "bot-b"]);
        // A friend's attested line gets no fallback: their home answers it.
        let mut friend = Round::open(
            setup(3),
            Opener::Person {
                text: "hmm",
                owner_line: false,
            },
            0,
        );
        assert_eq!(run(&mut friend, |_, _| "[PASS]".into()).len(), 3);
    }

    #[test]
    fn room_turns_each_caps_calls_inside_the_round_557() {
        // Ada and Cy keep calling each other: each gets ROOM_TURNS_EACH.
        let mut round = Round::open(setup(3), person("@Ada start"), 0);
        let seen = run(&mut round, |id, _| match id {
            "bot-a" => "@Cy your turn".into(),
            _ => "@Ada back to you".into(),
        });
        assert_eq!(
            seen.iter().filter(|b| *b == "bot-a").count() as u32,
            ROOM_TURNS_EACH
        );
        assert_eq!(
            seen.iter().filter(|b| *b == "bot-c").count() as u32,
            ROOM_TURNS_EACH
        );
        assert!(round.dropped.iter().any(|(_, d)| *d == Dropped::Cap));
    }

    #[test]
    fn a_members_at_admin_is_never_dropped_by_the_cap_804() {
        // The admin (Bo) hands out parts; each member reports back with @Bo.
        let n = std::cell::Cell::new(0);
        let mut round = Round::open(setup(3), person("@Bo lead this"), 0);
        let seen = run(&mut round, |id, _| {
            if id == "bot-b" {
                n.set(n.get() + 1);
                if n.get() % 2 == 1 {
                    "@Ada your part".into()
                } else {
                    "@Cy your part".into()
                }
            } else {
                "@Bo done".into()
            }
        });
        let admin = seen.iter().filter(|b| *b == "bot-b").count() as u32;
        assert!(admin > ROOM_ADMIN_TURNS_EACH, "{seen:?}");
        assert_eq!(
            seen.iter().filter(|b| *b == "bot-a").count() as u32,
            ROOM_TURNS_EACH
        );
        assert!(
            round
                .dropped
                .iter()
                .any(|(id, d)| id == "bot-a" && *d == Dropped::Cap)
        );
    }

    #[test]
    fn the_admins_own_turns_are_capped_when_no_member_names_it_557() {
        // Bo is named by the person's line only: a member call of someone
        // else never raises Bo past its cap.
        let mut round = Round::open(setup(3), person("@Ada @Cy go"), 0);
        let seen = run(&mut round, |id, _| {
            if id == "bot-a" {
                "@Cy go on".into()
            } else {
                "@Ada go on".into()
            }
        });
        assert!(seen.iter().filter(|b| *b == "bot-b").count() == 0);
        assert!(seen.len() as u32 <= 2 * ROOM_TURNS_EACH);
    }

    #[test]
    fn a_bots_post_calls_the_members_it_names_inside_the_running_round_932() {
        let mut round = Round::open(setup(3), person("@Ada do it"), 0);
        let first = round.next_turn().unwrap();
        assert_eq!(first.bot_id, "bot-a");
        round.call_from_post("bot-a", "@Cy please check this, @Ada is me");
        round.record("bot-a", Reply::Line("[PASS]"));
        let next = round.next_turn().unwrap();
        assert_eq!(
            (next.bot_id.as_str(), next.by.as_deref()),
            ("bot-c", Some("bot-a"))
        );
        round.record("bot-c", Reply::Line("checked"));
        assert!(round.next_turn().is_none());
    }

    #[test]
    fn a_late_line_past_room_late_rounds_is_quiet_but_a_name_still_calls_932() {
        let quiet = Round::open(
            setup(3),
            Opener::Bot {
                from: "bot-a",
                text: "done here",
            },
            ROOM_LATE_ROUNDS,
        );
        assert!(quiet.queued().is_empty());
        let named = Round::open(
            setup(3),
            Opener::Bot {
                from: "bot-a",
                text: "@Cy over to you",
            },
            ROOM_LATE_ROUNDS,
        );
        assert_eq!(named.queued(), vec!["bot-c"]);
        let early = Round::open(
            setup(3),
            Opener::Bot {
                from: "bot-a",
                text: "done",
            },
            2,
        );
        assert_eq!(early.queued(), vec!["bot-b", "bot-c"]);
        assert!(Round::open(setup(3), Opener::Event, 0).queued().is_empty());
        assert_eq!(
            next_late_rounds(
                9,
                &Opener::Bot {
                    from: "x",
                    text: ""
                }
            ),
            10
        );
        assert_eq!(next_late_rounds(9, &person("hi")), 0);
    }

    #[test]
    fn a_bot_never_posts_into_the_room_it_speaks_in_and_max_hops_ends_a_chain_557() {
        assert_eq!(
            may_post(Some("room-1"), Some("room-1"), 0),
            Err(PostRefused::OwnRoom)
        );
        assert_eq!(may_post(Some("room-1"), Some("room-2"), 0), Ok(()));
        assert_eq!(may_post(None, None, MAX_HOPS), Err(PostRefused::Hops));
        assert_eq!(may_post(None, None, MAX_HOPS - 1), Ok(()));
    }

    #[test]
    fn model_calls_per_line_in_a_six_bot_room_routed_is_one_all_is_six() {
        let mut routed = Round::open(setup(6), person("who can fix the build?"), 0);
        let calls = run(&mut routed, |_, _| "me".into()).len();
        assert_eq!(calls, 1);
        let mut all = Round::open(setup(6), person("@all status"), 0);
        assert_eq!(run(&mut all, |_, _| "ok".into()).len(), 6);
    }
}
