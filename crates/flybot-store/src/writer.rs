//! The journal's one writer thread: it appends change lines in seq order and
//! commits them in groups (everything queued goes out in one write and one
//! fsync, then every waiter is answered; `group_commit` gathers a burst's
//! lines before they are queued), trims the journal after a snapshot,
//! and, when the journal keeps history, folds its oldest lines into the base
//! so it stays within its caps (#511).

use crate::acks::Acker;
use crate::atomic::atomic_write;
use crate::burst_marks::{Step, reach};
use crate::error::StoreError;
use crate::group_commit::{CommitPace, Line};
use crate::journal::{Tail, apply_change, base_line_bytes, base_team, parse_journal};
use crate::room_ahead::RoomAhead;
use crate::store::Clock;
use flybot_protocol::state::TeamState;
use std::collections::VecDeque;
use std::fs::{File, OpenOptions};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::path::PathBuf;
use std::sync::Arc;
use std::sync::mpsc::{Receiver, Sender, channel};
use std::thread::JoinHandle;
use std::time::Instant;
use tokio::sync::oneshot;

/// The journal's name in sentences.
const JOURNAL: &str = "journal.jsonl";

/// The answer a waiter gets: the line is on disk, or why it is not.
pub(crate) type Ack = oneshot::Sender<Result<(), StoreError>>;

pub(crate) enum WriterMsg {
    /// Change lines in seq order, one write and one commit between them.
    Lines(Vec<Line>),
    /// Answered once every line queued before it is on disk.
    Barrier(Ack),
    /// `state.json` now holds the team at `seq`: the lines up to it may go.
    Trim {
        seq: u64,
        digest: String,
        team: Box<TeamState>,
        ack: Ack,
    },
    Stop(Ack),
}

pub(crate) struct WriterConfig {
    pub path: PathBuf,
    /// `stateJournal`: keep history instead of trimming after snapshots.
    pub history: bool,
    pub max_bytes: u64,
    pub max_age_ms: u64,
    pub clock: Clock,
    /// Where the writer says how long its last write and fsync took.
    pub pace: Arc<CommitPace>,
    /// The disk faults a test arms (the `testing` feature only).
    #[cfg(feature = "testing")]
    pub faults: Arc<crate::faults::DiskFaults>,
}

/// What the load found in the journal file the writer takes over.
#[derive(Debug, Clone, Default)]
pub(crate) struct JournalInfo {
    pub len: u64,
    pub base_len: u64,
    pub base_has_state: bool,
    pub oldest_change_t: Option<u64>,
    /// The base line's seq.
    pub base_seq: u64,
    /// Where each change line after the base starts, in seq order.
    pub lines: Vec<LineAt>,
}

/// One change line of the journal file: its seq, its time and the offset
/// of its first byte. The writer keeps these for every line after the base,
/// so a trim cuts the journal at a seq without parsing it again (issue 38).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct LineAt {
    pub seq: u64,
    pub t: u64,
    pub start: u64,
}

/// A line in the batch being gathered: where it starts in the batch.
struct Pending {
    seq: u64,
    t: u64,
    start: usize,
    ack: Ack,
}

struct Writer {
    cfg: WriterConfig,
    file: File,
    len: u64,
    base_has_state: bool,
    oldest_t: Option<u64>,
    /// History was given up because the team alone passes the cap.
    history_stopped: bool,
    failed: Option<StoreError>,
    /// Answers a batch's waiters.
    acker: Acker,
    /// The base line's seq, and every change line after it.
    base_seq: u64,
    lines: VecDeque<LineAt>,
    /// Disk room reserved past the journal's end, so a commit's fsync
    /// allocates no block.
    room: RoomAhead,
}

