//! Awaiting what the host does in the background: its events (`HostEvent`
//! on both buses), an idle Session, a round's end, a quiet home. Every wait
//! is bounded by `LIMIT` of real time and fails the test naming what never
//! happened.
//!
//! The bound is a watchdog thread, not `tokio::time::timeout`: on a paused
//! clock the runtime jumps to its next timer whenever it idles, which it does
//! while the journal writer thread fsyncs, so a tokio timeout would fire the
//! first time a test waited on the disk.

use crate::{Kit, Room};
use flybot_host::HostEvent;
use std::future::Future;
use std::sync::mpsc;
use std::time::Duration;
use tokio::sync::broadcast::{self, error::RecvError};

/// How long any wait may take, in real time, before the test fails.
pub const LIMIT: Duration = Duration::from_secs(30);

/// The backstop between two looks at a condition no event announces (a
/// subprocess's exit). Short, so a paused clock steps no further than this
/// while the host waits on its writer thread.
const TICK: Duration = Duration::from_millis(20);

/// How many looks in a row must find the home unchanged for `settled`.
const QUIET_LOOKS: u32 = 3;

/// Awaits `wait`, failing the test with `what` if it takes over `LIMIT`.
pub async fn within<T>(what: &str, wait: impl Future<Output = T>) -> T {
    within_for(LIMIT, what, wait).await
}

/// Awaits `wait`, failing the test with `what` if it takes over `limit`.
pub async fn within_for<T>(limit: Duration, what: &str, wait: impl Future<Output = T>) -> T {
    let (fire, fired) = tokio::sync::oneshot::channel::<()>();
    // Dropping `_done` when this function returns ends the watchdog early.
    let (_done, done) = mpsc::channel::<()>();
    std::thread::spawn(move || {
        if done.recv_timeout(limit) == Err(mpsc::RecvTimeoutError::Timeout) {
            let _ = fire.send(());
        }
    });
    tokio::select! {
        biased;
        out = wait => out,
        Ok(()) = fired => panic!("waited {limit:?} and never saw: {what}"),
    }
}

/// The host's events from both buses (`subscribe` and `subscribe_work`),
/// followed from the moment `Kit::events` was called.
pub struct Events {
    board: broadcast::Receiver<HostEvent>,
    work: broadcast::Receiver<HostEvent>,
}

impl Events {
    /// The next event on either bus. After a lag it answers the next event
    /// still held; once the host is gone it never answers.
    pub async fn next(&mut self) -> HostEvent {
        loop {
            let received = tokio::select! {
                event = self.board.recv() => event,
                event = self.work.recv() => event,
            };
            match received {
                Ok(event) => return event,
                Err(RecvError::Lagged(_)) => continue,
                Err(RecvError::Closed) => std::future::pending::<()>().await,
            }
        }
    }

    /// Awaits the first event `wanted` accepts; answers it.
    pub async fn until(
        &mut self,
        what: &str,
        mut wanted: impl FnMut(&HostEvent) -> bool,
    ) -> HostEvent {
        within(what, async {
            loop {
                let event = self.next().await;
                if wanted(&event) {
                    return event;
                }
            }
        })
        .await
    }
}

impl Kit {
    /// Awaits `wait` within this kit's limit (`LIMIT` unless `patient`).
    pub async fn within<T>(&self, what: &str, wait: impl Future<Output = T>) -> T {
        within_for(self.limit, what, wait).await
    }

    /// Subscribes to the host's events. Subscribe before the action whose
    /// event a test awaits, so the event cannot pass unseen.
    pub fn events(&self) -> Events {
        Events {
            board: self.host.team().bus().subscribe(),
            work: self.host.team().bus().subscribe_work(),
        }
    }

    /// Awaits `done`: it is looked at now, and again after every host event
    /// and every accepted change reaching the disk, with a short backstop
    /// tick for state no event announces.
    pub async fn until(&self, what: &str, mut done: impl FnMut() -> bool) {
        self.until_some(what, async || done().then_some(())).await;
    }

    /// `until` for a look that awaits (a call through the channel): awaits
    /// the first `Some` that `look` answers.
    pub async fn until_some<T>(&self, what: &str, mut look: impl AsyncFnMut() -> Option<T>) -> T {
        let mut events = self.events();
        self.within(what, async {
            loop {
                if let Some(found) = look().await {
                    return found;
                }
                self.host.store().saves_settled().await;
                if let Some(found) = look().await {
                    return found;
                }
                tokio::select! {
                    _ = events.next() => {}
                    _ = crate::clock::backstop(TICK) => {}
                }
            }
        })
        .await
    }

    /// Awaits the Session having no turn, no queued input and no held line.
    pub async fn idle(&self, session: &str) {
        let what = format!("Session {session} goes idle");
        self.within(&what, self.host.sessions().wait_idle(session))
            .await
            .unwrap();
    }

    /// Awaits the end of the rounds running in `room`: no round runs and no
    /// line waits for the next one.
    pub async fn round_ended(&self, room: &Room) {
        // The room's running flag, looked at on every host event: the
        // driver's `round.ended` wakes this look the moment the rounds end.
        let what = format!("the rounds in room {} end", room.name);
        let rooms = self.host.rooms();
        self.until(&what, || !rooms.run(&room.id, |r| r.running))
            .await;
    }

    /// Awaits `count` ended turns in the Session's log.
    pub async fn turns_ended(&self, session: &str, count: usize) {
        // Looked at on every host event: `turn.ended` wakes it.
        let what = format!("{count} turns end in Session {session}");
        self.until(&what, || self.end_reasons(session).len() >= count)
            .await;
    }

    /// Awaits a quiet home: the journal, the snapshot, the revision and the
    /// team stay the same across `QUIET_LOOKS` write barriers in a row, with
    /// the runtime's other tasks let run between them. A background change
    /// (the task drive's wake, the workflow beat's next card) shows in the
    /// team the moment it is made, so it cannot pass between two looks.
    pub async fn settled(&self) {
        self.within("the home stops moving", async {
            let mut last = self.fingerprint().await;
            let mut quiet = 0;
            while quiet < QUIET_LOOKS {
                tokio::task::yield_now().await;
                let now = self.fingerprint().await;
                quiet = if now == last { quiet + 1 } else { 0 };
                last = now;
            }
        })
        .await;
    }
}
