//! Answering the waiters of a committed batch (issue 38). The journal's
//! writer (or the PostgreSQL leader) is a thread outside the runtime, and
//! every answer it sends wakes a task from outside: a push on the runtime's
//! shared queue, often a worker woken by a syscall, and on two cores a third
//! thread contending with the two workers it just woke. Thirty-two answers
//! sent that way took 120-315 µs, as long as the fsync they followed; this
//! hop cut a burst of 32 from 698-850 µs to 670-764 µs (the median of three
//! traced runs each, 300 bursts a run).
//!
//! A batch of several lines is therefore handed, in one message, to a task
//! on the runtime the store was opened in, which answers each waiter from a
//! worker (its local queue, no syscall), while the writer goes back to its
//! queue. A lone line is answered directly: one wake either way, and the
//! hop would only add to a single change's time. Outside a multi-thread
//! runtime (a plain thread, a current-thread test runtime that may not be
//! driven when the batch ends) every batch is answered directly, and so is
//! one the task can no longer take (its runtime shut down).

use crate::burst_marks::{Step, reach};
use crate::error::StoreError;
use crate::writer::Ack;
use tokio::runtime::{Handle, RuntimeFlavor};
use tokio::sync::mpsc::{UnboundedSender, unbounded_channel};

/// A batch answered through the runtime from this many waiters up.
const HANDED_FROM: usize = 3;

type Answers = (Vec<Ack>, Result<(), StoreError>);

/// Answers a batch's waiters, from the runtime when it is worth the hop.
#[derive(Debug)]
pub(crate) struct Acker {
    runtime: Option<UnboundedSender<Answers>>,
}

impl Acker {
    /// An acker on the multi-thread runtime the caller runs in, if any.
    pub(crate) fn on_current_runtime() -> Self {
        let runtime = Handle::try_current()
            .ok()
            .filter(|handle| handle.runtime_flavor() == RuntimeFlavor::MultiThread)
            .map(|handle| {
                let (tx, mut rx) = unbounded_channel::<Answers>();
                handle.spawn(async move {
                    while let Some((acks, result)) = rx.recv().await {
                        answer_each(acks, &result);
                        reach(Step::Answered);
                    }
                });
                tx
            });
        Acker { runtime }
    }

    /// Answers every waiter of a batch with `result`.
    pub(crate) fn answer(&self, acks: Vec<Ack>, result: Result<(), StoreError>) {
        let answers = match &self.runtime {
            Some(task) if acks.len() >= HANDED_FROM => match task.send((acks, result)) {
                Ok(()) => return,
                Err(refused) => refused.0,
            },
            _ => (acks, result),
        };
        answer_each(answers.0, &answers.1);
        reach(Step::Answered);
    }
}

fn answer_each(acks: Vec<Ack>, result: &Result<(), StoreError>) {
    for ack in acks {
        let _ = ack.send(result.clone());
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;
    use tokio::sync::oneshot;

    fn waiters(n: usize) -> (Vec<Ack>, Vec<oneshot::Receiver<Result<(), StoreError>>>) {
        (0..n).map(|_| oneshot::channel()).unzip()
    }

    #[test]
    fn a_batch_is_answered_by_the_runtime_task_and_a_lone_line_directly() {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(2)
            .build()
            .unwrap();
        let acker = runtime.block_on(async { Acker::on_current_runtime() });
        assert!(
            acker.runtime.is_some(),
            "a multi-thread runtime takes the hop"
        );
        // From a thread outside the runtime, as the writer is.
        std::thread::scope(|scope| {
            scope.spawn(|| {
                let (acks, answered) = waiters(32);
                acker.answer(acks, Ok(()));
                let (one, mut alone) = waiters(1);
                acker.answer(one, Err(StoreError::WriterStopped));
                // A lone line is answered before `answer` returns.
                assert!(matches!(
                    alone[0].try_recv(),
                    Ok(Err(StoreError::WriterStopped))
                ));
                runtime.block_on(async {
                    for waiter in answered {
                        assert!(matches!(waiter.await, Ok(Ok(()))));
                    }
                });
            });
        });
    }

    #[test]
    fn a_batch_is_still_answered_once_the_runtime_is_gone_or_outside_one() {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .build()
            .unwrap();
        let acker = runtime.block_on(async { Acker::on_current_runtime() });
        drop(runtime);
        let (acks, mut answered) = waiters(8);
        acker.answer(acks, Ok(()));
        for waiter in &mut answered {
            assert!(matches!(waiter.try_recv(), Ok(Ok(()))));
        }
        // A current-thread runtime may not be driven when a batch ends.
        let current = tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap();
        let acker = current.block_on(async { Acker::on_current_runtime() });
        assert!(acker.runtime.is_none());
        let (acks, mut answered) = waiters(8);
        acker.answer(acks, Ok(()));
        assert!(matches!(answered[7].try_recv(), Ok(Ok(()))));
    }
}
