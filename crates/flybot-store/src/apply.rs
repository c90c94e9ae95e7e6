//! Applies one journal operation to the typed team. The same function runs
//! when a change is made, when the journal is replayed at start and when
//! `flybot replay` rebuilds a team, so the three cannot disagree. Where a
//! key lives in the team is written once, in `visit`.

use flybot_protocol::journal::Op;
use flybot_protocol::state::TeamState;
use serde::de::DeserializeOwned;
use serde_json::Value;
use serde_json::value::RawValue;
use std::any::Any;
use std::cell::Cell;
use std::collections::BTreeMap;

/// Why an operation could not be applied.
#[derive(Debug, thiserror::Error)]
#[error("operation on {key}: {reason}")]
pub struct ApplyError {
    pub key: String,
    pub reason: String,
}

fn fail(key: &[String], reason: impl Into<String>) -> ApplyError {
    ApplyError {
        key: key.join("."),
        reason: reason.into(),
    }
}

/// Applies `op` to `state`.
pub fn apply_op(state: &mut TeamState, op: &Op) -> Result<(), ApplyError> {
    apply_keeping(state, op).map(drop)
}

/// What puts one key back as it was before an operation: the typed value
/// the operation replaced (kept as it was, never serialised), or its absence.
pub(crate) struct Undo {
    key: Vec<String>,
    prev: Option<Box<dyn Any + Send>>,
}

impl Undo {
    /// Whether the operation replaced or removed a value.
    pub(crate) fn replaced_something(&self) -> bool {
        self.prev.is_some()
    }

    /// Puts the key back. The key was applied once, so it resolves again.
    pub(crate) fn restore(self, state: &mut TeamState) {
        let _ = visit(state, &self.key, Restore(self.prev));
    }
}

/// An operation's new value, in either form a `ChangeLine` holds it.
pub(crate) trait NewValue {
    fn read<T: DeserializeOwned + 'static>(&self) -> serde_json::Result<T>;
}

impl NewValue for Value {
    fn read<T: DeserializeOwned + 'static>(&self) -> serde_json::Result<T> {
        T::deserialize(self)
    }
}

impl NewValue for Box<RawValue> {
    fn read<T: DeserializeOwned + 'static>(&self) -> serde_json::Result<T> {
        serde_json::from_str(self.get())
    }
}

/// A new value a change hands over typed, beside the JSON it wrote for the
/// journal: the record moves into the team as it is instead of being read
/// back from that JSON (issue 38: a change costs its record, not a round
/// trip). A key whose record is of another type reads the JSON.
pub(crate) struct Given<'a> {
    json: &'a RawValue,
    typed: Cell<Option<Box<dyn Any + Send>>>,
}

impl<'a> Given<'a> {
    pub(crate) fn new<T: Send + 'static>(json: &'a RawValue, typed: T) -> Self {
        Given {
            json,
            typed: Cell::new(Some(Box::new(typed))),
        }
    }
}

impl NewValue for Given<'_> {
    fn read<T: DeserializeOwned + 'static>(&self) -> serde_json::Result<T> {
        if let Some(typed) = self.typed.take()
            && let Ok(typed) = typed.downcast::<T>()
        {
            return Ok(*typed);
        }
        serde_json::from_str(self.json.get())
    }
}

/// Applies `op` to `state` and keeps what undoes it.
pub(crate) fn apply_keeping<V: NewValue>(
    state: &mut TeamState,
    op: &Op<V>,
) -> Result<Undo, ApplyError> {
    let (key, next) = match op {
        Op::Set { key, next } => (key.as_slice(), Some(next)),
        Op::Delete { key } => (key.as_slice(), None),
    };
    let prev = visit(state, key, Apply { key, next })??;
    Ok(Undo {
        key: key.to_vec(),
        prev,
    })
}

/// A value the team holds under a key.
trait Kept: DeserializeOwned + Send + 'static {}
impl<T: DeserializeOwned + Send + 'static> Kept for T {}

/// What is done at a key once `visit` has found where it lives.
trait AtKey {
    type Out;
    /// The key names one record of `map`.
    fn record<T: Kept>(self, map: &mut BTreeMap<String, T>, id: &str) -> Self::Out;
    /// The key names a field replaced whole.
    fn whole<T: Kept + Default>(self, slot: &mut T) -> Self::Out;
}

