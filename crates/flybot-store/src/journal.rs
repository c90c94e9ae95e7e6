//! Reading `journal.jsonl`: the chain of digests that ties each line to the
//! one before it, and the one parser the start-up load, the writer's trim and
//! `flybot replay` share, so they agree on what a valid journal is (#511).

use crate::apply::apply_op;
use crate::replay::ReplayError;
use flybot_protocol::journal::{BaseLine, BaseOp, ChangeLine, JournalLine};
use flybot_protocol::state::TeamState;
use serde::Deserialize;
use serde_json::Value;
use sha2::{Digest, Sha256};

/// Hex SHA-256: the chain value of a line is this of its raw bytes.
pub(crate) fn sha256_hex(bytes: &[u8]) -> String {
    crate::hex(&Sha256::digest(bytes))
}

/// The chain value of a home that starts without a journal: the digest of
/// its snapshot's pretty bytes with `journalDigest` left out (a fixed rule,
/// so the same snapshot always anchors the same chain).
pub(crate) fn snapshot_anchor(team: &TeamState) -> String {
    let mut bare = team.clone();
    bare.journal_digest = None;
    match serde_json::to_vec_pretty(&bare) {
        Ok(bytes) => sha256_hex(&bytes),
        // Plain data always serialises; an anchor of nothing still chains.
        Err(_) => sha256_hex(b""),
    }
}

/// A base line's bytes with its newline.
pub(crate) fn base_line_bytes(
    seq: u64,
    t: u64,
    digest: &str,
    state: Option<&TeamState>,
) -> serde_json::Result<Vec<u8>> {
    let state = state.map(serde_json::to_value).transpose()?;
    let line = JournalLine::Base(BaseLine {
        seq,
        t,
        op: BaseOp::Base,
        digest: digest.to_owned(),
        state,
    });
    let mut bytes = serde_json::to_vec(&line)?;
    bytes.push(b'\n');
    Ok(bytes)
}

/// One change line as read back, with what the chain needs.
pub(crate) struct ParsedChange {
    pub line: ChangeLine,
    /// The chain value of this line (hex SHA-256 of its raw bytes).
    pub chain: String,
    pub line_no: usize,
    /// Where the line starts and ends (newline excluded) in the file.
    pub start: usize,
    pub end: usize,
}

pub(crate) struct ParsedJournal {
    pub base: BaseLine,
    pub base_len: usize,
    pub changes: Vec<ParsedChange>,
    /// Bytes of whole, valid lines; a torn tail starts here.
    pub valid_len: u64,
    /// Why the last line was discarded, when it was.
    pub torn: Option<String>,
}

impl ParsedJournal {
    pub(crate) fn last_seq(&self) -> u64 {
        self.changes.last().map_or(self.base.seq, |c| c.line.seq)
    }

    /// The chain value at `seq`, when the file holds it.
    pub(crate) fn chain_at(&self, seq: u64) -> Option<&str> {
        if seq == self.base.seq {
            return Some(&self.base.digest);
        }
        let index = seq.checked_sub(self.base.seq + 1)?;
        self.changes
            .get(usize::try_from(index).ok()?)
            .map(|c| c.chain.as_str())
    }
}

/// What to do with a last line that was cut short by a crash.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Tail {
    /// Replay refuses it.
    Strict,
    /// Start-up discards it: the change it held was never acknowledged.
    Lenient,
}

