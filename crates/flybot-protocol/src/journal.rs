//! The lines of `journal.jsonl`, the home's write-ahead log (#511).
//!
//! A change line carries its sequence number, `prev` (the hex SHA-256 of the
//! raw bytes of the line before it, or the base line's `digest`), and the
//! operations. A base line opens the file: with `state` it holds the whole team
//! at `seq` (kept history, replayable); without it, it only anchors the chain
//! to the snapshot in `state.json`.

use serde::{Deserialize, Serialize};
use serde_json::Value;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum JournalLine {
    Base(BaseLine),
    Change(ChangeLine),
}

impl JournalLine {
    pub fn seq(&self) -> u64 {
        match self {
            JournalLine::Base(b) => b.seq,
            JournalLine::Change(c) => c.seq,
        }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct BaseLine {
    pub seq: u64,
    /// Milliseconds since the Unix epoch when the base was written.
    pub t: u64,
    /// Always `"base"`.
    pub op: BaseOp,
    /// The chain value a following line's `prev` must equal.
    pub digest: String,
    /// The whole team at `seq`, when the journal keeps history.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<Value>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum BaseOp {
    Base,
}

/// One change as the journal keeps it. `V` is how an operation's new value
/// is held: a parsed `Value` when read back, the record's own JSON text
/// when the store writes it (the same bytes, without building a `Value`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ChangeLine<V = Value> {
    pub seq: u64,
    pub t: u64,
    pub prev: String,
    /// The member id behind the change, or `host` for the host's own writes.
    pub actor: String,
    pub ops: Vec<Op<V>>,
}

/// One operation on the team. Keys are paths of at most three segments,
/// for example `["bots", "bot-1a2b"]` or `["designatedChiefId"]`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "lowercase", deny_unknown_fields)]
pub enum Op<V = Value> {
    Set { key: Vec<String>, next: V },
    Delete { key: Vec<String> },
}
