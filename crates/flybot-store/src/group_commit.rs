//! Group commit (issue 38): a burst of changes shares one write and one
//! commit (the folder's fsync, PostgreSQL's transaction). The burst is
//! gathered on the runtime the store was opened in, not by the engine
//! thread. A change puts its line in the outbox, and one task hands the
//! outbox to the engine thread once the burst is made.
//!
//! The runtime says when that is. The task yields, and a yielded task runs
//! again only after every task ready on its worker has run and none was
//! left to steal from the other workers. So when it looks again and finds
//! no new line and no change being made (`Makers`), no task ready to run is
//! about to add one. A lone change is handed over after one such look. A
//! change still being made on another worker is waited for while lines keep
//! coming: no new line for one commit's time (the most waiting could save)
//! ends the wait, and no batch waits past `BURST_MAX`.
//!
//! Before, the engine thread gathered the burst itself: it parked while
//! changes were made, every change that left none in the making woke it (a
//! futex wake of about 10 µs, inside the change), and it waited a quiet gap
//! after the last line in case another was coming. 32 changes at once took
//! 2.3-2.6x one change.
//!
//! Outside a multi-thread runtime (a plain thread, or a current-thread test
//! runtime, which may not be driven when a line is queued), and once the
//! task's runtime has shut down, a line goes straight to the engine thread,
//! which takes whatever is queued at once.

use crate::burst_marks::{Step, reach};
use crate::error::StoreError;
use crate::writer::{Ack, WriterMsg};
use flybot_core::sync::lock;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::mpsc::Sender;
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::{Duration, Instant};
use tokio::runtime::{Handle, RuntimeFlavor};
use tokio::sync::Notify;

/// How long a burst's batch waits for a change being made, before any
/// commit was measured.
const STALL_FIRST: Duration = Duration::from_micros(400);
/// How long no line may come, with no change being made, before a batch
/// goes: the gap between two changes of one burst, when a task that makes
/// the next one is still being spawned or stolen by another worker.
const QUIET: Duration = Duration::from_micros(8);
/// The most a batch waits in all, from the moment its first line came.
const BURST_MAX: Duration = Duration::from_millis(2);

/// One change's journal line, newline included, and its waiter.
pub(crate) struct Line {
    pub seq: u64,
    pub t: u64,
    pub bytes: Vec<u8>,
    pub ack: Ack,
}

/// The changes being made right now: between entering `mutate` and
/// queueing their line.
#[derive(Debug, Default)]
pub(crate) struct Makers {
    count: AtomicUsize,
}

impl Makers {
    fn count(&self) -> usize {
        self.count.load(Ordering::SeqCst)
    }
}

/// Counts one change in the making for as long as it lives, or until its
/// line is queued (`done`).
pub(crate) struct Making<'a>(&'a Makers);

impl<'a> Making<'a> {
    pub(crate) fn enter(makers: &'a Makers) -> Self {
        makers.count.fetch_add(1, Ordering::SeqCst);
        Making(makers)
    }

    /// The change's line is queued: it is no longer counted.
    pub(crate) fn done(self) {}
}

impl Drop for Making<'_> {
    fn drop(&mut self) {
        self.0.count.fetch_sub(1, Ordering::SeqCst);
    }
}

/// How long the engine thread's last commit took; it bounds how long a
/// batch waits for a change that stalls.
#[derive(Debug, Default)]
pub(crate) struct CommitPace {
    last_us: AtomicU64,
}

impl CommitPace {
    pub(crate) fn record(&self, took: Duration) {
        let us = u64::try_from(took.as_micros()).unwrap_or(u64::MAX).max(1);
        self.last_us.store(us, Ordering::Relaxed);
    }

    fn stall(&self) -> Duration {
        match self.last_us.load(Ordering::Relaxed) {
            0 => STALL_FIRST,
            us => Duration::from_micros(us).min(BURST_MAX),
        }
    }
}

/// The lines waiting for the engine thread, and the task that hands them over.
pub(crate) struct Gather {
    pub(crate) makers: Makers,
    pub(crate) pace: Arc<CommitPace>,
    outbox: Mutex<Outbox>,
    /// Held from taking lines out of the outbox until they are sent, so
    /// messages reach the engine thread in the order they were queued.
    sending: Mutex<()>,
    wake: Arc<Notify>,
}

#[derive(Default)]
struct Outbox {
    lines: Vec<Line>,
    /// The engine queue the lines go to.
    to: Option<Sender<WriterMsg>>,
    /// A task on a multi-thread runtime hands the lines over.
    task: bool,
    /// The task was woken for the lines waiting.
    woken: bool,
}

impl Outbox {
    /// Takes the lines waiting, to send in one message, holding the send
    /// order (`Gather::sending`) before the outbox is let go: the send, a
    /// futex wake of the engine thread, happens outside the outbox, so a
    /// change queueing its line never waits on it.
    fn take<'g>(&mut self, sending: &'g Mutex<()>) -> Handover<'g> {
        let order = lock(sending);
        let lines = std::mem::take(&mut self.lines);
        Handover {
            to: self.to.take().filter(|_| !lines.is_empty()),
            lines,
            _order: order,
        }
    }
}

