//! The host's room logs and per-room round state: one `RoomLog` per room,
//! the member each room is waiting on, the seen cursors (#1203), the late
//! round count (#557) and a lock so one round runs per room at a time.
//! A round is opened here (`open_round`) and run by the round driver
//! (`super::rounds`), which owns the other end of the room's door: the logs
//! never call the driver, so the tools that post into a room need no link
//! to the agent runtime. Lines go to disk through the home's turn log
//! (group commit, issue 19); a line is announced and shown to people once
//! it is durable (`durable.rs`).

use super::run_note::{RoundNote, RunNote};
use crate::events::{Bus, HostEvent};
use flybot_core::rooms::log::{AuthorKind, LineKind, RoomLine};
use flybot_core::sync::lock;
use flybot_store::room_log::{NewLine, RoomLog};
use flybot_store::turn_log::{TurnLog, Urgency};
use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::io;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use tokio::sync::mpsc;

/// A room's state while the host runs.
#[derive(Debug, Default, Clone)]
pub struct RoomRun {
    /// A round is running (its task owns the room).
    pub running: bool,
    /// The member speaking now and its Session.
    pub speaking: Option<(String, String)>,
    /// The person lines that arrived while the round ran, by seq.
    pub pending: Vec<u64>,
    /// The round's person stopped it (#1679: never retried behind their back).
    pub stopped: bool,
    /// A person stopped the whole round (`room-stop`): the members still to
    /// speak are skipped and the waiting lines open no next round.
    pub halted: bool,
    /// Member → the last seq its turn showed (#1203).
    pub seen: BTreeMap<String, u64>,
    /// Rounds Bots started since the person last spoke (#557).
    pub late_rounds: u32,
    /// Seqs of Bot lines whose poster wants the round's closing report
    /// (#913, `post_to_group` with `report_back`).
    pub report_back: BTreeSet<u64>,
    /// Bot lines posted while the round runs (#932): the round calls the
    /// members they name at its next loop head.
    pub mid_posts: Vec<MidPost>,
    /// The round running now, as its driver last noted it.
    pub round: Option<RoundNote>,
    /// The line a round was opened on, noted before the driver has it: a
    /// restart before the round notes itself opens it again (#83).
    pub opening: Option<u64>,
    /// The newest remote line the run has taken (opened a round on, queued,
    /// posted into the round, or passed over): a line redelivered after a
    /// crash that is newer was never taken, and is taken then (`taking.rs`).
    pub taken: u64,
}

/// A Bot's `post_to_group` line that arrived while a round ran (#932).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct MidPost {
    pub seq: u64,
    pub from: String,
    pub text: String,
}

/// Every room's log and run state.
pub struct RoomLogs {
    pub(super) home: PathBuf,
    logs: Mutex<HashMap<String, RoomLog>>,
    runs: Mutex<HashMap<String, RoomRun>>,
    /// Where opened rounds go: the round driver's end.
    door: mpsc::UnboundedSender<RoundStart>,
    /// Where a new line is announced (`room.line`, for the live stream).
    pub(super) bus: Bus,
    pub(super) turn_log: TurnLog,
    /// Per room, the last seq a sync covers: what a person is shown.
    pub(super) shown: Arc<Mutex<HashMap<String, u64>>>,
    /// The turn log's generation the open logs were read at: a standby on
    /// PostgreSQL whose files took a leader's lines opens them again.
    read_at: std::sync::atomic::AtomicU64,
}

/// A round to run: the room and the seq of the line that opens it, or the
/// round a restart cut, to finish.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RoundStart {
    pub room_id: String,
    pub opener_seq: u64,
    pub resume: Option<Box<RoundNote>>,
}

/// The round driver's end of the rooms' door.
pub type RoundStarts = mpsc::UnboundedReceiver<RoundStart>;

impl RoomLogs {
    /// Logs whose opened rounds nobody runs (a test of the logs alone, or a
    /// round run by hand with `run_round`).
    pub fn new(home: PathBuf) -> Arc<RoomLogs> {
        RoomLogs::with_rounds(home, Bus::default()).0
    }

    /// Logs and the door's other end, for the round driver; new lines are
    /// announced on `bus`.
    pub fn with_rounds(home: PathBuf, bus: Bus) -> (Arc<RoomLogs>, RoundStarts) {
        let (door, starts) = mpsc::unbounded_channel();
        let turn_log = TurnLog::for_home(&home);
        let logs = Arc::new(RoomLogs {
            home,
            logs: Mutex::new(HashMap::new()),
            runs: Mutex::new(HashMap::new()),
            door,
            turn_log,
            shown: Arc::default(),
            bus,
            read_at: Default::default(),
        });
        (logs, starts)
    }

