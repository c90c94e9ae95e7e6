//! `flybot bench ...`: prints figures; nothing here asserts a duration.

use clap::Subcommand;

#[derive(Subcommand)]
pub enum BenchWhat {
    /// The store's durable change latency and the state read over HTTP.
    Store,
    /// The workflow engine: validate and plan_job on a 200-node definition.
    Workflow,
    /// The task board read on 10,000 cards and 1,000 claims racing on 8 queues.
    Tasks,
    /// The OpenAI-compatible client's SSE parse throughput against the mock
    /// model served on loopback.
    Model,
    /// Host time per turn of 3 tool calls against a zero-latency model.
    Turn,
    /// A room: prompt characters by room size, model calls per line, host
    /// time per round (issue 5).
    Room,
    /// Envelopes per second through check + canonicalize + digest, small and
    /// 32 KiB (issue 6).
    Envelope,
    /// The room pilot's wall time with the fake OpenCode, and with the real
    /// pinned one when it is installed (issue 6).
    Pilot,
}

pub fn run(what: BenchWhat) -> anyhow::Result<()> {
    match what {
        BenchWhat::Store => crate::bench_store::run(),
        BenchWhat::Workflow => crate::bench_workflow::run(),
        BenchWhat::Tasks => crate::bench_tasks::run(),
        BenchWhat::Model => crate::bench_model::run(),
        BenchWhat::Turn => crate::bench_turn::run(),
        BenchWhat::Room => crate::bench_room::run(),
        BenchWhat::Envelope => crate::bench_envelope::run(),
        BenchWhat::Pilot => crate::bench_pilot::run(),
    }
}
