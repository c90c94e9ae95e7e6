//! The process's standard output and standard error as a host must use
//! them (issue 40): a line is handed to a writer thread through a bounded
//! queue and never written on the caller's thread, so a pipe nobody reads
//! (full) cannot block the host and a pipe whose reader went away (closed)
//! cannot panic it. A line that finds the queue full, or the stream
//! closed, is dropped and counted; `unwritten()` says how many lines never
//! reached the stream (dropped, or still waiting at exit), for the
//! diagnostics log.

use std::io::Write;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{Receiver, SyncSender, sync_channel};
use std::sync::{Mutex, OnceLock};
use std::time::Duration;

/// How many lines may wait for a slow reader before new ones are dropped.
const QUEUE: usize = 4096;

/// Which standard stream a line goes to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    Out,
    Err,
}

enum Item {
    Line(Vec<u8>),
    Flush(SyncSender<()>),
}

/// One stream's queue and its writer thread.
struct Lane {
    queue: Mutex<Option<SyncSender<Item>>>,
    closed: AtomicBool,
}

static OUT: OnceLock<Lane> = OnceLock::new();
static ERR: OnceLock<Lane> = OnceLock::new();
static DROPPED: AtomicU64 = AtomicU64::new(0);
static WAITING: AtomicU64 = AtomicU64::new(0);

fn lane(stream: Stream) -> &'static Lane {
    let (cell, name) = match stream {
        Stream::Out => (&OUT, "flybot-stdout"),
        Stream::Err => (&ERR, "flybot-stderr"),
    };
    cell.get_or_init(|| {
        let (sender, receiver) = sync_channel(QUEUE);
        let started = std::thread::Builder::new()
            .name(name.to_owned())
            .spawn(move || write_lines(stream, &receiver));
        Lane {
            queue: Mutex::new(started.ok().map(|_| sender)),
            closed: AtomicBool::new(false),
        }
    })
}

/// The writer thread: each line in order, until the stream refuses one.
fn write_lines(stream: Stream, receiver: &Receiver<Item>) {
    let closed = &lane(stream).closed;
    let mut sink: Box<dyn Write> = match stream {
        Stream::Out => Box::new(std::io::stdout()),
        Stream::Err => Box::new(std::io::stderr()),
    };
    drain(receiver, &mut sink, closed);
}

/// Writes each queued line to `sink` in order; after a refused write the
/// stream counts as closed and later lines are dropped.
fn drain(receiver: &Receiver<Item>, sink: &mut dyn Write, closed: &AtomicBool) {
    for item in receiver {
        match item {
            Item::Line(bytes) => {
                let refused = closed.load(Ordering::Relaxed)
                    || sink.write_all(&bytes).and_then(|()| sink.flush()).is_err();
                if refused {
                    closed.store(true, Ordering::Relaxed);
                    DROPPED.fetch_add(1, Ordering::Relaxed);
                }
                WAITING.fetch_sub(1, Ordering::Relaxed);
            }
            Item::Flush(done) => {
                let _ = done.send(());
            }
        }
    }
}

/// Writes `bytes` to `stream` without waiting; drops and counts them when
/// the queue is full or the stream closed.
pub fn write(stream: Stream, bytes: Vec<u8>) {
    let lane = lane(stream);
    WAITING.fetch_add(1, Ordering::Relaxed);
    let sent = match lane.queue.lock() {
        Ok(queue) => queue
            .as_ref()
            .is_some_and(|q| q.try_send(Item::Line(bytes)).is_ok()),
        Err(_) => false,
    };
    if !sent {
        WAITING.fetch_sub(1, Ordering::Relaxed);
        DROPPED.fetch_add(1, Ordering::Relaxed);
    }
}

/// Prints one line on standard output (the `println!` a host may use).
pub fn say(line: impl std::fmt::Display) {
    write(Stream::Out, format!("{line}\n").into_bytes());
}

/// Prints one line on standard error.
pub fn warn(line: impl std::fmt::Display) {
    write(Stream::Err, format!("{line}\n").into_bytes());
}

/// Waits up to `limit` for the lines queued so far to be written (or
/// dropped), as a process does before it exits.
pub fn flush(limit: Duration) {
    for stream in [Stream::Out, Stream::Err] {
        let (done, wait) = sync_channel(1);
        let queued = match lane(stream).queue.lock() {
            Ok(queue) => queue
                .as_ref()
                .is_some_and(|q| q.try_send(Item::Flush(done)).is_ok()),
            Err(_) => false,
        };
        if queued {
            let _ = wait.recv_timeout(limit);
        }
    }
}

/// How many lines never reached their stream: dropped since the process
/// started, or still waiting behind a pipe nobody reads.
pub fn unwritten() -> u64 {
    DROPPED.load(Ordering::Relaxed) + WAITING.load(Ordering::Relaxed)
}

/// Whether a write to `stream` failed (its reader went away).
pub fn closed(stream: Stream) -> bool {
    lane(stream).closed.load(Ordering::Relaxed)
}

/// The `tracing` writer for standard error: each event is one queued write.
#[derive(Debug, Clone, Copy, Default)]
pub struct QueuedStderr;

impl Write for QueuedStderr {
    fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
        write(Stream::Err, bytes.to_vec());
        Ok(bytes.len())
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

impl<'a> tracing_subscriber::fmt::MakeWriter<'a> for QueuedStderr {
    type Writer = QueuedStderr;

    fn make_writer(&'a self) -> Self::Writer {
        QueuedStderr
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn a_closed_sink_drops_and_counts_every_line_from_the_first_refused_one_40() {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let (sender, receiver) = sync_channel(8);
        let before = DROPPED.load(Ordering::Relaxed);
        for line in ["one\n", "two\n", "three\n"] {
            WAITING.fetch_add(1, Ordering::Relaxed);
            sender.send(Item::Line(line.as_bytes().to_vec())).unwrap();
        }
        drop(sender);
        let closed = AtomicBool::new(false);
        drain(&receiver, &mut { writer }, &closed);
        assert!(closed.load(Ordering::Relaxed));
        assert!(DROPPED.load(Ordering::Relaxed) - before >= 3);
    }

    #[test]
    fn an_open_sink_gets_every_line_in_order_40() {
        let (mut reader, writer) = std::io::pipe().unwrap();
        let (sender, receiver) = sync_channel(8);
        for line in ["one\n", "two\n"] {
            WAITING.fetch_add(1, Ordering::Relaxed);
            sender.send(Item::Line(line.as_bytes().to_vec())).unwrap();
        }
        drop(sender);
        let closed = AtomicBool::new(false);
        drain(&receiver, &mut { writer }, &closed);
        let mut text = String::new();
        reader.read_to_string(&mut text).unwrap();
        assert_eq!(text, "one\ntwo\n");
        assert!(!closed.load(Ordering::Relaxed));
    }
}