    pub(super) fn with_log<T>(
        &self,
        room_id: &str,
        f: impl FnOnce(&mut RoomLog) -> T,
    ) -> io::Result<T> {
        let mut logs = lock(&self.logs);
        let generation = self.turn_log.generation();
        if self
            .read_at
            .swap(generation, std::sync::atomic::Ordering::SeqCst)
            != generation
        {
            logs.clear();
            lock(&self.shown).clear();
        }
        if !logs.contains_key(room_id) {
            // The journal is replayed into the logs before the first is
            // read; a host that only reads (another writes) reads as is.
            if let Err(e) = self.turn_log.open() {
                tracing::debug!("room logs read without the turn log: {e}");
            }
            let log = RoomLog::open(&self.home, room_id)?;
            lock(&self.shown).insert(room_id.to_owned(), log.last_seq());
            logs.insert(room_id.to_owned(), log);
        }
        match logs.get_mut(room_id) {
            Some(log) => Ok(f(log)),
            None => Err(io::Error::other("room log missing")),
        }
    }

    /// Stores `line` and answers once it is durable (and announced): a
    /// person's line, a tool's post, a claim line.
    pub fn append(&self, room_id: &str, line: NewLine) -> io::Result<RoomLine> {
        self.append_carrying(room_id, line, Vec::new())
    }

    /// [`RoomLogs::append`] for a line that carries `attachments` (issue
    /// 32): the ids are in the line's own record, one write.
    pub fn append_carrying(
        &self,
        room_id: &str,
        line: NewLine,
        attachments: Vec<String>,
    ) -> io::Result<RoomLine> {
        let (line, pending) = self.write_line(room_id, line, attachments, Urgency::Now)?;
        if let Some(pending) = pending {
            pending.wait()?;
        }
        Ok(line)
    }

    /// Stores `line` and answers at once; it is announced and shown once
    /// it is durable, with the lines written around it (a round's member
    /// line: the round goes on while the disk syncs).
    pub fn append_soon(&self, room_id: &str, line: NewLine) -> io::Result<RoomLine> {
        self.append_soon_carrying(room_id, line, Vec::new())
    }

    /// [`RoomLogs::append_soon`] for a Bot's answer that carries the files
    /// it attached (issue 32), in the line's own record.
    pub fn append_soon_carrying(
        &self,
        room_id: &str,
        line: NewLine,
        attachments: Vec<String>,
    ) -> io::Result<RoomLine> {
        self.write_line(room_id, line, attachments, Urgency::Soon)
            .map(|(line, _)| line)
    }

    pub fn last_seq(&self, room_id: &str) -> u64 {
        self.with_log(room_id, |log| log.last_seq()).unwrap_or(0)
    }

    /// Announces who speaks in `room_id` now (`room.speaking`), after the
    /// round driver changed it.
    pub fn announce_speaking(&self, room_id: &str) {
        let speaking = self.run(room_id, |r| r.speaking.clone());
        let (bot_id, session_id) = speaking.unzip();
        self.bus.emit(HostEvent::RoomSpeaking {
            room_id: room_id.to_owned(),
            bot_id,
            session_id,
        });
    }

    /// Who speaks in each room with a round running: room → (Bot, Session).
    pub fn speakers(&self) -> Vec<(String, Option<(String, String)>)> {
        lock(&self.runs)
            .iter()
            .filter(|(_, run)| run.running)
            .map(|(room, run)| (room.clone(), run.speaking.clone()))
            .collect()
    }

    /// Runs `f` on the room's run state; a change to what a restart needs
    /// (`RunNote`) is written to the turn log before the lock is let go, so
    /// the journal holds the notes in the order they were taken. It joins
    /// the next sync: a caller that answers a person waits on `settled`.
    pub fn run<T>(&self, room_id: &str, f: impl FnOnce(&mut RoomRun) -> T) -> T {
        let mut runs = lock(&self.runs);
        let run = runs.entry(room_id.to_owned()).or_default();
        let before = RunNote::of(run);
        let answer = f(run);
        let after = RunNote::of(run);
        if after != before {
            let value = after.map(|note| serde_json::to_value(note).unwrap_or_default());
            if let Err(e) = self
                .turn_log
                .write_room_run(room_id, value.as_ref(), Urgency::Soon)
            {
                tracing::warn!("the run of {room_id} could not be noted: {e}");
            }
        }
        answer
    }

