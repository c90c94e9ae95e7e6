#![allow(clippy::unwrap_used)]
use super::*;
use std::sync::mpsc::{Receiver, Sender, channel};
use tokio::runtime::{Builder, Runtime};

fn runtime(workers: usize) -> Runtime {
    Builder::new_multi_thread()
        .worker_threads(workers)
        .build()
        .unwrap()
}

/// A gather whose task runs on a runtime of `workers` workers, and the
/// engine queue it hands over to.
fn gather_on(workers: usize) -> (Runtime, Arc<Gather>, Sender<WriterMsg>, Receiver<WriterMsg>) {
    let rt = runtime(workers);
    let gather = rt.block_on(async { Gather::new() });
    let (tx, rx) = channel();
    (rt, gather, tx, rx)
}

fn line(seq: u64) -> Line {
    let (ack, _) = tokio::sync::oneshot::channel();
    Line {
        seq,
        t: seq,
        bytes: format!("{{\"seq\":{seq}}}\n").into_bytes(),
        ack,
    }
}

/// What the engine thread received, a message at a time: the seqs of each
/// batch of lines, and `0` for a barrier.
fn received(rx: &Receiver<WriterMsg>) -> Vec<Vec<u64>> {
    rx.try_iter()
        .map(|msg| match msg {
            WriterMsg::Lines(lines) => lines.iter().map(|l| l.seq).collect(),
            _ => vec![0],
        })
        .collect()
}

/// Waits (blocking, off the runtime) for the engine's next message.
fn next(rx: &Receiver<WriterMsg>) -> Vec<u64> {
    match rx.recv_timeout(Duration::from_secs(10)).unwrap() {
        WriterMsg::Lines(lines) => lines.iter().map(|l| l.seq).collect(),
        _ => vec![0],
    }
}

#[test]
fn a_lone_change_is_handed_over_once_the_runtime_has_nothing_else_to_run() {
    let (rt, gather, tx, rx) = gather_on(2);
    rt.block_on(async {
        let making = Making::enter(&gather.makers);
        making.done();
        gather.line(&tx, line(1));
    });
    assert_eq!(next(&rx), vec![1]);
    assert!(received(&rx).is_empty());
}

/// The burst of the store bench: 32 tasks spawned at once, each making a
/// change that yields to the runtime (as one waiting for its turn does)
/// before its line is queued with the next seq. They are spawned from a
/// task on the one worker, so none runs before all are spawned and the
/// order is certain however busy the machine is; the 32 lines reach the
/// engine thread in one message, in seq order.
#[test]
fn a_burst_of_changes_made_at_once_goes_to_the_engine_in_one_message() {
    let (rt, gather, tx, rx) = gather_on(1);
    let seqs = Arc::new(AtomicU64::new(0));
    let spawner = (gather.clone(), tx.clone(), seqs.clone());
    rt.block_on(async move {
        let (gather, tx, seqs) = spawner;
        tokio::spawn(async move {
            let mut set = tokio::task::JoinSet::new();
            for _ in 0..32 {
                let (gather, tx, seqs) = (gather.clone(), tx.clone(), seqs.clone());
                set.spawn(async move {
                    let making = Making::enter(&gather.makers);
                    tokio::task::yield_now().await;
                    making.done();
                    let seq = seqs.fetch_add(1, Ordering::SeqCst) + 1;
                    gather.line(&tx, line(seq));
                });
            }
            while set.join_next().await.is_some() {}
        })
        .await
        .unwrap();
    });
    assert_eq!(next(&rx), (1..=32).collect::<Vec<_>>());
    assert!(received(&rx).is_empty());
}

/// A change still being made holds the batch only as long as one commit
/// could save: one that never queues its line does not hold the others.
#[test]
fn a_change_that_stalls_holds_the_batch_no_longer_than_one_commit() {
    let (rt, gather, tx, rx) = gather_on(2);
    gather.pace.record(Duration::from_micros(300));
    let stalled = Making::enter(&gather.makers);
    rt.block_on(async { gather.line(&tx, line(1)) });
    assert_eq!(
        next(&rx),
        vec![1],
        "handed over while a change is still made"
    );
    drop(stalled);
}

#[test]
fn a_barrier_goes_to_the_engine_behind_the_lines_queued_before_it() {
    let (rt, gather, tx, rx) = gather_on(2);
    // A change still being made keeps the lines in the outbox.
    let stalled = Making::enter(&gather.makers);
    gather.pace.record(Duration::from_secs(1));
    rt.block_on(async {
        gather.line(&tx, line(1));
        gather.line(&tx, line(2));
        let (ack, _) = tokio::sync::oneshot::channel();
        gather.send(&tx, WriterMsg::Barrier(ack)).unwrap();
    });
    let order: Vec<u64> = received(&rx).concat();
    assert_eq!(order, vec![1, 2, 0]);
    drop(stalled);
}

#[test]
fn lines_go_straight_to_the_engine_outside_a_runtime_and_once_it_shut_down() {
    // No runtime: each line at once.
    let (tx, rx) = channel();
    let plain = Gather::new();
    plain.line(&tx, line(1));
    assert_eq!(received(&rx), vec![vec![1]]);
    // A current-thread runtime may not be driven when a line is queued.
    let current = Builder::new_current_thread().build().unwrap();
    let gather = current.block_on(async { Gather::new() });
    gather.line(&tx, line(2));
    assert_eq!(received(&rx), vec![vec![2]]);
    // Once the task's runtime shut down, lines go straight.
    let rt = runtime(1);
    let gather = rt.block_on(async { Gather::new() });
    drop(rt);
    gather.line(&tx, line(3));
    assert_eq!(received(&rx), vec![vec![3]]);
}

#[test]
fn lines_waiting_when_the_task_ends_are_handed_over() {
    let (tx, rx) = channel();
    let gather = Gather::new();
    lock(&gather.outbox).task = true;
    gather.line(&tx, line(1));
    gather.line(&tx, line(2));
    assert!(received(&rx).is_empty(), "held for the task");
    drop(TaskRunning(Arc::downgrade(&gather)));
    assert_eq!(received(&rx), vec![vec![1, 2]]);
    gather.line(&tx, line(3));
    assert_eq!(received(&rx), vec![vec![3]]);
}