pub(crate) fn spawn(
    cfg: WriterConfig,
    info: &JournalInfo,
) -> io::Result<(Sender<WriterMsg>, JoinHandle<()>)> {
    let file = open_append(&cfg)?;
    let mut writer = Writer {
        file,
        len: info.len,
        base_has_state: info.base_has_state,
        oldest_t: info.oldest_change_t,
        history_stopped: false,
        failed: None,
        acker: Acker::on_current_runtime(),
        base_seq: info.base_seq,
        lines: info.lines.iter().copied().collect(),
        room: RoomAhead::default(),
        cfg,
    };
    if writer.keeps_history() && info.base_len + 1 > writer.target_bytes() {
        writer.stop_history(&format!(
            "the team alone ({} bytes) passes 90% of the journal's cap",
            info.base_len
        ));
    }
    let (tx, rx) = channel();
    let handle = std::thread::Builder::new()
        .name("flybot-journal".to_owned())
        .spawn(move || writer.run(rx))?;
    Ok((tx, handle))
}

fn open_append(cfg: &WriterConfig) -> io::Result<File> {
    OpenOptions::new().append(true).open(&cfg.path)
}

impl Writer {
    fn run(mut self, rx: Receiver<WriterMsg>) {
        self.retain();
        let mut buf = Vec::new();
        let mut pending = Vec::new();
        while let Ok(first) = rx.recv() {
            let mut next = Some(first);
            while let Some(msg) = next.take() {
                match msg {
                    WriterMsg::Lines(lines) => {
                        reach(Step::WriterTook);
                        for line in lines {
                            let start = buf.len();
                            buf.extend_from_slice(&line.bytes);
                            let (seq, t, ack) = (line.seq, line.t, line.ack);
                            pending.push(Pending { seq, t, start, ack });
                        }
                    }
                    WriterMsg::Barrier(ack) => {
                        self.flush(&mut buf, &mut pending);
                        let _ = ack.send(self.health());
                    }
                    WriterMsg::Trim {
                        seq,
                        digest,
                        team,
                        ack,
                    } => {
                        self.flush(&mut buf, &mut pending);
                        let _ = ack.send(self.trim(seq, &digest, &team));
                    }
                    WriterMsg::Stop(ack) => {
                        self.flush(&mut buf, &mut pending);
                        let _ = ack.send(self.health());
                        return;
                    }
                }
                // Group commit: everything already queued shares the fsync.
                next = rx.try_recv().ok();
            }
            self.flush(&mut buf, &mut pending);
            self.retain();
        }
    }

    /// The fault a test armed, failing this flush's write as the disk would.
    #[cfg(feature = "testing")]
    fn injected_write_fault(&self) -> io::Result<()> {
        self.cfg.faults.before_write()
    }

    #[cfg(not(feature = "testing"))]
    fn injected_write_fault(&self) -> io::Result<()> {
        Ok(())
    }

    /// The fault a test armed, failing this flush's fsync as the disk would.
    #[cfg(feature = "testing")]
    fn injected_sync_fault(&self) -> io::Result<()> {
        self.cfg.faults.before_sync()
    }

    #[cfg(not(feature = "testing"))]
    fn injected_sync_fault(&self) -> io::Result<()> {
        Ok(())
    }

    fn health(&self) -> Result<(), StoreError> {
        match &self.failed {
            Some(why) => Err(why.clone()),
            None => Ok(()),
        }
    }

    fn flush(&mut self, buf: &mut Vec<u8>, pending: &mut Vec<Pending>) {
        if pending.is_empty() {
            return;
        }
        let started = Instant::now();
        let end = self.len + buf.len() as u64;
        self.room.before_append(&self.file, self.len, end);
        let result = self.health().and_then(|()| {
            self.injected_write_fault()
                .and_then(|()| self.file.write_all(buf))
                .and_then(|()| self.injected_sync_fault())
                .and_then(|()| self.file.sync_data())
                .map_err(StoreError::disk)
        });
        self.cfg.pace.record(started.elapsed());
        reach(Step::Written);
        match &result {
            Ok(()) => {
                let at = self.len;
                self.lines.extend(pending.iter().map(|line| LineAt {
                    seq: line.seq,
                    t: line.t,
                    start: at + line.start as u64,
                }));
                self.len += buf.len() as u64;
                if self.oldest_t.is_none() {
                    self.oldest_t = pending.first().map(|line| line.t);
                }
            }
            Err(why) => {
                if self.failed.is_none() {
                    tracing::warn!("journal.jsonl: {why}; this home is read-only until restarted");
                    self.cut_back();
                }
                self.failed = Some(why.clone());
            }
        }
        let acks = pending.drain(..).map(|line| line.ack).collect();
        self.acker.answer(acks, result);
        buf.clear();
    }

