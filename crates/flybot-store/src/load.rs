//! Start-up: the team is the snapshot in `state.json` plus the journal's
//! lines after it. Whatever cannot be trusted opens the home read-only with
//! one sentence naming the file and line, serving what could be read.

// A refusal hands the team it could read back by value, to be served as
// read; it happens once per start, so its size costs nothing that matters.
#![allow(clippy::result_large_err)]

use crate::atomic::{atomic_write, remove_leftover_temps};
use crate::error::StoreError;
use crate::journal::{
    Tail, apply_change, base_line_bytes, base_team, parse_journal, snapshot_anchor,
};
use crate::migrate::{Backup, check_v1_backup, decode_state};
use crate::writer::{JournalInfo, LineAt};
use flybot_protocol::state::{STATE_VERSION, TeamState};
use std::io::ErrorKind;
use std::path::Path;
use std::time::SystemTime;

pub(crate) const STATE_FILE: &str = "state.json";
pub(crate) const JOURNAL_FILE: &str = "journal.jsonl";
pub(crate) const BACKUP_FILE: &str = "state.json.v1";

pub(crate) struct LoadOptions {
    /// Only the lock holder writes: migrations, a fresh home, torn tails.
    pub as_writer: bool,
    pub state_journal: bool,
    pub now_ms: u64,
}

pub(crate) struct LoadedHome {
    pub team: TeamState,
    /// Why the home opened read-only, when it did.
    pub damaged: Option<StoreError>,
    pub journal: JournalInfo,
    /// The seq of the snapshot now in `state.json`.
    pub snapshot_seq: u64,
    pub stamps: FileStamps,
}

/// Length and mtime of the two files, so a reader can tell they moved.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct FileStamps {
    state: Option<(u64, SystemTime)>,
    journal: Option<(u64, SystemTime)>,
}

impl FileStamps {
    pub(crate) fn read(home: &Path) -> FileStamps {
        let stamp = |name: &str| {
            let meta = std::fs::metadata(home.join(name)).ok()?;
            Some((meta.len(), meta.modified().ok()?))
        };
        FileStamps {
            state: stamp(STATE_FILE),
            journal: stamp(JOURNAL_FILE),
        }
    }
}

type Refusal = (TeamState, StoreError);

pub(crate) fn load_home(home: &Path, options: &LoadOptions) -> LoadedHome {
    if options.as_writer {
        remove_leftover_temps(home);
    }
    // Read before the files: a change landing during the load shows next time.
    let stamps = FileStamps::read(home);
    match load(home, options) {
        Ok(mut loaded) => {
            loaded.stamps = stamps;
            loaded
        }
        Err((team, why)) => LoadedHome {
            snapshot_seq: team.journal_seq,
            team,
            damaged: Some(why),
            journal: JournalInfo::default(),
            stamps,
        },
    }
}

fn empty_team() -> TeamState {
    TeamState {
        version: STATE_VERSION,
        ..TeamState::default()
    }
}

fn read_optional(home: &Path, name: &'static str) -> Result<Option<Vec<u8>>, Refusal> {
    match std::fs::read(home.join(name)) {
        Ok(bytes) if bytes.is_empty() && name == JOURNAL_FILE => Ok(None),
        Ok(bytes) => Ok(Some(bytes)),
        Err(e) if e.kind() == ErrorKind::NotFound => Ok(None),
        Err(e) => Err((
            empty_team(),
            StoreError::File {
                file: name,
                doing: "read",
                source: e.into(),
            },
        )),
    }
}

fn load(home: &Path, options: &LoadOptions) -> Result<LoadedHome, Refusal> {
    let state = read_optional(home, STATE_FILE)?;
    let journal = read_optional(home, JOURNAL_FILE)?;
    match (state, journal) {
        (None, None) => fresh(home, options, empty_team()),
        (None, Some(journal)) => {
            // A history journal can rebuild a lost snapshot; nothing else can.
            let parsed = parse_journal(&journal, Tail::Lenient)
                .map_err(|e| (empty_team(), StoreError::journal(JOURNAL_FILE, e)))?;
            let Ok(Some(team)) = base_team(&parsed.base) else {
                return Err((
                    empty_team(),
                    StoreError::Untrusted("journal.jsonl exists but state.json is missing, and the journal keeps no team to rebuild it from".to_owned()),
                ));
            };
            let loaded = from_snapshot(home, options, team, journal)?;
            if options.as_writer {
                write_snapshot(home, &loaded.team).map_err(|why| (loaded.team.clone(), why))?;
            }
            Ok(LoadedHome {
                snapshot_seq: loaded.team.journal_seq,
                ..loaded
            })
        }
        (Some(bytes), journal) => {
            let decoded =
                decode_state(&bytes, options.now_ms).map_err(|why| (empty_team(), why))?;
            if decoded.from_v1 {
                return migrated(home, options, decoded.team, &bytes);
            }
            match journal {
                None => fresh(home, options, decoded.team),
                Some(journal) => from_snapshot(home, options, decoded.team, journal),
            }
        }
    }
}

/// A home without a journal: the snapshot anchors a new one.
fn fresh(home: &Path, options: &LoadOptions, mut team: TeamState) -> Result<LoadedHome, Refusal> {
    let rewrite_state = team.journal_digest.is_none();
    if rewrite_state {
        team.journal_digest = Some(snapshot_anchor(&team));
    }
    let mut journal = JournalInfo::default();
    if options.as_writer {
        if rewrite_state {
            write_snapshot(home, &team).map_err(|why| (team.clone(), why))?;
        }
        journal = write_fresh_journal(home, options, &team).map_err(|why| (team.clone(), why))?;
    }
    Ok(LoadedHome {
        snapshot_seq: team.journal_seq,
        team,
        damaged: None,
        journal,
        stamps: FileStamps::default(),
    })
}