pub(crate) fn parse_journal(text: &[u8], tail: Tail) -> Result<ParsedJournal, ReplayError> {
    let mut lines: Vec<(usize, usize)> = Vec::new();
    let mut start = 0;
    for (i, byte) in text.iter().enumerate() {
        if *byte == b'\n' {
            lines.push((start, i));
            start = i + 1;
        }
    }
    let mut torn = None;
    if start < text.len() {
        let line = lines.len() + 1;
        match tail {
            Tail::Strict => return Err(ReplayError::Incomplete { line }),
            Tail::Lenient => torn = Some(format!("line {line} has no newline")),
        }
    }
    // A crash mid-write can also leave a whole line of garbage at the end.
    if tail == Tail::Lenient
        && torn.is_none()
        && lines.len() > 1
        && let Some(&(s, e)) = lines.last()
        && serde_json::from_slice::<Value>(&text[s..e]).is_err()
    {
        torn = Some(format!("line {} is not JSON", lines.len()));
        lines.pop();
    }
    let Some(&(base_start, base_end)) = lines.first() else {
        return Err(ReplayError::NotBase);
    };
    let JournalLine::Base(base) = classify(&text[base_start..base_end], 1)? else {
        return Err(ReplayError::NotBase);
    };
    let mut chain = base.digest.clone();
    let mut changes = Vec::with_capacity(lines.len());
    for (index, &(s, e)) in lines.iter().enumerate().skip(1) {
        let line_no = index + 1;
        let expected = base.seq + index as u64;
        let JournalLine::Change(change) = classify(&text[s..e], line_no)? else {
            return Err(ReplayError::Unreadable {
                line: line_no,
                why: "a base line may only open the file".to_owned(),
            });
        };
        if change.seq != expected {
            return Err(ReplayError::Gap {
                line: line_no,
                expected,
                found: change.seq,
            });
        }
        if change.prev != chain {
            return Err(ReplayError::PrevMismatch {
                line: line_no,
                seq: change.seq,
            });
        }
        chain = sha256_hex(&text[s..e]);
        changes.push(ParsedChange {
            line: change,
            chain: chain.clone(),
            line_no,
            start: s,
            end: e,
        });
    }
    let valid_len = lines.last().map_or(0, |&(_, e)| e + 1) as u64;
    Ok(ParsedJournal {
        base,
        base_len: base_end - base_start,
        changes,
        valid_len,
        torn,
    })
}

/// Parses one line, telling an unknown op apart from an unreadable line.
fn classify(raw: &[u8], line: usize) -> Result<JournalLine, ReplayError> {
    let unreadable = |why: String| ReplayError::Unreadable { line, why };
    let value: Value = serde_json::from_slice(raw).map_err(|e| unreadable(e.to_string()))?;
    if let Some(op) = value.get("op") {
        if op != "base" {
            return Err(ReplayError::UnknownOp {
                line,
                op: op.to_string(),
            });
        }
        let base = serde_json::from_value(value).map_err(|e| unreadable(e.to_string()))?;
        return Ok(JournalLine::Base(base));
    }
    if let Some(Value::Array(ops)) = value.get("ops") {
        for op in ops {
            match op.get("op").and_then(Value::as_str) {
                Some("set" | "delete") | None => {}
                Some(other) => {
                    return Err(ReplayError::UnknownOp {
                        line,
                        op: other.to_owned(),
                    });
                }
            }
        }
    }
    let change = serde_json::from_value(value).map_err(|e| unreadable(e.to_string()))?;
    Ok(JournalLine::Change(change))
}

/// Applies one read-back change, moving the team's seq and digest with it.
pub(crate) fn apply_change(team: &mut TeamState, change: &ParsedChange) -> Result<(), ReplayError> {
    for op in &change.line.ops {
        apply_op(team, op).map_err(|e| ReplayError::BadOp {
            line: change.line_no,
            why: e.to_string(),
        })?;
    }
    team.journal_seq = change.line.seq;
    team.journal_digest = Some(change.chain.clone());
    Ok(())
}

/// The team a base line carries, at the base's seq.
pub(crate) fn base_team(base: &BaseLine) -> Result<Option<TeamState>, ReplayError> {
    let Some(state) = &base.state else {
        return Ok(None);
    };
    let mut team = TeamState::deserialize(state).map_err(|e| ReplayError::Unreadable {
        line: 1,
        why: format!("its base state is not a team: {e}"),
    })?;
    team.journal_seq = base.seq;
    team.journal_digest = Some(base.digest.clone());
    Ok(Some(team))
}

/// Applies one change line read on its own (a standby following another
/// store's journal, issue 35): its seq must follow the team's and its prev
/// must be the team's digest, exactly as in a file.
pub(crate) fn follow_line(team: &mut TeamState, raw: &[u8]) -> Result<(), ReplayError> {
    let line_no = usize::try_from(team.journal_seq + 1).unwrap_or(usize::MAX);
    let JournalLine::Change(line) = classify(raw, line_no)? else {
        return Err(ReplayError::Unreadable {
            line: line_no,
            why: "a base line may only open the journal".to_owned(),
        });
    };
    if line.seq != team.journal_seq + 1 {
        return Err(ReplayError::Gap {
            line: line_no,
            expected: team.journal_seq + 1,
            found: line.seq,
        });
    }
    if Some(&line.prev) != team.journal_digest.as_ref() {
        return Err(ReplayError::PrevMismatch {
            line: line_no,
            seq: line.seq,
        });
    }
    let change = ParsedChange {
        chain: sha256_hex(raw),
        line,
        line_no,
        start: 0,
        end: raw.len(),
    };
    apply_change(team, &change)
}