    /// Cuts the journal back to its acknowledged length: lines that were
    /// written but never synced must not show when the team is read again
    /// from disk, nor come back on a restart.
    fn cut_back(&mut self) {
        self.room.forget();
        let cut = self
            .file
            .set_len(self.len)
            .and_then(|()| self.file.sync_data());
        if let Err(e) = cut {
            tracing::warn!(
                "journal.jsonl could not be cut back to its last acknowledged line ({e}); unacknowledged lines may show after a restart"
            );
        }
    }

    fn keeps_history(&self) -> bool {
        self.cfg.history && !self.history_stopped
    }

    fn target_bytes(&self) -> u64 {
        self.cfg.max_bytes / 10 * 9
    }

    fn stop_history(&mut self, why: &str) {
        tracing::warn!(
            "the state journal stops keeping history: {why}; it is trimmed after each snapshot instead"
        );
        self.history_stopped = true;
    }

    /// Rewrites the journal to start at the snapshot's seq. The lines kept
    /// are copied from where the writer knows they start, never parsed
    /// again (their digests were checked when they were made). A failed
    /// trim is not fatal: the longer journal still replays onto the snapshot.
    fn trim(&mut self, seq: u64, digest: &str, team: &TeamState) -> Result<(), StoreError> {
        self.health()?;
        let keep = self.keeps_history();
        if keep && self.base_has_state || seq < self.base_seq {
            return Ok(());
        }
        let now = (self.cfg.clock)();
        let mut bytes = base_line_bytes(seq, now, digest, keep.then_some(team))?;
        let base_len = bytes.len() as u64;
        let first = self.lines.iter().position(|line| line.seq > seq);
        let cut = match first {
            Some(i) => self.lines[i].start,
            None => self.len,
        };
        bytes.extend_from_slice(&self.read_from(cut)?);
        self.replace(&bytes)?;
        let kept = self.lines.split_off(first.unwrap_or(self.lines.len()));
        self.lines = kept
            .into_iter()
            .map(|line| LineAt {
                start: line.start - cut + base_len,
                ..line
            })
            .collect();
        self.base_seq = seq;
        self.base_has_state = keep;
        self.oldest_t = self.lines.front().map(|line| line.t);
        Ok(())
    }

    /// The journal's bytes from `at` (a line's start) to its end; the byte
    /// before `at` must end a line, or the file moved under its writer.
    fn read_from(&self, at: u64) -> Result<Vec<u8>, StoreError> {
        let mut tail = Vec::with_capacity((self.len.saturating_sub(at) + 1) as usize);
        File::open(&self.cfg.path)
            .and_then(|mut file| {
                file.seek(SeekFrom::Start(at.saturating_sub(1)))?;
                file.read_to_end(&mut tail)
            })
            .map_err(|e| StoreError::File {
                file: JOURNAL,
                doing: "read",
                source: e.into(),
            })?;
        if at == 0 || tail.first() != Some(&b'\n') {
            return Err(StoreError::Untrusted(format!(
                "journal.jsonl does not end a line before byte {at}; it is not trimmed"
            )));
        }
        tail.remove(0);
        Ok(tail)
    }