/// Version 1 → 2 (#47), with the one-time backup of the original bytes.
fn migrated(
    home: &Path,
    options: &LoadOptions,
    mut team: TeamState,
    original: &[u8],
) -> Result<LoadedHome, Refusal> {
    team.journal_digest = None;
    if options.as_writer {
        match check_v1_backup(&home.join(BACKUP_FILE)) {
            Err(why) => return Err((team, why)),
            Ok(Backup::Valid) => {}
            Ok(Backup::Missing) => {
                atomic_write(&home.join(BACKUP_FILE), original)
                    .map_err(|e| (team.clone(), StoreError::disk(e)))?;
            }
        }
        tracing::info!(
            "state.json was migrated from version 1; the original is kept as state.json.v1"
        );
    }
    // The old journal (if any) predates the migration: a new one starts here.
    // `fresh` writes the migrated snapshot and its journal (the digest is unset).
    fresh(home, options, team)
}

/// The snapshot plus the journal lines after it, the chain checked throughout.
fn from_snapshot(
    home: &Path,
    options: &LoadOptions,
    mut team: TeamState,
    journal: Vec<u8>,
) -> Result<LoadedHome, Refusal> {
    let snapshot_seq = team.journal_seq;
    let parsed = match parse_journal(&journal, Tail::Lenient) {
        Ok(parsed) => parsed,
        Err(e) => return Err((team, StoreError::journal(JOURNAL_FILE, e))),
    };
    let base = &parsed.base;
    let mut live = if snapshot_seq < base.seq {
        match base_team(base) {
            Ok(Some(bridge)) => bridge,
            Ok(None) => {
                return Err((
                    team,
                    StoreError::Untrusted(format!(
                        "journal.jsonl starts at seq {} but state.json is at seq {snapshot_seq}, and the journal keeps no team to bridge the gap",
                        base.seq
                    )),
                ));
            }
            Err(e) => return Err((team, StoreError::journal(JOURNAL_FILE, e))),
        }
    } else {
        let last = parsed.last_seq();
        let Some(chain) = parsed.chain_at(snapshot_seq) else {
            return Err((
                team,
                StoreError::Untrusted(format!(
                    "state.json is at seq {snapshot_seq} but journal.jsonl ends at seq {last}"
                )),
            ));
        };
        if team.journal_digest.as_deref().is_some_and(|d| d != chain) {
            let line = snapshot_seq - base.seq + 1;
            return Err((
                team,
                StoreError::Untrusted(format!(
                    "state.json's journalDigest does not match journal.jsonl line {line} (seq {snapshot_seq})"
                )),
            ));
        }
        team.journal_digest = Some(chain.to_owned());
        team
    };
    let from = live.journal_seq;
    let suffix: Vec<_> = parsed
        .changes
        .iter()
        .filter(|c| c.line.seq > from)
        .collect();
    if !suffix.is_empty() {
        let snapshot = live.clone();
        for change in suffix {
            if let Err(e) = apply_change(&mut live, change) {
                return Err((snapshot, StoreError::journal(JOURNAL_FILE, e)));
            }
        }
    }
    if let Some(why) = &parsed.torn {
        tracing::warn!(
            "journal.jsonl: {why}, so its last line was cut short by a crash; the change it held was never acknowledged and is dropped"
        );
        if options.as_writer {
            truncate(home, parsed.valid_len).map_err(|why| (live.clone(), why))?;
        }
    }
    Ok(LoadedHome {
        team: live,
        damaged: None,
        journal: JournalInfo {
            len: parsed.valid_len,
            base_len: parsed.base_len as u64,
            base_has_state: parsed.base.state.is_some(),
            oldest_change_t: parsed.changes.first().map(|c| c.line.t),
            base_seq: parsed.base.seq,
            lines: parsed
                .changes
                .iter()
                .map(|c| LineAt {
                    seq: c.line.seq,
                    t: c.line.t,
                    start: c.start as u64,
                })
                .collect(),
        },
        snapshot_seq,
        stamps: FileStamps::default(),
    })
}

fn truncate(home: &Path, len: u64) -> Result<(), StoreError> {
    let file = std::fs::OpenOptions::new()
        .write(true)
        .open(home.join(JOURNAL_FILE))
        .and_then(|file| {
            file.set_len(len)?;
            file.sync_all()
        });
    file.map_err(StoreError::disk)
}

pub(crate) fn write_snapshot(home: &Path, team: &TeamState) -> Result<(), StoreError> {
    let bytes = serde_json::to_vec_pretty(team)?;
    atomic_write(&home.join(STATE_FILE), &bytes).map_err(StoreError::disk)
}

/// A journal of one base line at the team's seq (with the team when it keeps history).
fn write_fresh_journal(
    home: &Path,
    options: &LoadOptions,
    team: &TeamState,
) -> Result<JournalInfo, StoreError> {
    let digest = team
        .journal_digest
        .clone()
        .unwrap_or_else(|| snapshot_anchor(team));
    let state = options.state_journal.then_some(team);
    let bytes = base_line_bytes(team.journal_seq, options.now_ms, &digest, state)?;
    atomic_write(&home.join(JOURNAL_FILE), &bytes).map_err(StoreError::disk)?;
    Ok(JournalInfo {
        len: bytes.len() as u64,
        base_len: bytes.len() as u64 - 1,
        base_has_state: state.is_some(),
        oldest_change_t: None,
        base_seq: team.journal_seq,
        lines: Vec::new(),
    })
}
