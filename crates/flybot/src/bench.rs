//! `flybot bench ...`: prints figures; nothing here asserts a duration.

use clap::Subcommand;

#[derive(Subcommand)]
pub enum BenchWhat {
    /// The store's durable change latency and the state read over HTTP.
    Store,
}

pub fn run(what: BenchWhat) -> anyhow::Result<()> {
    match what {
        BenchWhat::Store => anyhow::bail!("not wired yet"),
    }
}
