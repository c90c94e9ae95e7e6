//! `flybot replay` (#511): the team as it stood after a given change, rebuilt
//! from a journal that keeps history. Pure over the journal's text; a journal
//! that does not replay exactly is refused whole, never approximated.

use crate::journal::{Tail, apply_change, base_team, parse_journal};
use flybot_protocol::state::TeamState;
use std::path::{Path, PathBuf};

pub use crate::atomic::write_new_file;

/// Why a journal was refused. Each variant's text is one sentence.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    #[error("line {line} is not a readable journal line: {why}")]
    Unreadable { line: usize, why: String },
    #[error("line {line} is incomplete: no newline ends it")]
    Incomplete { line: usize },
    #[error("line {line} has the unknown op {op}")]
    UnknownOp { line: usize, op: String },
    #[error("line {line} has seq {found} where seq {expected} was due")]
    Gap {
        line: usize,
        expected: u64,
        found: u64,
    },
    #[error("the first line is not a base line")]
    NotBase,
    #[error("this journal keeps no history; set stateJournal: true")]
    NoHistory,
    #[error("line {line} (seq {seq}) has a prev that does not match the line before it")]
    PrevMismatch { line: usize, seq: u64 },
    #[error("seq {seq} is outside the journal, which holds seq {first} to {last}")]
    SeqOutside { seq: u64, first: u64, last: u64 },
    #[error("line {line} does not apply to the team: {why}")]
    BadOp { line: usize, why: String },
    #[error("{path} could not be read: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// The team after the change at `seq`, with `journalSeq` = `seq` and
/// `journalDigest` = the chain value there, exactly as the live store had it.
pub fn replay_to(journal_text: &str, seq: u64) -> Result<TeamState, ReplayError> {
    let parsed = parse_journal(journal_text.as_bytes(), Tail::Strict)?;
    let Some(mut team) = base_team(&parsed.base)? else {
        return Err(ReplayError::NoHistory);
    };
    let (first, last) = (parsed.base.seq, parsed.last_seq());
    if seq < first || seq > last {
        return Err(ReplayError::SeqOutside { seq, first, last });
    }
    let mut at_seq = (seq == first).then(|| team.clone());
    // Every line is applied, not only those up to `seq`: a line that does not
    // apply refuses the whole journal, wherever it is.
    for change in &parsed.changes {
        apply_change(&mut team, change)?;
        if change.line.seq == seq {
            at_seq = Some(team.clone());
        }
    }
    Ok(at_seq.unwrap_or(team))
}

/// `replay_to` over a journal file.
pub fn replay_file(path: &Path, seq: u64) -> Result<TeamState, ReplayError> {
    let text = std::fs::read_to_string(path).map_err(|source| ReplayError::Io {
        path: path.to_owned(),
        source,
    })?;
    replay_to(&text, seq)
}