    /// Keeps a history journal within 20 MB and 7 days (the options' caps):
    /// past either, the oldest lines fold into the base down to 90% of each.
    fn retain(&mut self) {
        if !self.keeps_history() || !self.base_has_state || self.failed.is_some() {
            return;
        }
        let now = (self.cfg.clock)();
        let too_big = self.len > self.cfg.max_bytes;
        let too_old = self
            .oldest_t
            .is_some_and(|t| now.saturating_sub(t) > self.cfg.max_age_ms);
        if !(too_big || too_old) {
            return;
        }
        if let Err(why) = self.fold(now) {
            self.stop_history(&why.to_string());
        }
    }

    fn fold(&mut self, now: u64) -> Result<(), StoreError> {
        let text = self.read_journal()?;
        let parsed =
            parse_journal(&text, Tail::Strict).map_err(|e| StoreError::journal(JOURNAL, e))?;
        let mut team = base_team(&parsed.base)
            .map_err(|e| StoreError::journal(JOURNAL, e))?
            .ok_or_else(|| StoreError::Untrusted("its base keeps no state".to_owned()))?;
        let target = self.target_bytes();
        let cutoff = now.saturating_sub(self.cfg.max_age_ms / 10 * 9);
        let line_len = |i: usize| (parsed.changes[i].end - parsed.changes[i].start + 1) as u64;
        let mut kept: u64 = (0..parsed.changes.len()).map(line_len).sum();
        let mut drop = 0;
        while drop < parsed.changes.len()
            && (parsed.base_len as u64 + 1 + kept > target || parsed.changes[drop].line.t < cutoff)
        {
            kept -= line_len(drop);
            drop += 1;
        }
        let Some(last_dropped) = drop.checked_sub(1).map(|i| &parsed.changes[i]) else {
            return Err(StoreError::Untrusted(format!(
                "the team alone ({} bytes) passes 90% of the journal's cap",
                parsed.base_len
            )));
        };
        for change in &parsed.changes[..drop] {
            apply_change(&mut team, change).map_err(|e| StoreError::journal(JOURNAL, e))?;
        }
        let mut bytes =
            base_line_bytes(last_dropped.line.seq, now, &last_dropped.chain, Some(&team))?;
        if bytes.len() as u64 > target {
            return Err(StoreError::Untrusted(format!(
                "the team alone ({} bytes) passes 90% of the journal's cap",
                bytes.len()
            )));
        }
        let base_len = bytes.len();
        let first_kept = parsed.changes.get(drop);
        if let Some(first) = first_kept {
            bytes.extend_from_slice(&text[first.start..]);
        }
        self.replace(&bytes)?;
        self.oldest_t = first_kept.map(|c| c.line.t);
        self.base_seq = last_dropped.line.seq;
        self.lines = parsed.changes[drop..]
            .iter()
            .map(|c| LineAt {
                seq: c.line.seq,
                t: c.line.t,
                start: (c.start - parsed.changes[drop].start + base_len) as u64,
            })
            .collect();
        Ok(())
    }

    fn read_journal(&self) -> Result<Vec<u8>, StoreError> {
        std::fs::read(&self.cfg.path).map_err(|e| StoreError::File {
            file: JOURNAL,
            doing: "read",
            source: e.into(),
        })
    }

    /// Atomically replaces the journal and reopens it for appending.
    fn replace(&mut self, bytes: &[u8]) -> Result<(), StoreError> {
        atomic_write(&self.cfg.path, bytes).map_err(|e| StoreError::File {
            file: JOURNAL,
            doing: "rewritten",
            source: e.into(),
        })?;
        match open_append(&self.cfg) {
            Ok(file) => {
                self.file = file;
                self.room.forget();
            }
            Err(e) => {
                // The old handle points at the replaced file: appends there
                // would be lost, so nothing more may be acknowledged.
                let why = StoreError::disk(e);
                self.failed = Some(why.clone());
                return Err(why);
            }
        }
        self.len = bytes.len() as u64;
        Ok(())
    }
}
