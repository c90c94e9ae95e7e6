//! `flybot store copy` (issue 35): a team moved between the home folder and
//! PostgreSQL, line for line, and checked by the journal's digests: the
//! copy is read back through the target's own load and must give the same
//! team at the same seq with the same chain digest, or the copy is refused.
//! The Session and room logs (the turn log) go with it, line for line, and
//! so do memory files, decisions, interop journals and the usage ledger
//! (`records::copy`, read back and compared whole).

use crate::engine::lease;
use crate::engine::postgres::{commit_batch, connect, journal_text, load};
use crate::error::StoreError;
use crate::journal::{Tail, base_line_bytes, parse_journal};
use crate::load::{JOURNAL_FILE, LoadOptions, STATE_FILE, load_home, write_snapshot};
use flybot_protocol::state::TeamState;
use std::path::Path;
use std::time::Duration;

/// What a copy moved, for the command to print.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Copied {
    pub seq: u64,
    pub digest: String,
    pub lines: usize,
    /// Memory files, decision and interop lines, and usage rows carried.
    pub records: usize,
}

fn same_team(a: &TeamState, b: &TeamState) -> bool {
    serde_json::to_value(a).ok() == serde_json::to_value(b).ok()
}

/// The home's team and the journal lines to carry: every line when its
/// base keeps the team (a history journal), else one base line at the
/// team's seq carrying it, with the same digest, so the chain goes on.
fn folder_lines(home: &Path, now: u64) -> Result<(TeamState, Vec<String>), StoreError> {
    let loaded = load_home(
        home,
        &LoadOptions {
            as_writer: false,
            state_journal: true,
            now_ms: now,
        },
    );
    if let Some(why) = loaded.damaged {
        return Err(format!("the home {} cannot be copied: {why}", home.display()).into());
    }
    let team = loaded.team;
    let text = std::fs::read(home.join(JOURNAL_FILE)).unwrap_or_default();
    if let Ok(parsed) = parse_journal(&text, Tail::Strict)
        && parsed.base.state.is_some()
        && parsed.last_seq() == team.journal_seq
    {
        let text = String::from_utf8(text).map_err(|e| e.to_string())?;
        return Ok((team, text.lines().map(str::to_owned).collect()));
    }
    let digest = team.journal_digest.clone().unwrap_or_default();
    let mut bytes =
        base_line_bytes(team.journal_seq, now, &digest, Some(&team)).map_err(|e| e.to_string())?;
    bytes.pop();
    let line = String::from_utf8(bytes).map_err(|e| e.to_string())?;
    Ok((team, vec![line]))
}

/// Copies a home's team into an empty PostgreSQL database.
pub async fn folder_to_postgres(home: &Path, url: &str, now: u64) -> Result<Copied, StoreError> {
    let (team, lines) = folder_lines(home, now)?;
    let mut conn = connect(url).await?;
    if load(&mut conn).await?.is_some() {
        return Err("the database already holds a team; copy into an empty database".into());
    }
    let holder = format!("store copy ({})", lease::holder_name());
    let held = lease::try_acquire(&mut conn, &holder, Duration::from_secs(60))
        .await
        .map_err(|e| e.to_string())?
        .ok_or("a FlyBot holds this database's lease; stop it before copying into it")?;
    let mut rows = Vec::with_capacity(lines.len());
    for line in &lines {
        let value: serde_json::Value = serde_json::from_str(line).map_err(|e| e.to_string())?;
        let seq = value
            .get("seq")
            .and_then(serde_json::Value::as_u64)
            .unwrap_or(0);
        let t = value
            .get("t")
            .and_then(serde_json::Value::as_u64)
            .unwrap_or(now);
        rows.push((seq, t, line.clone()));
    }
    let written = commit_batch(&mut conn, &held, &rows)
        .await
        .map_err(|e| format!("the copy did not commit: {e}"))?;
    // The Session and room logs go with the team (the turn log's rows).
    let logs = crate::turn_log::database::copy_in(&mut conn, home, held.token).await;
    let records = match logs {
        Ok(_) => crate::engine::records::copy::copy_in(&mut conn, home, held.token).await,
        Err(why) => Err(why),
    };
    let _ = lease::release(&mut conn, &held).await;
    let records = records?;
    if written != rows.len() as u64 {
        return Err("the copy was fenced by another FlyBot taking the lease".into());
    }
    let copied = load(&mut conn).await?.ok_or("the copy reads back empty")?;
    verify(&team, &copied, lines.len(), records)
}

/// Copies a PostgreSQL team into a home folder that holds none.
pub async fn postgres_to_folder(url: &str, home: &Path, now: u64) -> Result<Copied, StoreError> {
    for name in [STATE_FILE, JOURNAL_FILE] {
        if home.join(name).exists() {
            return Err(format!(
                "{} already holds {name}; copy into a home without a team",
                home.display()
            )
            .into());
        }
    }
    let mut conn = connect(url).await?;
    let team = load(&mut conn).await?.ok_or("the database holds no team")?;
    let text = journal_text(url).await?;
    crate::private::private_dirs(home).map_err(|e| e.to_string())?;
    crate::atomic::atomic_write(&home.join(JOURNAL_FILE), text.as_bytes())
        .map_err(|e| format!("the disk refused a write: {e}"))?;
    write_snapshot(home, &team)?;
    crate::turn_log::database::copy_out(&mut conn, home).await?;
    let records = crate::engine::records::copy::copy_out(&mut conn, home).await?;
    let loaded = load_home(
        home,
        &LoadOptions {
            as_writer: false,
            state_journal: true,
            now_ms: now,
        },
    );
    if let Some(why) = loaded.damaged {
        return Err(format!("the copy does not load: {why}").into());
    }
    verify(&team, &loaded.team, text.lines().count(), records)
}

fn verify(
    from: &TeamState,
    to: &TeamState,
    lines: usize,
    records: usize,
) -> Result<Copied, StoreError> {
    if from.journal_seq != to.journal_seq
        || from.journal_digest != to.journal_digest
        || !same_team(from, to)
    {
        return Err(format!(
            "the copy does not match: seq {} digest {:?} became seq {} digest {:?}",
            from.journal_seq, from.journal_digest, to.journal_seq, to.journal_digest
        )
        .into());
    }
    Ok(Copied {
        seq: to.journal_seq,
        digest: to.journal_digest.clone().unwrap_or_default(),
        lines,
        records,
    })
}
