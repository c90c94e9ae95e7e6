//! `flybot store copy` (issue 35): a team moved from a home folder to a
//! PostgreSQL database or back, checked by the journal's digests.

use anyhow::Context;
use clap::Subcommand;
use flybot_store::engine::copy::{folder_to_postgres, postgres_to_folder};
use flybot_store::engine::is_postgres_url;
use std::path::Path;

#[derive(Subcommand)]
pub enum StoreCommand {
    /// Copy a team between a home folder and a PostgreSQL database (either
    /// way); the target must hold no team, and no FlyBot may be running on
    /// the source. The copy is read back and its digest checked.
    Copy {
        /// A home folder or a postgres://user@host:port/database URL.
        #[arg(long)]
        from: String,
        /// A home folder or a postgres://user@host:port/database URL.
        #[arg(long)]
        to: String,
    },
}

pub fn run(command: StoreCommand) -> anyhow::Result<()> {
    let StoreCommand::Copy { from, to } = command;
    let runtime = tokio::runtime::Runtime::new().context("could not start the async runtime")?;
    let now = flybot_store::system_now_ms();
    let copied = runtime.block_on(async {
        match (is_postgres_url(&from), is_postgres_url(&to)) {
            (false, true) => Ok(folder_to_postgres(Path::new(&from), &to, now).await?),
            (true, false) => Ok(postgres_to_folder(&from, Path::new(&to), now).await?),
            _ => Err(anyhow::anyhow!(
                "give one home folder and one postgres:// URL"
            )),
        }
    })?;
    say!(
        "copied {} journal lines and {} records (memory files, decision and interop lines, usage rows); the team is at seq {} with digest {} on both sides",
        copied.lines,
        copied.records,
        copied.seq,
        copied.digest
    );
    Ok(())
}
