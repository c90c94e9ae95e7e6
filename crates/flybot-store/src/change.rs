//! One change to the team, as `Store::mutate` hands it to a caller: read the
//! team, then write records. Each write is applied at once (so the caller reads
//! its own writes) and recorded as a journal operation with its undo, so a
//! refusal part-way through rolls the team back to the byte.

use crate::apply::{Given, Undo, apply_keeping};
use flybot_protocol::approval::Approval;
use flybot_protocol::group_question::GroupQuestion;
use flybot_protocol::journal::Op;
use flybot_protocol::project_memory::ProjectMemory;
use flybot_protocol::state::{AuthSession, Bot, Grant, Invitation, Member, Room, Task, TeamState};
use serde::Serialize;
use serde_json::Value;
use serde_json::value::RawValue;

/// An operation as a change writes it: its new value is the record's JSON
/// text, serialised once, straight from the typed record.
pub(crate) type Written = Op<Box<RawValue>>;

pub struct Change<'a> {
    state: &'a mut TeamState,
    now_ms: u64,
    ops: Vec<Written>,
    undo: Vec<Undo>,
}

impl<'a> Change<'a> {
    pub(crate) fn new(state: &'a mut TeamState, now_ms: u64) -> Self {
        Change {
            state,
            now_ms,
            ops: Vec::new(),
            undo: Vec::new(),
        }
    }

    /// The team as it stands, this change's own writes included.
    pub fn state(&self) -> &TeamState {
        self.state
    }

    /// This change's time in milliseconds since the Unix epoch; strictly
    /// greater than the time of every earlier change of this store.
    pub fn now_ms(&self) -> u64 {
        self.now_ms
    }

    pub fn is_empty(&self) -> bool {
        self.ops.is_empty()
    }

    /// The operations written, and what undoes each of them.
    pub(crate) fn into_parts(self) -> (Vec<Written>, Vec<Undo>) {
        (self.ops, self.undo)
    }

    /// Puts the team back as it was before this change.
    pub(crate) fn roll_back(mut self) {
        while let Some(undo) = self.undo.pop() {
            undo.restore(self.state);
        }
    }

    pub(crate) fn set(&mut self, key: Vec<String>, value: &impl Serialize) {
        // Records are plain data; serialising them cannot fail.
        let Ok(next) = serde_json::value::to_raw_value(value) else {
            return;
        };
        self.write(Op::Set { key, next });
    }

    /// Sets the record at `key`, moving a copy of `value` into the team as
    /// it is: only the journal's JSON is written, none is read back.
    fn set_record<T>(&mut self, key: Vec<String>, value: &T)
    where
        T: Serialize + Clone + Send + 'static + PartialEq + serde::de::DeserializeOwned,
    {
        let Ok(next) = serde_json::value::to_raw_value(value) else {
            return;
        };
        // What the team holds must be what a replay of the line reads.
        debug_assert!(
            serde_json::from_str::<T>(next.get()).is_ok_and(|read| read == *value),
            "a record must read back from its JSON as it was written"
        );
        let op = Op::Set {
            key,
            next: Given::new(&next, value.clone()),
        };
        let applied = apply_keeping(self.state, &op);
        let Op::Set { key, next: given } = op else {
            return;
        };
        drop(given);
        let Ok(undo) = applied else { return };
        self.undo.push(undo);
        self.ops.push(Op::Set { key, next });
    }

    /// Deletes the value at `key`; deleting what is not there writes nothing.
    pub(crate) fn delete(&mut self, key: Vec<String>) {
        self.write(Op::Delete { key });
    }

    fn write(&mut self, op: Written) {
        let Ok(undo) = apply_keeping(self.state, &op) else {
            return;
        };
        if matches!(op, Op::Delete { .. }) && !undo.replaced_something() {
            return;
        }
        self.undo.push(undo);
        self.ops.push(op);
    }

