//! `flybot pilot --runtime a2a` (issue 37, the contract's slice 5): the
//! fixture task through A2A against the real agent (the pinned `a2a-sdk`
//! serving `fixtures/a2a/agent.py` in the sandbox), then the contract's
//! 10-row matrix against fresh agents, in one report of the kind the
//! OpenCode pilot writes. Bot A's side is FlyBot's journal and its own
//! independent verification; the task ends result-ready, and only a
//! person's acceptance (`--ask-acceptance`) makes the report level 4. The
//! A2A pilot does not run in a FlyBot room: the host has no A2A Bot kind
//! yet, and the report names that boundary.

use super::run::AcceptanceAsk;
use flybot_interop::a2a::matrix::{run_matrix, seat};
use flybot_interop::a2a::{
    A2aClient, A2aSession, A2aTask, AgentProcess, PROTOCOL_VERSION, Venv, card, gaps,
};
use flybot_interop::budgets::PROPOSED;
use flybot_interop::journal::Journal;
use flybot_interop::opencode::TurnEnd;
use flybot_interop::pilot::report::{EvidenceLevel, PilotReport, accepted_report};
use flybot_interop::pilot::{fixture, script};
use flybot_interop::projection::{Observation, project};
use flybot_protocol::state::TaskStatus;
use serde_json::{Value, json};
use std::path::{Path, PathBuf};
use std::time::Instant;

/// The pilot's task id (FlyBot's, bound in the journal).
const TASK_ID: &str = "pilot-task";

/// What the A2A pilot runs with.
#[derive(Debug, Clone)]
pub struct A2aPilotConfig {
    pub venv: Venv,
    /// A temporary folder the pilot owns.
    pub home: PathBuf,
    pub command: Vec<String>,
    /// Also run the 10-row matrix (on by default on the command line).
    pub matrix: bool,
}

/// The walk's record: the room-like lines and each turn's end.
struct Walked {
    lines: Vec<Value>,
    ends: Vec<String>,
    raw: Vec<String>,
}

/// Bot A delegates, the agent asks, Bot A answers, the agent returns.
async fn walk(task: &mut A2aTask) -> Walked {
    let (_keep, mut stop) = tokio::sync::watch::channel(false);
    let mut walked = Walked {
        lines: Vec::new(),
        ends: Vec::new(),
        raw: Vec::new(),
    };
    for text in [script::DELEGATION, script::ANSWER] {
        walked
            .lines
            .push(json!({"seq": walked.lines.len() + 1, "author": "Ada", "text": text}));
        let end = task.turn(text, &mut stop, seat::TURN_LIMIT).await;
        walked.raw.extend(task.take_raw_states());
        walked.ends.push(seat::end_word(&end));
        let said = match &end {
            TurnEnd::Text { text, .. } => text.clone(),
            other => seat::end_word(other),
        };
        walked
            .lines
            .push(json!({"seq": walked.lines.len() + 1, "author": "Coder (A2A)", "text": said}));
        if !matches!(end, TurnEnd::Text { .. }) {
            break;
        }
    }
    walked
}

/// Bot A's check: the agent's changes applied to a fresh copy and tested.
async fn verify(workspace: &Path, fresh: &Path) -> Result<(Value, Value, bool), String> {
    let io = |e: std::io::Error| e.to_string();
    let changes = fixture::changes(workspace).map_err(io)?;
    let diff = fixture::diff_text(&changes);
    fixture::apply(fresh, &changes).map_err(io)?;
    let tests = fixture::run_tests(fresh).await.map_err(io)?;
    let same =
        fixture::digests_of(fresh).map_err(io)? == fixture::digests_of(workspace).map_err(io)?;
    let mut evidence = json!({
        "diff": diff,
        "diffSha256": flybot_interop::sha256_hex(diff.as_bytes()),
        "files": fixture::digests_of(workspace).map_err(io)?,
    });
    evidence["canonicalSha256"] =
        Value::String(flybot_interop::digest_of(&evidence).map_err(|e| e.to_string())?);
    let verified = tests.passed && same && !changes.is_empty();
    let verification = json!({"tests": tests, "sameFilesAsBotB": same, "verified": verified});
    Ok((evidence, verification, verified))
}

/// Whether the task's last observation is a valid result that projects to
/// result-ready (and not past it).
fn result_ready(task: &A2aTask) -> bool {
    match task.last_observation() {
        Some(observation @ Observation::ValidResult { .. }) => {
            project(TaskStatus::Working, observation)
                .is_ok_and(|p| p.moves.last() == Some(&TaskStatus::ResultReady))
        }
        _ => false,
    }
}

fn skipped(matrix: bool) -> Vec<String> {
    let mut skipped = vec![
        "a FlyBot room: the host has no A2A Bot kind yet, so Bot A's side is the journal and its own verification, not a room member".to_owned(),
        "real-model collaboration (level 3): the A2A agent is a scripted AgentExecutor, no model".to_owned(),
        "human acceptance (level 4): the task stops at result-ready; only a person accepts (--ask-acceptance)".to_owned(),
        "reconciling a lost first answer (A2A has no lookup by messageId; ListTasks by context is not built): it stays uncertain".to_owned(),
        "cross-owner transport and Bot Social: one owner, one deployment".to_owned(),
        "outbound network: the agent may listen on one loopback port and connect nowhere".to_owned(),
    ];
    if !matrix {
        skipped.push("the 10-row matrix (--no-matrix)".to_owned());
    }
    skipped
}

