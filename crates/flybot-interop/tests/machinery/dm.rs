//! The contract's DM experiment: a synthetic cross-home transport for the
//! offline harness, test support that only `dm_experiment` uses. Each home
//! has its own owner and its own execution journal; Bots are enrolled
//! pairwise, and an enrollment of two Bots of the same owner is refused (Bot
//! Social's "cannot befriend your own bot"). Every direction needs its own
//! explicit per-Bot grant, given by that Bot's owner; a common operator or
//! equal names merge nothing. A direct message is delivered only through the
//! transport's authenticated context into the recipient home's
//! `Journal::receive`; a room-scoped event is refused, never treated as a DM
//! task. The phase-1 room pilot does not use this path.

use flybot_interop::envelope::Refusal;
use flybot_interop::journal::{IngressRecord, Journal, TransportContext};
use std::collections::{BTreeMap, BTreeSet};

/// Why the transport did not deliver.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DmRefusal {
    #[error("cannot befriend your own bot: both Bots belong to {owner}")]
    SameOwner { owner: String },
    #[error("no home knows the Bot {0}")]
    UnknownBot(String),
    #[error("{0} is not that Bot's owner")]
    NotOwner(String),
    #[error("the two Bots are not enrolled with each other")]
    NotEnrolled,
    #[error("{from} has no grant to exchange with {to}")]
    NoGrant { from: String, to: String },
    #[error("a room-scoped event is not a direct message")]
    RoomScoped,
    #[error("the recipient's journal failed: {0}")]
    Journal(String),
    #[error("the envelope was refused at ingress: {0:?}")]
    Envelope(Refusal),
}

/// One home: its owner and its journal (one writer).
pub struct DmHome {
    pub owner: String,
    pub journal: Journal,
}

/// The synthetic transport between homes.
pub struct SyntheticTransport {
    server: String,
    homes: BTreeMap<String, DmHome>,
    /// Bot → its home.
    bots: BTreeMap<String, String>,
    /// Enrolled pairs, smaller id first.
    enrolled: BTreeSet<(String, String)>,
    /// (bot, peer): `bot` may exchange with `peer`, granted by its owner.
    grants: BTreeSet<(String, String)>,
}

fn pair(a: &str, b: &str) -> (String, String) {
    if a <= b {
        (a.to_owned(), b.to_owned())
    } else {
        (b.to_owned(), a.to_owned())
    }
}

impl SyntheticTransport {
    pub fn new(server: &str) -> SyntheticTransport {
        SyntheticTransport {
            server: server.to_owned(),
            homes: BTreeMap::new(),
            bots: BTreeMap::new(),
            enrolled: BTreeSet::new(),
            grants: BTreeSet::new(),
        }
    }

    pub fn add_home(&mut self, home_id: &str, home: DmHome) {
        self.homes.insert(home_id.to_owned(), home);
    }

    pub fn add_bot(&mut self, home_id: &str, bot_id: &str) {
        self.bots.insert(bot_id.to_owned(), home_id.to_owned());
    }

    pub fn home(&self, home_id: &str) -> Option<&DmHome> {
        self.homes.get(home_id)
    }

    /// A home's own side (its host binds tasks in its journal).
    pub fn home_mut(&mut self, home_id: &str) -> Option<&mut DmHome> {
        self.homes.get_mut(home_id)
    }

    fn owner_of(&self, bot_id: &str) -> Result<&str, DmRefusal> {
        self.bots
            .get(bot_id)
            .and_then(|home| self.homes.get(home))
            .map(|home| home.owner.as_str())
            .ok_or_else(|| DmRefusal::UnknownBot(bot_id.to_owned()))
    }

    /// Enrolls two Bots with each other; same-owner pairs are refused.
    pub fn enroll(&mut self, a: &str, b: &str) -> Result<(), DmRefusal> {
        let (owner_a, owner_b) = (self.owner_of(a)?, self.owner_of(b)?);
        if owner_a == owner_b {
            return Err(DmRefusal::SameOwner {
                owner: owner_a.to_owned(),
            });
        }
        self.enrolled.insert(pair(a, b));
        Ok(())
    }

    /// `by` (the owner of `bot`) lets `bot` exchange with `peer`; an empty
    /// grant set is default deny.
    pub fn set_grant(&mut self, by: &str, bot: &str, peer: &str) -> Result<(), DmRefusal> {
        if self.owner_of(bot)? != by {
            return Err(DmRefusal::NotOwner(by.to_owned()));
        }
        self.owner_of(peer)?;
        self.grants.insert((bot.to_owned(), peer.to_owned()));
        Ok(())
    }

    /// Revokes a grant: no new message passes.
    pub fn revoke(&mut self, bot: &str, peer: &str) {
        self.grants.remove(&(bot.to_owned(), peer.to_owned()));
    }

    /// Delivers one direct message: enrollment, the sender's grant toward
    /// the recipient and the recipient's grant toward the sender, then the
    /// recipient home's ingress (journaled before its cursor moves).
    pub fn send(
        &mut self,
        from: &str,
        to: &str,
        conversation_id: &str,
        bytes: &[u8],
        now_ms: u64,
    ) -> Result<IngressRecord, DmRefusal> {
        if conversation_id.starts_with("room:") {
            return Err(DmRefusal::RoomScoped);
        }
        self.owner_of(from)?;
        self.owner_of(to)?;
        if !self.enrolled.contains(&pair(from, to)) {
            return Err(DmRefusal::NotEnrolled);
        }
        for (bot, peer) in [(from, to), (to, from)] {
            if !self.grants.contains(&(bot.to_owned(), peer.to_owned())) {
                return Err(DmRefusal::NoGrant {
                    from: bot.to_owned(),
                    to: peer.to_owned(),
                });
            }
        }
        let context = TransportContext {
            server: self.server.clone(),
            sender_bot: from.to_owned(),
            recipient_bot: to.to_owned(),
            conversation_id: Some(conversation_id.to_owned()),
        };
        let home_id = self
            .bots
            .get(to)
            .cloned()
            .ok_or_else(|| DmRefusal::UnknownBot(to.to_owned()))?;
        let home = self
            .homes
            .get_mut(&home_id)
            .ok_or_else(|| DmRefusal::UnknownBot(to.to_owned()))?;
        let cursor = home.journal.inbox_cursor() + 1;
        match home.journal.receive(&context, bytes, cursor, now_ms) {
            Ok(Ok(record)) => Ok(record),
            Ok(Err(refusal)) => Err(DmRefusal::Envelope(refusal)),
            Err(e) => Err(DmRefusal::Journal(e.to_string())),
        }
    }
}