/// Finds where `key` lives in the team and does `at` there.
fn visit<A: AtKey>(state: &mut TeamState, key: &[String], at: A) -> Result<A::Out, ApplyError> {
    let Some((head, rest)) = key.split_first() else {
        return Err(fail(key, "an empty key"));
    };
    let one = |rest| one_id(key, rest);
    Ok(match head.as_str() {
        "members" => at.record(&mut state.members, one(rest)?),
        "bots" => at.record(&mut state.bots, one(rest)?),
        "rooms" => at.record(&mut state.rooms, one(rest)?),
        "tasks" => at.record(&mut state.tasks, one(rest)?),
        "grants" => at.record(&mut state.grants, one(rest)?),
        "projects" => at.record(&mut state.projects, one(rest)?),
        "invitations" => at.record(&mut state.invitations, one(rest)?),
        "authSessions" => at.record(&mut state.auth_sessions, one(rest)?),
        "retiredSessions" => at.record(&mut state.retired_sessions, one(rest)?),
        "projectRuns" => at.record(&mut state.project_runs, one(rest)?),
        "prefs" => at.record(&mut state.prefs, one(rest)?),
        "schedules" => at.record(&mut state.schedules, one(rest)?),
        "scheduleRuns" => at.record(&mut state.schedule_runs, one(rest)?),
        "questions" => at.record(&mut state.questions, one(rest)?),
        "projectMemory" => at.record(&mut state.project_memory, one(rest)?),
        "attachments" => at.record(&mut state.attachments, one(rest)?),
        "social" => social(state, key, rest, at)?,
        "flybot" => match rest.split_first() {
            Some((section, id)) if section == "approvals" => {
                at.record(&mut state.flybot.approvals, one(id)?)
            }
            _ => at.record(&mut state.flybot.extra, one(rest)?),
        },
        "designatedChiefId" | "mainBotIds" if !rest.is_empty() => {
            return Err(fail(key, "this field is replaced whole"));
        }
        "designatedChiefId" => at.whole(&mut state.designated_chief_id),
        "mainBotIds" => at.whole(&mut state.main_bot_ids),
        "version" | "journalSeq" | "journalDigest" => {
            return Err(fail(key, "the store's own bookkeeping is not an operation"));
        }
        _ => at.record(&mut state.extra, head),
    })
}

/// Where a `social` key lives (issue 33): the account and the sync token
/// are replaced whole, the rest are records.
fn social<A: AtKey>(
    state: &mut TeamState,
    key: &[String],
    rest: &[String],
    at: A,
) -> Result<A::Out, ApplyError> {
    let social = &mut state.social;
    Ok(match rest {
        [field] if field == "account" => at.whole(&mut social.account),
        [field] if field == "since" => at.whole(&mut social.since),
        [field, id] => match field.as_str() {
            "applied" => at.record(&mut social.applied, id),
            "outbox" => at.record(&mut social.outbox, id),
            "inbox" => at.record(&mut social.inbox, id),
            "friends" => at.record(&mut social.friends, id),
            "rooms" => at.record(&mut social.rooms, id),
            "contacts" => at.record(&mut social.contacts, id),
            "replies" => at.record(&mut social.replies, id),
            "policies" => at.record(&mut social.policies, id),
            "held" => at.record(&mut social.held, id),
            "invites" => at.record(&mut social.invites, id),
            "roomClaims" => at.record(&mut social.room_claims, id),
            _ => return Err(fail(key, "no such social collection")),
        },
        _ => return Err(fail(key, "a social key names a field or a record")),
    })
}

/// The id of a record key `[collection, id]`, given what follows the collection.
fn one_id<'k>(key: &[String], rest: &'k [String]) -> Result<&'k str, ApplyError> {
    match rest {
        [id] => Ok(id),
        _ => Err(fail(key, "a record key names its collection and one id")),
    }
}

/// Sets (or deletes, with no `next`) the value at a key; answers the
/// value it replaced.
struct Apply<'a, V> {
    key: &'a [String],
    next: Option<&'a V>,
}

type Replaced = Result<Option<Box<dyn Any + Send>>, ApplyError>;

impl<V: NewValue> AtKey for Apply<'_, V> {
    type Out = Replaced;

    fn record<T: Kept>(self, map: &mut BTreeMap<String, T>, id: &str) -> Replaced {
        let prev = match self.next {
            Some(value) => map.insert(id.to_owned(), self.read(value)?),
            None => map.remove(id),
        };
        Ok(prev.map(|p| Box::new(p) as Box<dyn Any + Send>))
    }

    fn whole<T: Kept + Default>(self, slot: &mut T) -> Replaced {
        let next = match self.next {
            Some(value) => self.read(value)?,
            None => T::default(),
        };
        Ok(Some(Box::new(std::mem::replace(slot, next))))
    }
}

impl<V: NewValue> Apply<'_, V> {
    fn read<T: Kept>(&self, value: &V) -> Result<T, ApplyError> {
        value.read().map_err(|e| fail(self.key, e.to_string()))
    }
}

/// Puts back the value an `Apply` replaced.
struct Restore(Option<Box<dyn Any + Send>>);

impl AtKey for Restore {
    type Out = ();

    fn record<T: Kept>(self, map: &mut BTreeMap<String, T>, id: &str) {
        match self.0.map(|prev| prev.downcast::<T>()) {
            Some(Ok(prev)) => {
                map.insert(id.to_owned(), *prev);
            }
            Some(Err(_)) => {}
            None => {
                map.remove(id);
            }
        }
    }

    fn whole<T: Kept + Default>(self, slot: &mut T) {
        if let Some(Ok(prev)) = self.0.map(|prev| prev.downcast::<T>()) {
            *slot = *prev;
        }
    }
}
