//! `flybot envelope check FILE` and `flybot envelope digest FILE`: the
//! envelope v1 codec for anyone (issue 6). The file is read only up to the
//! envelope limit plus one byte, so the size check happens before parsing.

use anyhow::{Context, anyhow};
use clap::Subcommand;
use flybot_interop::envelope::limits::ENVELOPE_MAX_BYTES;
use flybot_interop::envelope::{Refusal, check_bytes};
use flybot_interop::{canonical_json_bytes, sha256_hex};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};

#[derive(Subcommand)]
pub enum EnvelopeCommand {
    /// Check FILE against envelope v1 and print its kind, ids and digest;
    /// a refusal exits non-zero with its code and one sentence.
    Check { file: PathBuf },
    /// Print the SHA-256 of FILE's canonical (RFC 8785) bytes, after
    /// checking it as an envelope.
    Digest {
        file: PathBuf,
        /// Print the canonical bytes instead of the digest.
        #[arg(long)]
        canonical: bool,
        /// Canonicalize any JSON, not only an envelope.
        #[arg(long)]
        any_json: bool,
    },
}

pub fn run(command: EnvelopeCommand) -> anyhow::Result<()> {
    match command {
        EnvelopeCommand::Check { file } => {
            let checked = check_bytes(&read_bounded(&file)?).map_err(refused)?;
            let envelope = &checked.envelope;
            println!(
                "valid envelope v1: kind {}, eventId {}, taskId {}, digest {}",
                envelope.kind.as_str(),
                envelope.event_id,
                envelope.task_id,
                checked.digest
            );
            Ok(())
        }
        EnvelopeCommand::Digest {
            file,
            canonical,
            any_json,
        } => {
            let bytes = read_bounded(&file)?;
            let canonical_bytes = if any_json {
                canonical_json_bytes(&bytes).map_err(|e| anyhow!("{e}."))?
            } else {
                check_bytes(&bytes).map_err(refused)?.canonical
            };
            if canonical {
                let mut out = std::io::stdout().lock();
                out.write_all(&canonical_bytes)?;
                out.write_all(b"\n")?;
            } else {
                println!("{}", sha256_hex(&canonical_bytes));
            }
            Ok(())
        }
    }
}

fn refused(refusal: Refusal) -> anyhow::Error {
    anyhow!("{}: {}", refusal.code.as_str(), refusal.message)
}

/// At most one byte past the limit: enough to know it is too large.
fn read_bounded(path: &Path) -> anyhow::Result<Vec<u8>> {
    let file =
        std::fs::File::open(path).with_context(|| format!("cannot open {}", path.display()))?;
    let mut bytes = Vec::new();
    file.take(ENVELOPE_MAX_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("cannot read {}", path.display()))?;
    Ok(bytes)
}
