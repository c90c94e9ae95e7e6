//! The `flybot` command line: `serve` runs a host on a home folder, `replay`
//! rebuilds a team from a kept journal; the mock model, the envelope codec
//! and the pilot. The benchmarks are the `flybot-bench` crate's binary.
#![allow(clippy::print_stdout, clippy::print_stderr)]

/// `println!` through the console's queue (issue 40): never blocks on a
/// full pipe nor panics on a closed one.
macro_rules! say {
    ($($arg:tt)*) => { flybot_host::logging::console::say(format_args!($($arg)*)) };
}

/// `eprintln!` through the console's queue.
macro_rules! warn {
    ($($arg:tt)*) => { flybot_host::logging::console::warn(format_args!($($arg)*)) };
}

// The build script's stamp rule, compiled here for its tests (#374).
#[cfg(test)]
mod build_stamp;
mod config;
mod envelope_cmd;
mod experience_cmd;
mod listen;
mod mock_model;
mod pilot_a2a;
mod pilot_cmd;
mod serve;
mod sign_in;
mod store_cmd;

use clap::{Parser, Subcommand};
use std::path::PathBuf;
use std::process::ExitCode;

/// FlyBot: one process that hosts a team of AI Bots for you.
#[derive(Parser)]
#[command(name = "flybot", version, about, long_about = None)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand)]
enum Command {
    /// Run the host: the JSON channel on loopback over a home folder.
    Serve(serve::ServeArgs),
    /// Rebuild the team at one journal sequence number (needs
    /// `stateJournal = true` in config.toml while the journal was written).
    Replay {
        /// The journal to read, usually <home>/journal.jsonl.
        #[arg(long)]
        journal: PathBuf,
        /// The sequence number to stop at (a `revision` the host showed).
        #[arg(long)]
        to: u64,
        /// Write the team to this new file (mode 0600) instead of printing it.
        #[arg(long)]
        out: Option<PathBuf>,
    },
    /// The team's store (issue 35): `copy` between a home folder and
    /// PostgreSQL.
    Store {
        #[command(subcommand)]
        command: store_cmd::StoreCommand,
    },
    /// The built-in mock model as an OpenAI-compatible HTTP API.
    MockModel {
        #[command(subcommand)]
        command: mock_model::MockModelCommand,
    },
    /// The collaboration envelope v1 codec: check a file, print its digest.
    Envelope {
        #[command(subcommand)]
        command: envelope_cmd::EnvelopeCommand,
    },
    /// The experience library (#874 Step 2): lessons keyed by repo and
    /// tech stack under dev/experience.
    Experience {
        #[command(subcommand)]
        command: experience_cmd::ExperienceCommand,
    },
    /// Print the owner's sign-in link (and the token for curl) again.
    Token(sign_in::TokenArgs),
    /// The phase-1 room pilot (#198) on a temporary home: Bot A delegates
    /// the fixture task to Bot B (OpenCode) in a room; writes the evidence
    /// report.
    Pilot(pilot_cmd::PilotArgs),
}

fn main() -> ExitCode {
    flybot_host::init_stderr_logging();
    let cli = Cli::parse();
    let outcome = match cli.command {
        Command::Serve(args) => serve::run(args),
        Command::Replay { journal, to, out } => replay(&journal, to, out.as_deref()),
        Command::Store { command } => store_cmd::run(command),
        Command::MockModel { command } => mock_model::run(command),
        Command::Envelope { command } => envelope_cmd::run(command),
        Command::Experience { command } => experience_cmd::run(command),
        Command::Pilot(args) => pilot_cmd::run(args),
        Command::Token(args) => sign_in::print_token(args),
    };
    let code = match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            warn!("flybot: {error:#}");
            ExitCode::FAILURE
        }
    };
    // What the console still holds is written before the process ends,
    // unless its pipe takes nothing for a second.
    flybot_host::logging::console::flush(std::time::Duration::from_secs(1));
    code
}

/// Rebuilds the team at `to` from a kept journal (#511); with `--out` the
/// team goes to a new file (never over an existing one), mode 0600.
fn replay(journal: &std::path::Path, to: u64, out: Option<&std::path::Path>) -> anyhow::Result<()> {
    use anyhow::Context;
    let team = flybot_store::replay_file(journal, to)?;
    let mut bytes = serde_json::to_vec_pretty(&team)?;
    bytes.push(b'\n');
    match out {
        Some(path) => {
            flybot_store::write_new_file(path, &bytes).with_context(|| {
                format!(
                    "could not create {} (replay writes a new file only)",
                    path.display()
                )
            })?;
            say!("wrote the team at sequence {to} to {}", path.display());
        }
        None => {
            use std::io::Write;
            std::io::stdout().write_all(&bytes)?;
        }
    }
    Ok(())
}