    pub fn put_member(&mut self, member: &Member) {
        self.set(key2("members", &member.id), member);
    }
    pub fn remove_member(&mut self, id: &str) {
        self.delete(key2("members", id));
    }
    pub fn put_bot(&mut self, bot: &Bot) {
        self.set(key2("bots", &bot.id), bot);
    }
    pub fn remove_bot(&mut self, id: &str) {
        self.delete(key2("bots", id));
    }
    pub fn put_room(&mut self, room: &Room) {
        self.set(key2("rooms", &room.id), room);
    }
    pub fn remove_room(&mut self, id: &str) {
        self.delete(key2("rooms", id));
    }
    pub fn put_task(&mut self, task: &Task) {
        self.set_record(key2("tasks", &task.id), task);
    }
    pub fn remove_task(&mut self, id: &str) {
        self.delete(key2("tasks", id));
    }
    /// Replaces a Bot's grants; an empty list removes the entry (default deny).
    pub fn set_grants(&mut self, bot_id: &str, grants: &[Grant]) {
        if grants.is_empty() {
            self.delete(key2("grants", bot_id));
        } else {
            self.set(key2("grants", bot_id), &grants);
        }
    }
    pub fn put_invitation(&mut self, invitation: &Invitation) {
        self.set(key2("invitations", &invitation.id), invitation);
    }
    pub fn put_auth_session(&mut self, session: &AuthSession) {
        self.set(key2("authSessions", &session.id), session);
    }
    pub fn remove_auth_session(&mut self, id: &str) {
        self.delete(key2("authSessions", id));
    }
    pub fn put_retired_session(&mut self, session_id: &str, bot_id: &str) {
        self.set(key2("retiredSessions", session_id), &bot_id);
    }
    pub fn set_main_bot_ids(&mut self, ids: &[String]) {
        self.set(vec!["mainBotIds".to_owned()], &ids);
    }
    pub fn set_designated_chief_id(&mut self, id: Option<&str>) {
        self.set(vec!["designatedChiefId".to_owned()], &id);
    }
    /// Sets one preference; `None` removes it.
    pub fn set_pref(&mut self, key: &str, value: Option<&Value>) {
        match value {
            Some(value) => self.set(key2("prefs", key), value),
            None => self.delete(key2("prefs", key)),
        }
    }
    /// Writes a Project record (#1691); a Bot's and a room's binding live
    /// on the Bot and the room (`projectId`), a run's in `projectRuns`.
    pub fn put_project(&mut self, id: &str, project: &Value) {
        self.set(key2("projects", id), project);
    }
    pub fn remove_project(&mut self, id: &str) {
        self.delete(key2("projects", id));
    }
    /// Binds the workflow run `run_id` (its job card) to a Project, or
    /// unbinds it with `None`.
    pub fn set_project_run(&mut self, run_id: &str, project: Option<&str>) {
        match project {
            Some(project) => self.set(key2("projectRuns", run_id), &project),
            None => self.delete(key2("projectRuns", run_id)),
        }
    }
    /// The question waiting in a room's dock (#550).
    pub fn put_question(&mut self, room_id: &str, question: &GroupQuestion) {
        self.set(key2("questions", room_id), question);
    }
    pub fn remove_question(&mut self, room_id: &str) {
        self.delete(key2("questions", room_id));
    }
    /// A Project's memory (#1712).
    pub fn put_project_memory(&mut self, project_id: &str, memory: &ProjectMemory) {
        self.set(key2("projectMemory", project_id), memory);
    }
    pub fn remove_project_memory(&mut self, project_id: &str) {
        self.delete(key2("projectMemory", project_id));
    }
    /// The journaled mark of a memory scope (`flybot-store::memory`).
    pub fn memory_mark(&self, scope_key: &str) -> Option<Value> {
        self.state
            .flybot
            .extra
            .get(&memory_name(scope_key))
            .cloned()
    }
    pub fn put_memory_mark(&mut self, scope_key: &str, mark: &Value) {
        self.set(memory_key(scope_key), mark);
    }
    /// Writes an approval record: a tool approval, a held send, or a JSON
    /// value, read the way the store reads a stored record.
    pub fn put_approval<A>(&mut self, id: &str, approval: &A)
    where
        A: ?Sized,
        for<'r> &'r A: Into<Approval>,
    {
        let approval: Approval = approval.into();
        self.set(
            vec!["flybot".into(), "approvals".into(), id.into()],
            &approval,
        );
    }
    /// Removes an approval record (#754: a decided one past the kept).
    pub fn remove_approval(&mut self, id: &str) {
        self.delete(vec!["flybot".into(), "approvals".into(), id.into()]);
    }
}

/// A memory scope's mark lives at `flybot.memory:<scope>`.
fn memory_key(scope_key: &str) -> Vec<String> {
    vec!["flybot".to_owned(), memory_name(scope_key)]
}

fn memory_name(scope_key: &str) -> String {
    format!("memory:{scope_key}")
}

fn key2(collection: &str, id: &str) -> Vec<String> {
    vec![collection.to_owned(), id.to_owned()]
}
