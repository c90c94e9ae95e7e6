//! The host's room logs and per-room round state: one `RoomLog` per room,
//! the member each room is waiting on, the seen cursors (#1203), the late
//! round count (#557) and a lock so one round runs per room at a time.

use flybot_core::rooms::log::RoomLine;
use flybot_core::sync::lock;
use flybot_store::room_log::{NewLine, RoomLog};
use std::collections::{BTreeSet, HashMap};
use std::io;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

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
    /// Member → the last seq its turn showed (#1203).
    pub seen: HashMap<String, u64>,
    /// Rounds Bots started since the person last spoke (#557).
    pub late_rounds: u32,
    /// Seqs of Bot lines whose poster wants the round's closing report
    /// (#913, `post_to_group` with `report_back`).
    pub report_back: BTreeSet<u64>,
}

/// Every room's log and run state.
pub struct RoomLogs {
    home: PathBuf,
    logs: Mutex<HashMap<String, RoomLog>>,
    runs: Mutex<HashMap<String, RoomRun>>,
}

impl RoomLogs {
    pub fn new(home: PathBuf) -> Arc<RoomLogs> {
        Arc::new(RoomLogs {
            home,
            logs: Mutex::new(HashMap::new()),
            runs: Mutex::new(HashMap::new()),
        })
    }

    fn with_log<T>(&self, room_id: &str, f: impl FnOnce(&mut RoomLog) -> T) -> io::Result<T> {
        let mut logs = lock(&self.logs);
        if !logs.contains_key(room_id) {
            let log = RoomLog::open(&self.home, room_id)?;
            logs.insert(room_id.to_owned(), log);
        }
        match logs.get_mut(room_id) {
            Some(log) => Ok(f(log)),
            None => Err(io::Error::other("room log missing")),
        }
    }

    pub fn append(&self, room_id: &str, line: NewLine) -> io::Result<RoomLine> {
        self.with_log(room_id, |log| log.append(line))?
    }

    pub fn lines(&self, room_id: &str) -> io::Result<Vec<RoomLine>> {
        self.with_log(room_id, |log| log.lines().to_vec())
    }

    pub fn last_seq(&self, room_id: &str) -> u64 {
        self.with_log(room_id, |log| log.last_seq()).unwrap_or(0)
    }

    /// Runs `f` on the room's run state.
    pub fn run<T>(&self, room_id: &str, f: impl FnOnce(&mut RoomRun) -> T) -> T {
        let mut runs = lock(&self.runs);
        f(runs.entry(room_id.to_owned()).or_default())
    }
}