/// Lines taken from the outbox, on their way to the engine thread.
struct Handover<'g> {
    lines: Vec<Line>,
    to: Option<Sender<WriterMsg>>,
    _order: MutexGuard<'g, ()>,
}

impl Handover<'_> {
    /// Sends the lines; a queue that closed drops them, and their waiters
    /// hear the writer stopped.
    fn send(self) {
        if let Some(to) = self.to {
            let _ = to.send(WriterMsg::Lines(self.lines));
        }
    }

    /// Sends the lines, then `msg` to `engine` behind them.
    fn send_before(mut self, engine: &Sender<WriterMsg>, msg: WriterMsg) -> Result<(), StoreError> {
        if let Some(to) = self.to.take() {
            let _ = to.send(WriterMsg::Lines(std::mem::take(&mut self.lines)));
        }
        engine.send(msg).map_err(|_| StoreError::WriterStopped)
    }
}

impl Gather {
    /// A gather whose task runs on the caller's runtime, if that is a
    /// multi-thread one.
    pub(crate) fn new() -> Arc<Gather> {
        let gather = Arc::new(Gather {
            makers: Makers::default(),
            pace: Arc::default(),
            outbox: Mutex::default(),
            sending: Mutex::default(),
            wake: Arc::default(),
        });
        let runtime = Handle::try_current()
            .ok()
            .filter(|handle| handle.runtime_flavor() == RuntimeFlavor::MultiThread);
        if let Some(runtime) = runtime {
            lock(&gather.outbox).task = true;
            let wake = gather.wake.clone();
            // Made here, not in the task: a runtime that shuts down before
            // it first polls the task still drops the guard with it.
            let running = TaskRunning(Arc::downgrade(&gather));
            runtime.spawn(hand_over_bursts(running, wake));
        }
        gather
    }

    /// Queues a change's line for `engine`. Called under the team's lock,
    /// so lines queue in seq order.
    pub(crate) fn line(&self, engine: &Sender<WriterMsg>, line: Line) {
        reach(Step::Queued);
        let mut outbox = lock(&self.outbox);
        if !outbox.task {
            // Behind lines a task that just ended is still handing over.
            let _order = lock(&self.sending);
            reach(Step::HandedOver);
            let _ = engine.send(WriterMsg::Lines(vec![line]));
            return;
        }
        outbox.to.get_or_insert_with(|| engine.clone());
        outbox.lines.push(line);
        if !outbox.woken {
            outbox.woken = true;
            drop(outbox);
            self.wake.notify_one();
        }
    }

    /// Sends `msg` to `engine` behind every line queued before it.
    pub(crate) fn send(
        &self,
        engine: &Sender<WriterMsg>,
        msg: WriterMsg,
    ) -> Result<(), StoreError> {
        let waiting = lock(&self.outbox).take(&self.sending);
        waiting.send_before(engine, msg)
    }

    /// Hands the lines waiting to their engine now: called before the
    /// store's engine queue is replaced or let go.
    pub(crate) fn hand_over_now(&self) {
        let waiting = lock(&self.outbox).take(&self.sending);
        waiting.send();
    }

    fn waiting(&self) -> usize {
        lock(&self.outbox).lines.len()
    }

    /// Yields until the burst is made (see the module's comment).
    async fn burst_made(&self) {
        let started = Instant::now();
        let stall = self.pace.stall();
        let (mut seen, mut last_line) = (self.waiting(), started);
        loop {
            tokio::task::yield_now().await;
            let now = Instant::now();
            let lines = self.waiting();
            if lines != seen {
                (seen, last_line) = (lines, now);
            } else if self.makers.count() == 0 && now >= last_line + QUIET {
                return;
            }
            if now >= last_line + stall || now >= started + BURST_MAX {
                return;
            }
        }
    }
}

impl Drop for Gather {
    fn drop(&mut self) {
        // The task holds the gather weakly: woken, it finds it gone and ends.
        self.wake.notify_one();
    }
}

/// The task: each time lines wait, once their burst is made, hands them over.
async fn hand_over_bursts(running: TaskRunning, wake: Arc<Notify>) {
    let gather = running.0.clone();
    loop {
        wake.notified().await;
        let Some(gather) = gather.upgrade() else {
            return;
        };
        gather.burst_made().await;
        let waiting = {
            let mut outbox = lock(&gather.outbox);
            outbox.woken = false;
            outbox.take(&gather.sending)
        };
        reach(Step::HandedOver);
        waiting.send();
    }
}

/// Dropped when the task ends, also when its runtime shuts down: lines
/// from then on go straight to the engine thread, and those waiting go now.
struct TaskRunning(Weak<Gather>);

impl Drop for TaskRunning {
    fn drop(&mut self) {
        if let Some(gather) = self.0.upgrade() {
            let waiting = {
                let mut outbox = lock(&gather.outbox);
                outbox.task = false;
                outbox.take(&gather.sending)
            };
            waiting.send();
        }
    }
}

#[cfg(test)]
#[path = "group_commit_tests.rs"]
mod tests;
