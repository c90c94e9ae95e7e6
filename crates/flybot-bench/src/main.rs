//! `flybot-bench`: prints FlyBot's performance figures, one area per
//! subcommand; nothing here asserts a duration. It builds its own fixtures
//! on the crates' test support (the scripted model, the fake OpenCode),
//! which is why it is a binary of its own and not a `flybot` subcommand.
#![allow(clippy::print_stdout, clippy::print_stderr)]

mod attachments;
mod autogen_peer;
mod channel;
mod connectors;
mod envelope;
mod figures;
mod forwarder;
mod goals;
mod harness;
mod mcp_fixture;
mod memory;
mod model;
mod pilot;
mod postgres;
mod room;
mod room_read;
mod sandbox;
mod schedules;
mod search;
mod sessions;
mod social;
mod store;
mod tasks;
mod tracer;
mod ttft;
mod turn;
mod turn_sync;
mod workflow;

use clap::{Parser, Subcommand};
use std::process::ExitCode;

/// Prints FlyBot's performance figures.
#[derive(Parser)]
#[command(name = "flybot-bench", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    what: BenchWhat,
}

#[derive(Subcommand)]
enum BenchWhat {
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
    /// The turn path's syncs and opens per turn and host time per member
    /// turn, on this disk and on a slow one (issue 19).
    TurnSync,
    /// A room: prompt characters by room size, model calls per line, host
    /// time per round (issue 5).
    Room,
    /// Envelopes per second through check + canonicalize + digest, small and
    /// 32 KiB (issue 6).
    Envelope,
    /// The context steward over 500 turns in a 16,000-token window, and
    /// recall time over 10,000 memory entries (issue 16).
    Memory,
    /// Scheduled tasks: the next due task among 10,000, one tick with 100
    /// due at once, and the memory the tasks add (issue 15).
    Schedules,
    /// Resident memory after 1,000 and 10,000 turns over 1,000 Bots, and
    /// the time to first token the host adds over the llama.cpp server
    /// (issue 13).
    Sessions,
    /// The time to first token the host adds over the llama.cpp server
    /// alone (the second half of `sessions`).
    Ttft,
    /// Connectors (issue 17): mount time of a 50-tool stdio MCP server, the
    /// latency per tool call, the prompt characters own chat vs room turn.
    Connectors,
    /// Search (issue 31): the median query over 100,000 indexed lines.
    Search,
    /// The sandbox's cost per shell call: spawn to exit of `true`, plain
    /// and sandboxed, median and p99 (issue 30).
    Sandbox,
    /// Attachments (issue 32): upload and store of a 5 MB image, its
    /// thumbnail, Tesseract on a 1280x800 screenshot, and the image part
    /// of a 12-megapixel photo after downscaling.
    Attachments,
    /// Harness tiers (#874): prompt characters and tool calls per turn at
    /// each tier on the same task (scripted mock).
    Harness,
    /// Bot Social (issue 33): a line to another home's Bot and its answer
    /// back through Synapse on loopback, beside the same turn in one home.
    Social,
    /// The page's read of a 10,000-line room from its end (issue 38).
    RoomRead,
    /// Every speed goal of issue 38 in one run: member turn beside AutoGen,
    /// 32 at once, the state view at 10,000 tasks, time to first token, the
    /// read of a 10,000-line room.
    Goals,
    /// The store on PostgreSQL (issue 35): one change against the commit
    /// floor, 32 at once, the state read at 10,000 tasks, the failover time.
    Postgres,
    /// The leader process `postgres` kills (not a figure).
    #[command(hide = true)]
    PostgresLeader {
        url: String,
        home: std::path::PathBuf,
    },
    /// The 50-tool MCP server `connectors` mounts (stdio; not a figure).
    #[command(hide = true)]
    McpFixture,
    /// The room pilot's wall time with the fake OpenCode, and with the real
    /// pinned one when it is installed (issue 6).
    Pilot,
}

fn main() -> ExitCode {
    flybot_host::init_stderr_logging();
    let outcome = match Cli::parse().what {
        BenchWhat::Store => store::run(),
        BenchWhat::Workflow => workflow::run(),
        BenchWhat::Tasks => tasks::run(),
        BenchWhat::Model => model::run(),
        BenchWhat::Turn => turn::run(),
        BenchWhat::TurnSync => turn_sync::run(),
        BenchWhat::Room => room::run(),
        BenchWhat::Envelope => envelope::run(),
        BenchWhat::Pilot => pilot::run(),
        BenchWhat::Memory => memory::run(),
        BenchWhat::Schedules => schedules::run(),
        BenchWhat::Sessions => sessions::run(),
        BenchWhat::Ttft => sessions::run_ttft(),
        BenchWhat::Connectors => connectors::run(),
        BenchWhat::Search => search::run(),
        BenchWhat::Sandbox => sandbox::run(),
        BenchWhat::Attachments => attachments::run(),
        BenchWhat::Harness => harness::run(),
        BenchWhat::Social => social::run(),
        BenchWhat::RoomRead => room_read::run(),
        BenchWhat::Goals => goals::run(),
        BenchWhat::McpFixture => mcp_fixture::serve(),
        BenchWhat::Postgres => postgres::run(),
        BenchWhat::PostgresLeader { url, home } => postgres::lead(&url, &home),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("flybot-bench: {error:#}");
            ExitCode::FAILURE
        }
    }
}