/// Runs the A2A pilot; `ask` asks a person to accept a verified result.
pub async fn run_a2a_pilot(
    config: A2aPilotConfig,
    ask: Option<AcceptanceAsk>,
) -> Result<PilotReport, String> {
    let started = Instant::now();
    let workspace = config.home.join("coder-workspace");
    fixture::materialize(&workspace)
        .map_err(|e| format!("the fixture could not be written: {e}"))?;
    let agent = AgentProcess::start(&config.venv, &config.home.join("agent"), &workspace)
        .await
        .map_err(|e| format!("the A2A agent could not start: {e}"))?;
    let client = A2aClient::new(agent.base()).map_err(|e| e.to_string())?;
    let card = card::fetch(&client).await.map_err(|e| e.to_string())?;
    let journal = Journal::open(&config.home.join("journal"), PROPOSED, seat::now_ms())
        .map_err(|e| e.to_string())?;
    let session = A2aSession::open(client.clone(), card.clone(), format!("flybot-{TASK_ID}"));
    let mut task = A2aTask::bind(journal, seat::parties(), TASK_ID, session, seat::now_ms)
        .map_err(|e| e.to_string())?;
    let walked = walk(&mut task).await;
    let (evidence, verification, verified) =
        verify(&workspace, &config.home.join("verify-fresh-copy")).await?;
    let ready = verified && result_ready(&task);
    let outcome = if ready {
        "result-ready".to_owned()
    } else {
        format!(
            "not verified (turn ends: {:?}, verified: {verified})",
            walked.ends
        )
    };
    let exec = task.journal().task(TASK_ID);
    let raw_status = json!({
        "taskId": TASK_ID,
        "task": if ready { vec!["working", "result-ready"] } else { vec!["working"] },
        "a2aStates": walked.raw,
        "a2aTask": task.session().task_id(),
        "a2aContext": task.session().context_id,
        "botBTurns": walked.ends,
        "journal": {"inboxCursor": task.journal().inbox_cursor(),
            "sends": task.journal().state().sends.len(),
            "turnsSubmitted": exec.map(|t| t.budget.turns_submitted),
            "usage": exec.map(|t| t.budget.usage)},
        "network": {"clientRequests": client.requests_sent(), "agentBase": agent.base()},
    });
    let matrix = if config.matrix {
        let rows = run_matrix(&config.venv, &config.home.join("matrix")).await;
        Some(serde_json::to_value(rows).map_err(|e| e.to_string())?)
    } else {
        None
    };
    let mut isolation = flybot_interop::pilot::report::isolation(Some(agent.sandbox()));
    isolation["projectConfig"] = Value::String("not applicable: the agent reads no project configuration; its source is shipped in the flybot binary and written into its own folder".to_owned());
    isolation["checks"] =
        json!(["flybot-interop::a2a_matrix (each row starts the agent in the sandbox)"]);
    let level = EvidenceLevel::RealProcessInterface;
    let report = PilotReport {
        evidence_level: level,
        evidence_level_number: level.number(),
        runtime_evidence_level: None,
        model: None,
        versions: json!({
            "flybot": env!("CARGO_PKG_VERSION"),
            "runtime": format!("a2a-sdk {} (Python), {} {}", config.venv.sdk_version, card.name, card.version),
            "a2aSdk": config.venv.sdk_version,
            "a2aProtocol": PROTOCOL_VERSION,
            "botA": "FlyBot's journal and its own verification (no model)",
            "node": fixture::node_version().await,
        }),
        schema_digest: json!({"sha256": card.digest, "of": "the agent card's canonical JSON (RFC 8785), its interface addresses left out",
            "streaming": card.streaming, "pushNotifications": card.push_notifications}),
        command: config.command.clone(),
        input_fixture: json!({"path": "crates/flybot-interop/fixtures/pilot", "sha256": fixture::fixture_digest(),
            "agent": "crates/flybot-interop/fixtures/a2a/agent.py",
            "agentSha256": flybot_interop::sha256_hex(flybot_interop::a2a::process::AGENT_SOURCE.as_bytes()),
            "testCommand": fixture::TEST_COMMAND}),
        raw_status,
        outcome,
        evidence,
        verification,
        room: walked.lines,
        isolation,
        skipped_boundaries: skipped(config.matrix),
        wall_ms: started.elapsed().as_millis() as u64,
        matrix,
        gaps: Some(serde_json::to_value(gaps::GAPS).map_err(|e| e.to_string())?),
    };
    drop(agent);
    match ask {
        Some(ask) if ready && ask(&report) => Ok(accepted_report(&report)),
        _ => Ok(report),
    }
}

/// Runs the A2A pilot once on a fresh temporary home, on its own runtime.
pub fn a2a_pilot_on_temporary_home(
    venv: Venv,
    command: Vec<String>,
    matrix: bool,
    ask: Option<AcceptanceAsk>,
) -> Result<PilotReport, String> {
    let home = tempfile::tempdir().map_err(|e| format!("no temporary home: {e}"))?;
    let config = A2aPilotConfig {
        venv,
        home: home.path().to_owned(),
        command,
        matrix,
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    runtime.block_on(run_a2a_pilot(config, ask))
}
