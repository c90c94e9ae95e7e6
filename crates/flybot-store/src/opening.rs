//! How a store starts: its home loaded as the writer or as a reader, its
//! shared half built, and a writer's journal and housekeeping threads
//! started. `Store::open`, a takeover and a reader's reload go through here.

use crate::group_commit::Gather;
use crate::housekeeping::{StopSignal, housekeeping};
use crate::load::{FileStamps, JOURNAL_FILE, LoadOptions, LoadedHome, load_home};
use crate::lock::HomeLock;
use crate::room_cards::RoomCards;
use crate::store::{Inner, Live, StoreOptions, StoreStatus, Threads};
use crate::writer::{self, JournalInfo, WriterConfig};
use flybot_core::sync::lock;
use flybot_protocol::state::TeamState;
use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::{Arc, Mutex};
use tokio::sync::watch;

pub(crate) fn load_options(options: &StoreOptions, as_writer: bool) -> LoadOptions {
    LoadOptions {
        as_writer,
        state_journal: options.state_journal,
        now_ms: (options.clock)(),
    }
}

/// A reader may catch the writer between its snapshot and its trim; a
/// second look sees both files settled.
pub(crate) fn load_as_reader(home: &Path, options: &StoreOptions) -> LoadedHome {
    let mut loaded = load_home(home, &load_options(options, false));
    for _ in 0..2 {
        if loaded.damaged.is_none() {
            break;
        }
        loaded = load_home(home, &load_options(options, false));
    }
    loaded
}

/// Starts the journal thread and the housekeeping thread of a writer.
pub(crate) fn start_writing(
    inner: &Arc<Inner>,
    live: &mut Live,
    journal: &JournalInfo,
) -> std::io::Result<()> {
    let options = &inner.options;
    let config = WriterConfig {
        path: inner.home.join(JOURNAL_FILE),
        history: options.state_journal,
        max_bytes: options.journal_max_bytes,
        max_age_ms: options.journal_max_age.as_millis() as u64,
        clock: options.clock.clone(),
        pace: inner.gather.pace.clone(),
        #[cfg(feature = "testing")]
        faults: options.faults.clone(),
    };
    let (sender, writer_thread) = writer::spawn(config, journal)?;
    live.writer = Some(sender);
    let stop = Arc::new(StopSignal::default());
    let weak = Arc::downgrade(inner);
    let signal = stop.clone();
    let housekeeping = std::thread::Builder::new()
        .name("flybot-store".to_owned())
        .spawn(move || housekeeping(weak, &signal))?;
    let mut threads = lock(&inner.threads);
    threads.writer = Some(writer_thread);
    threads.housekeeping = Some((stop, housekeeping));
    Ok(())
}

/// The store's shared half, as a fresh open builds it.
pub(crate) fn new_inner(
    home: &Path,
    options: StoreOptions,
    team: TeamState,
    status: StoreStatus,
    home_lock: Option<HomeLock>,
) -> Arc<Inner> {
    let (revision, _) = watch::channel(team.journal_seq);
    Arc::new(Inner {
        home: home.to_owned(),
        snapshot_seq: AtomicU64::new(team.journal_seq),
        stamps: Mutex::new(FileStamps::default()),
        live: Mutex::new(Live {
            team,
            writer: None,
            room_cards: RoomCards::default(),
        }),
        last_now: Mutex::new(0),
        revision,
        status: Mutex::new(status),
        options,
        queued: AtomicU64::new(0),
        gather: Gather::new(),
        closed: AtomicBool::new(false),
        snapshot_gate: Mutex::new(()),
        home_lock: Mutex::new(home_lock),
        notice: Mutex::new(None),
        threads: Mutex::new(Threads::default()),
        turnstile: tokio::sync::Mutex::new(()),
    })
}