    /// Reads back every room's run note after a start and answers the
    /// rounds to run: a round a restart cut is finished, and lines that
    /// waited for a round open one. Call once, after the Sessions' pickup.
    pub fn restore(&self) -> Vec<RoundStart> {
        if let Err(e) = self.turn_log.open() {
            tracing::warn!("the rooms' run notes could not be read: {e}");
            return Vec::new();
        }
        let notes = match flybot_store::turn_log::read_journal_rooms(&self.home) {
            Ok(notes) => notes,
            Err(e) => {
                tracing::warn!("the rooms' run notes could not be read: {e}");
                return Vec::new();
            }
        };
        let mut starts = Vec::new();
        let mut runs = lock(&self.runs);
        for (room_id, value) in notes {
            let Ok(note) = serde_json::from_value::<RunNote>(value) else {
                tracing::warn!("the run note of {room_id} could not be read; its round is lost");
                continue;
            };
            let mut run = note.into_run();
            let resume = run.round.clone();
            let newest = run.pending.iter().chain(&run.opening).max().copied();
            let opener = resume.as_ref().map(|r| r.opener_seq).or(newest);
            run.opening = None;
            if let Some(opener_seq) = opener {
                if resume.is_none() {
                    run.pending.clear();
                    run.opening = Some(opener_seq);
                }
                run.running = true;
                starts.push(RoundStart {
                    room_id: room_id.clone(),
                    opener_seq,
                    resume: resume.map(Box::new),
                });
            }
            runs.insert(room_id, run);
        }
        starts
    }

    /// Opens a round for the line at `opener_seq` when none runs, or keeps
    /// the line for the round after the running one. Answers whether a
    /// round opened.
    pub fn open_round(&self, room_id: &str, opener_seq: u64) -> bool {
        self.open_round_noting(room_id, opener_seq, |_| {})
    }

    /// `open_round`, with `note` made on the room's run in the same look
    /// (so in the same run note).
    pub(super) fn open_round_noting(
        &self,
        room_id: &str,
        opener_seq: u64,
        note: impl FnOnce(&mut RoomRun),
    ) -> bool {
        let start = self.run(room_id, |r| {
            note(r);
            if r.running {
                r.pending.push(opener_seq);
                false
            } else {
                r.running = true;
                true
            }
        });
        if start {
            self.start_round(room_id, opener_seq);
        }
        start
    }

    /// Hands a round the caller already marked running to the driver,
    /// noting its opener first (`RoomRun::opening`).
    pub fn start_round(&self, room_id: &str, opener_seq: u64) {
        self.run(room_id, |r| r.opening = Some(opener_seq));
        self.send_start(RoundStart {
            room_id: room_id.to_owned(),
            opener_seq,
            resume: None,
        });
    }

    /// Hands `start` to the driver; with none running, the room waits.
    pub fn send_start(&self, start: RoundStart) {
        let room_id = start.room_id.clone();
        let sent = self.door.send(start);
        if sent.is_err() {
            tracing::warn!("no round driver runs; the round of {room_id} waits");
            self.run(&room_id, |r| r.running = false);
        }
    }

    /// A Bot's own line posted with `post_to_group` (#557): logged in its
    /// voice at `hop`, then a round opens for it; while a round runs, the
    /// round calls the members it names (#932), and a line that names
    /// nobody waits for the next round. Answers the line's seq.
    pub fn post_bot_line(
        &self,
        room_id: &str,
        bot_id: &str,
        text: &str,
        hop: u32,
        report_back: bool,
    ) -> io::Result<u64> {
        let line = self.append(
            room_id,
            NewLine {
                author_id: bot_id.to_owned(),
                author_kind: AuthorKind::LocalBot,
                kind: LineKind::Chat,
                text: text.to_owned(),
                at: flybot_store::system_now_ms(),
                hop,
            },
        )?;
        let start = self.run(room_id, |r| {
            if report_back {
                r.report_back.insert(line.seq);
            }
            if r.running {
                r.mid_posts.push(MidPost {
                    seq: line.seq,
                    from: bot_id.to_owned(),
                    text: text.to_owned(),
                });
                false
            } else {
                r.running = true;
                true
            }
        });
        if start {
            self.start_round(room_id, line.seq);
        }
        Ok(line.seq)
    }
}
