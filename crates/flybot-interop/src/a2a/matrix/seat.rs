//! One matrix row's seat: a fresh workspace holding the fixture, the real
//! agent started on it, its checked card, and journals for the row's
//! tasks, all under the row's folder (removed after the row).

use super::RowRun;
use crate::a2a::driver::A2aSession;
use crate::a2a::process::{AGENT_SOURCE, AgentProcess, PINNED_SDK, Venv};
use crate::a2a::{A2aClient, A2aTask, AgentCard, PROTOCOL_VERSION, card};
use crate::budgets::PROPOSED;
use crate::journal::Journal;
use crate::opencode::Parties;
use crate::opencode::driver::TurnEnd;
use crate::pilot::fixture;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::Duration;
use tokio::sync::watch;

/// A turn's time limit in the matrix (the agent answers in well under it).
pub const TURN_LIMIT: Duration = Duration::from_secs(30);

/// The row's agent and where its tasks keep their journals.
pub struct Seat {
    pub agent: AgentProcess,
    pub client: A2aClient,
    pub card: AgentCard,
    pub workspace: PathBuf,
    folder: PathBuf,
}

/// Milliseconds since the epoch: the journal's clock.
pub fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// The parties of a matrix task: Bot A asks, the A2A agent is Bot B.
pub fn parties() -> Parties {
    Parties {
        server: "flybot-room-server".to_owned(),
        requester_bot: "bot-a".to_owned(),
        worker_bot: "bot-b".to_owned(),
        owner_binding: "owner-1".to_owned(),
        runtime_installation: format!("a2a-sdk-{PINNED_SDK}"),
        conversation_id: "room-1".to_owned(),
    }
}

impl Seat {
    /// Writes the fixture into a new workspace and starts the agent on it.
    pub async fn start(venv: &Venv, folder: &Path) -> Result<Seat, String> {
        let workspace = folder.join("workspace");
        fixture::materialize(&workspace).map_err(|e| e.to_string())?;
        let agent = AgentProcess::start(venv, &folder.join("agent"), &workspace)
            .await
            .map_err(|e| e.to_string())?;
        let client = A2aClient::new(agent.base()).map_err(|e| e.to_string())?;
        let card = card::fetch(&client).await.map_err(|e| e.to_string())?;
        Ok(Seat {
            agent,
            client,
            card,
            workspace,
            folder: folder.to_owned(),
        })
    }

    /// A new folder `name` under the row's folder.
    pub fn scratch(&self, name: &str) -> PathBuf {
        self.folder.join(name)
    }

    /// The journal folder of task `id` (kept across a restart).
    pub fn journal_dir(&self, id: &str) -> PathBuf {
        self.folder.join("journals").join(id)
    }

    /// Opens (or reopens, after a restart) task `id`'s journal.
    pub fn journal(&self, id: &str) -> Result<Journal, String> {
        Journal::open(&self.journal_dir(id), PROPOSED, now_ms()).map_err(|e| e.to_string())
    }

    /// Task `id` bound over its journal, in its own A2A context.
    pub fn task(&self, id: &str) -> Result<A2aTask, String> {
        let session = A2aSession::open(
            self.client.clone(),
            self.card.clone(),
            format!("flybot-{id}"),
        );
        A2aTask::bind(self.journal(id)?, parties(), id, session, now_ms).map_err(|e| e.to_string())
    }
}

/// Runs one turn with no stop, noting the input and what ended it.
pub async fn turn(task: &mut A2aTask, text: &str, run: &mut RowRun) -> TurnEnd {
    let (_keep, mut stop) = watch::channel(false);
    run.inputs.push(text.to_owned());
    let end = task.turn(text, &mut stop, TURN_LIMIT).await;
    note_end(task, &end, run);
    end
}

/// Adds the session's raw A2A states so far and the turn's end.
pub fn note_end(task: &mut A2aTask, end: &TurnEnd, run: &mut RowRun) {
    run.raw_status.extend(task.take_raw_states());
    run.raw_status.push(format!("turn end: {}", end_word(end)));
}

/// A turn's end in a word or two, for raw statuses.
pub fn end_word(end: &TurnEnd) -> String {
    match end {
        TurnEnd::Text { reported, .. } => format!("text ({reported:?})"),
        TurnEnd::Refused { permission } => format!("refused ({permission})"),
        TurnEnd::Stopped { observed } => format!("stopped (observed: {observed})"),
        TurnEnd::Failed { detail } => format!("failed ({detail})"),
        TurnEnd::Blocked { reason } => format!("blocked ({reason})"),
        TurnEnd::Uncertain { detail } => format!("uncertain ({detail})"),
    }
}

/// The versions a row ran with.
pub fn versions(venv: &Venv, card: Option<&AgentCard>) -> Value {
    json!({
        "flybot": env!("CARGO_PKG_VERSION"),
        "a2aSdk": venv.sdk_version,
        "a2aProtocol": PROTOCOL_VERSION,
        "agent": card.map(|c| format!("{} {}", c.name, c.version)),
    })
}

/// The input fixture: the task's files, the agent's source and the texts.
pub fn fixture(inputs: &[String]) -> Value {
    json!({
        "fixtureDigest": fixture::fixture_digest(),
        "agentSourceSha256": crate::sha256_hex(AGENT_SOURCE.as_bytes()),
        "inputs": inputs,
    })
}

/// The row failed: `why`, with what it saw.
pub fn fail(mut run: RowRun, why: impl Into<String>) -> Result<RowRun, RowRun> {
    run.outcome = why.into();
    Err(run)
}
