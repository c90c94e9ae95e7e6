//! A Session's parts: numbered segments of one Session id (the id, its log
//! and whatever is keyed by it, schedules included, stay the same, #1245).
//! The records say where each part begins in the log, its handoff note, its
//! checkpoints and its pinned snapshot; the current part is read from them.
//! The earlier parts stay in the log, readable and searchable.

use flybot_store::parts::PartsFile;
use serde::{Deserialize, Serialize};
use std::io;
use std::path::Path;
use tokio::time::Instant;

/// One line of the parts record.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all_fields = "camelCase")]
pub enum PartRecord {
    /// Part `part` begins at log entry `from_seq` (the turn that moved it,
    /// whose input it carries on). Written before the handoff runs.
    #[serde(rename = "part/start")]
    Start {
        part: u32,
        from_seq: u64,
        at: u64,
        reason: String,
    },
    /// The handoff note the part opens with.
    #[serde(rename = "part/handoff")]
    Handoff { part: u32, note: String },
    /// The handoff failed: the part is rolled back, the earlier one current.
    #[serde(rename = "part/rollback")]
    Rollback { part: u32 },
    /// A checkpoint: the summary stands for the part's entries up to `upto_seq`.
    #[serde(rename = "part/checkpoint")]
    Checkpoint {
        part: u32,
        upto_seq: u64,
        summary: String,
        at: u64,
    },
    /// The pinned memory block as this part's system prompt carries it.
    #[serde(rename = "part/pinned")]
    Pinned { part: u32, text: String },
}

/// The current part as a request is built from it.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PartView {
    /// 1 for a Session that never moved.
    pub part: u32,
    /// The first log entry of the part (0: the whole log).
    pub from_seq: u64,
    pub reason: Option<String>,
    pub note: Option<String>,
    /// The newest checkpoint: entries up to this seq are its summary.
    pub checkpoint: Option<(u64, String)>,
    pub checkpoints: u32,
    pub pinned: Option<String>,
}

impl PartView {
    /// The last log entry the part's request no longer carries in full:
    /// the one before the part, or the newest checkpoint's last.
    pub fn live_after(&self) -> u64 {
        let checkpoint = self.checkpoint.as_ref().map_or(0, |(upto, _)| *upto);
        self.from_seq.saturating_sub(1).max(checkpoint)
    }
}

/// A Session's parts record in memory, and the steward's cooldown.
pub struct Parts {
    file: PartsFile,
    records: Vec<PartRecord>,
    /// Failed steward rounds in a row (#1447), process-local.
    pub(crate) failures_in_row: u32,
    /// Below the hard line the steward is not asked before this.
    pub(crate) cooldown_until: Option<Instant>,
}

impl Parts {
    pub fn open(home: &Path, session_id: &str) -> io::Result<Parts> {
        let file = PartsFile::new(home, session_id)?;
        let records = file.read()?;
        Ok(Parts {
            file,
            records,
            failures_in_row: 0,
            cooldown_until: None,
        })
    }

    /// Writes `record` to disk, then keeps it.
    pub fn append(&mut self, record: PartRecord) -> io::Result<()> {
        self.file.append(&record)?;
        self.records.push(record);
        Ok(())
    }

    /// Keeps `record` and has it written while the turn goes on: for the
    /// pinned snapshot, which a crash may lose at no cost (the next start
    /// takes it again from the live block).
    pub fn append_behind(&mut self, record: PartRecord) -> io::Result<()> {
        self.file.append_behind(&record)?;
        self.records.push(record);
        Ok(())
    }

    pub fn records(&self) -> &[PartRecord] {
        &self.records
    }

    /// The current part.
    pub fn current(&self) -> PartView {
        current_part(&self.records)
    }

    /// The part log entry `seq` belongs to (its latest part, where parts
    /// overlap on the turn that moved).
    pub fn part_of(&self, seq: u64) -> u32 {
        starts(&self.records)
            .iter()
            .rev()
            .find(|(_, from)| *from <= seq)
            .map_or(1, |(part, _)| *part)
    }
}

/// The parts still standing (rolled-back ones removed): (part, from_seq).
fn starts(records: &[PartRecord]) -> Vec<(u32, u64)> {
    let mut stack = vec![(1, 0)];
    for record in records {
        match record {
            PartRecord::Start { part, from_seq, .. } => stack.push((*part, *from_seq)),
            PartRecord::Rollback { part } => stack.retain(|(p, _)| p != part),
            _ => {}
        }
    }
    stack
}

/// The current part of `records`.
pub fn current_part(records: &[PartRecord]) -> PartView {
    let (part, from_seq) = starts(records).last().copied().unwrap_or((1, 0));
    let mut view = PartView {
        part,
        from_seq,
        ..PartView::default()
    };
    for record in records {
        match record {
            PartRecord::Start {
                part: p, reason, ..
            } if *p == part => {
                view.reason = Some(reason.clone());
            }
            PartRecord::Handoff { part: p, note } if *p == part => view.note = Some(note.clone()),
            PartRecord::Checkpoint {
                part: p,
                upto_seq,
                summary,
                ..
            } if *p == part => {
                view.checkpoint = Some((*upto_seq, summary.clone()));
                view.checkpoints += 1;
            }
            PartRecord::Pinned { part: p, text } if *p == part && view.pinned.is_none() => {
                view.pinned = Some(text.clone());
            }
            _ => {}
        }
    }
    view
}

#[cfg(test)]
mod tests {
    use super::*;

    fn start(part: u32, from_seq: u64) -> PartRecord {
        PartRecord::Start {
            part,
            from_seq,
            at: 0,
            reason: "long".into(),
        }
    }

    #[test]
    /// Rule #1245.
    fn a_rolled_back_part_leaves_the_earlier_one_current() {
        let mut records = vec![
            PartRecord::Pinned {
                part: 1,
                text: "a".into(),
            },
            start(2, 40),
        ];
        assert_eq!(current_part(&records).part, 2);
        assert_eq!(current_part(&records).pinned, None);
        records.push(PartRecord::Rollback { part: 2 });
        let view = current_part(&records);
        assert_eq!(
            (view.part, view.from_seq, view.pinned.as_deref()),
            (1, 0, Some("a"))
        );
        records.push(start(2, 50));
        records.push(PartRecord::Handoff {
            part: 2,
            note: "n".into(),
        });
        records.push(PartRecord::Pinned {
            part: 2,
            text: "b".into(),
        });
        records.push(PartRecord::Pinned {
            part: 2,
            text: "c".into(),
        });
        let view = current_part(&records);
        assert_eq!(
            (view.from_seq, view.note.as_deref(), view.pinned.as_deref()),
            (50, Some("n"), Some("b"))
        );
    }

    #[test]
    fn records_are_written_with_the_spec_s_spellings() {
        let line = serde_json::to_string(&PartRecord::Checkpoint {
            part: 1,
            upto_seq: 9,
            summary: "s".into(),
            at: 3,
        })
        .unwrap();
        assert_eq!(
            line,
            r#"{"type":"part/checkpoint","part":1,"uptoSeq":9,"summary":"s","at":3}"#
        );
    }
}
