//! The pilot's steps, in order, on a temporary home. Each step that can
//! fail says which one it was; the report keeps every raw status seen.

use super::member::OpenCodeMember;
use crate::actor::Caller;
use crate::host::{Host, HostConfig};
use crate::rooms::agent::AgentParticipant;
use crate::rooms::opencode::launcher::{self, OpenCodeRuntime, Started};
use crate::rooms::runner::run_round;
use flybot_agent::model::config::ProviderRegistry;
use flybot_agent::model::mock::{MockModel, Scenario};
use flybot_core::access::Actor;
use flybot_core::fences::readable_body;
use flybot_core::rooms::log::{AuthorKind, LineKind, RoomLine};
use flybot_core::sync::lock;
use flybot_interop::budgets::PROPOSED;
use flybot_interop::journal::Journal;
use flybot_interop::opencode::config::ModelEndpoint;
use flybot_interop::opencode::fake::FakeOpenCode;
use flybot_interop::opencode::{
    JournaledTask, OpenCodeClient, Parties, TurnEnd, check_doc_against,
};
use flybot_interop::pilot::fixture;
use flybot_interop::pilot::report::{EvidenceLevel, PilotReport, skipped_boundaries};
use flybot_interop::pilot::script;
use flybot_interop::projection::Observation;
use flybot_protocol::state::TaskStatus;
use flybot_store::room_log::NewLine;
use flybot_store::{Store, StoreOptions};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Instant;

/// Which OpenCode speaks for Bot B.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PilotRuntime {
    /// The scripted fake OpenCode (evidence level 1).
    Fake,
    /// The real pinned `opencode serve` (evidence level 2): its binary and
    /// how it was found.
    OpenCode { binary: PathBuf, found_by: String },
}

/// What the pilot runs with.
#[derive(Debug, Clone)]
pub struct PilotConfig {
    pub runtime: PilotRuntime,
    /// A temporary folder the pilot owns.
    pub home: PathBuf,
    /// The exact command line, for the report.
    pub command: Vec<String>,
}

/// Test hooks: Bot B's scripted steps on the fake, and private markers
/// seeded into Bot A's side (its instructions, another room's line, the
/// owner's line there) that must never reach Bot B.
#[derive(Debug, Clone, Default)]
pub struct PilotProbe {
    pub fake_steps: Option<Vec<flybot_interop::opencode::fake::FakeStep>>,
    pub private_markers: Vec<String>,
}

/// Rounds the pilot runs at most.
const MAX_ROUNDS: usize = 10;

async fn call(host: &Host, endpoint: &str, body: Value) -> Result<Value, String> {
    let bytes = serde_json::to_vec(&body).map_err(|e| e.to_string())?;
    crate::endpoints::call(host, &Caller::Actor(Actor::SingleOwner), endpoint, &bytes)
        .await
        .map_err(|e| {
            format!(
                "{endpoint}: {}",
                serde_json::to_string(&e).unwrap_or_default()
            )
        })
}

fn str_at(value: &Value, pointer: &str) -> Result<String, String> {
    value
        .pointer(pointer)
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| format!("no {pointer} in {value}"))
}

/// Bot B's runtime, started through the host's launcher (the same start an
/// OpenCode Bot's seat uses), with the report's versions and level.
struct Runtime {
    started: Started,
    versions: Value,
    level: EvidenceLevel,
}

async fn start_runtime(
    config: &PilotConfig,
    workspace: &std::path::Path,
    probe: &PilotProbe,
) -> Result<Runtime, String> {
    let (runtime, model, versions, level) = match &config.runtime {
        PilotRuntime::Fake => (
            OpenCodeRuntime::Fake(probe.fake_steps.clone().unwrap_or_else(script::fake_steps)),
            // The fake calls no model.
            ModelEndpoint {
                base_url: String::new(),
                model: String::new(),
            },
            json!({}),
            EvidenceLevel::OfflineMock,
        ),
        PilotRuntime::OpenCode { binary, found_by } => (
            OpenCodeRuntime::Pinned(binary.clone()),
            super::real::start_mock_for_opencode().await?,
            json!({"opencodeBinary": binary, "foundBy": found_by}),
            EvidenceLevel::RealProcessInterface,
        ),
    };
    let test_command: Vec<String> = fixture::TEST_COMMAND
        .iter()
        .map(|s| (*s).to_owned())
        .collect();
    let started = launcher::start(
        &runtime,
        &config.home.join("opencode"),
        workspace,
        &model,
        &test_command,
    )
    .await?;
    let mut versions = versions;
    versions["opencode"] = Value::String(started.version.clone());
    Ok(Runtime {
        started,
        versions,
        level,
    })
}

fn line_view(line: &RoomLine, names: &[(String, String)]) -> Value {
    let author = names
        .iter()
        .find(|(id, _)| *id == line.author_id)
        .map_or(line.author_id.as_str(), |(_, n)| n.as_str());
    let fenced = flybot_core::fences::unwrap_fence(&line.text).is_some();
    json!({"seq": line.seq, "author": author, "kind": line.kind, "text": readable_body(&line.text), "fenced": fenced})
}

fn end_view(end: &TurnEnd) -> Value {
    match end {
        TurnEnd::Text { message_id, .. } => json!({"end": "text", "messageId": message_id}),
        TurnEnd::Refused { permission } => json!({"end": "refused", "permission": permission}),
        TurnEnd::Stopped { observed } => {
            json!({"end": "stopped", "cancel": if *observed {"observed"} else {"requested"}})
        }
        TurnEnd::Failed { detail } => json!({"end": "failed", "detail": detail}),
        TurnEnd::Blocked { reason } => json!({"end": "blocked", "reason": reason}),
        TurnEnd::Uncertain { detail } => {
            json!({"end": "uncertain", "recovery": "uncertain", "detail": detail})
        }
    }
}

/// Bot B's last turn's observation (the projection table's input).
fn latest_observation(member: &OpenCodeMember) -> Option<Observation> {
    lock(&member.observations).last().cloned().flatten()
}

/// Bot B's `index`-th turn's observation.
fn observation_at(member: &OpenCodeMember, index: usize) -> Option<Observation> {
    lock(&member.observations).get(index).cloned().flatten()
}

/// A finished pilot: its report, and the host still running, so a person
/// can accept or reject the result (`task-accept-result`, `task-cancel`).
pub struct PilotRun {
    pub report: PilotReport,
    pub host: Host,
    pub task_id: String,
    /// Every prompt the fake OpenCode received (empty on the real one).
    pub runtime_prompts: Vec<String>,
    _runtime: Runtime,
}

/// Runs the pilot and answers its report.
pub async fn run_pilot(config: PilotConfig) -> Result<PilotRun, String> {
    run_pilot_probed(config, PilotProbe::default()).await
}

/// The pilot with test hooks.
pub async fn run_pilot_probed(config: PilotConfig, probe: PilotProbe) -> Result<PilotRun, String> {
    let started = Instant::now();
    let io = |what: &str| {
        let what = what.to_owned();
        move |e: std::io::Error| format!("{what}: {e}")
    };
    let workspace = config.home.join("coder-workspace");
    fixture::materialize(&workspace).map_err(io("the fixture could not be written"))?;
    let runtime = start_runtime(&config, &workspace, &probe).await?;
    let client = OpenCodeClient::new(&runtime.started.base).map_err(|e| e.to_string())?;
    let doc = client.doc().await.map_err(|e| format!("GET /doc: {e}"))?;
    let check = check_doc_against(&doc, &runtime.started.pin);
    let schema = json!({"sha256": check.digest, "pinned": check.pinned,
        "missing": check.missing.iter().map(|c| c.name()).collect::<Vec<_>>()});

    // The host, with Bot A on the mock model and its scenario.
    let scenario = Scenario::from_json(&script::bot_a_scenario()).map_err(|e| e.to_string())?;
    let host_home = config.home.join("host");
    let store = Store::open(&host_home, StoreOptions::default()).map_err(|e| e.to_string())?;
    let mut host_config = HostConfig::new(host_home);
    host_config.models = Arc::new(ProviderRegistry::with_mock(MockModel::with_scenario(
        scenario,
    )));
    let host = Host::new(store, host_config);
    let ada_instructions = probe.private_markers.join(" ");
    let ada = call(
        &host,
        "create-bot",
        json!({"name": "Ada", "model": "mock", "instructions": ada_instructions}),
    )
    .await?;
    let ada = str_at(&ada, "/bot/id")?;
    let coder = call(
        &host,
        "create-bot",
        json!({"name": "Coder", "model": "mock",
        "instructions": "External coding agent (OpenCode) for the pilot."}),
    )
    .await?;
    let coder = str_at(&coder, "/bot/id")?;
    let room = call(
        &host,
        "create-room",
        json!({"name": "Pilot", "members": [ada, coder], "admin": ada}),
    )
    .await?;
    let room_id = str_at(&room, "/room/id")?;
    if !probe.private_markers.is_empty() {
        let other = call(
            &host,
            "create-room",
            json!({"name": "Private", "members": [ada], "admin": ada}),
        )
        .await?;
        let other = str_at(&other, "/room/id")?;
        for marker in &probe.private_markers {
            host.rooms()
                .append(
                    &other,
                    NewLine {
                        author_id: ada.clone(),
                        author_kind: AuthorKind::LocalBot,
                        kind: LineKind::Chat,
                        text: format!("private note {marker}"),
                        at: flybot_store::system_now_ms(),
                        hop: 0,
                    },
                )
                .map_err(io("the private room's log"))?;
        }
    }
    let task = call(
        &host,
        "task-create",
        json!({"botId": ada, "roomId": room_id,
        "title": "Fixture task: make slugify's tests pass (phase-1 pilot)"}),
    )
    .await?;
    let task_id = str_at(&task, "/task/id")?;
    let mut statuses = vec![json!({"task": str_at(&task, "/task/status")?})];
    for endpoint in ["task-accept", "task-start"] {
        let moved = call(&host, endpoint, json!({"id": task_id})).await?;
        statuses.push(json!({endpoint: str_at(&moved, "/task/status")?}));
    }

    // Bot B's execution journal: one writer over the pilot's own folder.
    let journal = Journal::open(&config.home, PROPOSED, flybot_store::system_now_ms())
        .map_err(|e| e.to_string())?;
    let parties = Parties {
        server: "flybot-room".to_owned(),
        requester_bot: ada.clone(),
        worker_bot: coder.clone(),
        owner_binding: "single-owner".to_owned(),
        runtime_installation: runtime.versions["opencode"]
            .as_str()
            .unwrap_or("opencode")
            .to_owned(),
        conversation_id: room_id.clone(),
    };
    let session = JournaledTask::bind(
        journal,
        parties,
        &task_id,
        client.clone(),
        check.clone(),
        flybot_store::system_now_ms,
    )
    .map_err(|e| format!("Bot B's journal: {e}"))?;
    let member = OpenCodeMember {
        agent: AgentParticipant {
            sessions: host.sessions().clone(),
        },
        bot_id: coder.clone(),
        name: "Coder".to_owned(),
        task: tokio::sync::Mutex::new(session),
        stop: tokio::sync::watch::channel(false).0,
        ends: Mutex::new(Vec::new()),
        observations: Mutex::new(Vec::new()),
        running: Mutex::new(false),
    };

    // The person's line opens the collaboration; rounds follow the lines.
    let owner = host
        .store()
        .read(|s| Actor::SingleOwner.member_id(s))
        .unwrap_or_default();
    let opener = host
        .rooms()
        .append(&room_id, NewLine {
            author_id: owner,
            author_kind: AuthorKind::Human,
            kind: LineKind::Chat,
            text: format!("@Ada please delegate the fixture task {task_id} to @Coder and verify the result."),
            at: flybot_store::system_now_ms(),
            hop: 0,
        })
        .map_err(io("the room log"))?;
    let store = host.store().clone();
    let read = move || store.read(|s| s.clone());
    let now = flybot_store::system_now_ms;
    let mut next = opener.seq;
    let mut question_id: Option<String> = None;
    let mut answered = false;
    for _ in 0..MAX_ROUNDS {
        run_round(host.rooms(), &member, &read, &now, &room_id, next).await;
        let lines = host.rooms().lines(&room_id).map_err(io("the room log"))?;
        for line in lines
            .iter()
            .filter(|l| l.seq > next && l.kind == LineKind::Chat)
        {
            // Bot B's n-th line is its n-th turn's end.
            let nth = lines
                .iter()
                .filter(|l| l.seq <= line.seq && l.author_id == coder && l.kind == LineKind::Chat)
                .count();
            let asked = observation_at(&member, nth.wrapping_sub(1))
                .filter(|o| matches!(o, Observation::WaitingForInput { .. }));
            if let (true, Some(observation)) =
                (line.author_id == coder && question_id.is_none(), asked)
            {
                let endpoint =
                    crate::rooms::opencode::seam::endpoint_for(TaskStatus::Working, &observation)?;
                let waiting = call(
                    &host,
                    endpoint,
                    json!({"id": task_id, "question": readable_body(&line.text)}),
                )
                .await?;
                statuses.push(json!({"task-wait-input": str_at(&waiting, "/task/status")?}));
                question_id = Some(str_at(&waiting, "/task/inputRequest/id")?);
            } else if line.author_id == ada && question_id.is_some() && !answered {
                let qid = question_id.clone().unwrap_or_default();
                let endpoint = crate::rooms::opencode::seam::endpoint_for(
                    TaskStatus::Blocked,
                    &Observation::InputAnswered,
                )?;
                let resumed = call(
                    &host,
                    endpoint,
                    json!({"id": task_id, "questionId": qid, "answer": readable_body(&line.text)}),
                )
                .await?;
                statuses.push(json!({"task-answer-input": str_at(&resumed, "/task/status")?}));
                answered = true;
            }
        }
        match lines
            .iter()
            .rfind(|l| l.seq > next && l.kind == LineKind::Chat)
        {
            Some(line)
                if !(line.author_id == coder && readable_body(&line.text).starts_with("DONE")) =>
            {
                next = line.seq
            }
            _ => break,
        }
    }
    let lines = host.rooms().lines(&room_id).map_err(io("the room log"))?;
    let done = lines
        .iter()
        .any(|l| l.author_id == coder && readable_body(&l.text).starts_with("DONE"));

    // Bot B's evidence: its workspace against the fixture, its test run.
    let changes = fixture::changes(&workspace).map_err(io("Bot B's workspace"))?;
    let diff = fixture::diff_text(&changes);
    let b_tests = fixture::run_tests(&workspace)
        .await
        .map_err(io("Bot B's tests"))?;
    let mut evidence = json!({
        "diff": diff,
        "diffSha256": flybot_interop::sha256_hex(diff.as_bytes()),
        "files": fixture::digests_of(&workspace).map_err(io("Bot B's workspace"))?,
        "tests": b_tests,
    });
    // The contract's one digest rule (RFC 8785 canonical JSON, SHA-256)
    // over the evidence as returned.
    let canonical = flybot_interop::digest_of(&evidence).map_err(|e| e.to_string())?;
    evidence["canonicalSha256"] = Value::String(canonical);
    // Bot A's own check: a fresh copy of the fixture with Bot B's changes.
    let fresh = config.home.join("verify-fresh-copy");
    fixture::apply(&fresh, &changes).map_err(io("the fresh copy"))?;
    let a_tests = fixture::run_tests(&fresh)
        .await
        .map_err(io("the fresh copy's tests"))?;
    let same_files = fixture::digests_of(&fresh).map_err(io("the fresh copy"))?
        == fixture::digests_of(&workspace).map_err(io("Bot B's workspace"))?;
    // The last observation must be a valid result the table projects.
    let returned = latest_observation(&member)
        .filter(|o| matches!(o, Observation::ValidResult { .. }))
        .map(|o| crate::rooms::opencode::seam::endpoint_for(TaskStatus::Working, &o))
        .transpose()?;
    // The network guard: an outbound call from the real child fails the run.
    let egress = runtime
        .started
        .trap
        .as_ref()
        .map(flybot_interop::egress::EgressTrap::attempts)
        .unwrap_or_default();
    let verified = egress.is_empty()
        && done
        && answered
        && returned.is_some()
        && a_tests.passed
        && b_tests.passed
        && same_files
        && !changes.is_empty();
    let verification =
        json!({"tests": a_tests, "sameFilesAsBotB": same_files, "verified": verified});

    let outcome = if verified {
        let summary = format!(
            "Verified in a fresh copy: {} ({}); diff sha256 {}.",
            a_tests.command.join(" "),
            a_tests.summary.join(", "),
            flybot_interop::sha256_hex(diff.as_bytes())
        );
        let ready = call(
            &host,
            returned.unwrap_or("task-return"),
            json!({"id": task_id, "summary": summary}),
        )
        .await?;
        let status = str_at(&ready, "/task/status")?;
        statuses.push(json!({"task-return": status}));
        status
    } else {
        format!(
            "not verified (done: {done}, answered: {answered}, tests in a fresh copy passed: {}, outbound calls: {egress:?})",
            a_tests.passed
        )
    };
    let names = vec![
        (ada.clone(), "Ada".to_owned()),
        (coder.clone(), "Coder".to_owned()),
        (opener.author_id.clone(), "Owner".to_owned()),
    ];
    let (session_id, journal_view) = {
        let task = member.task.lock().await;
        let exec = task.journal().task(&task_id);
        (
            task.session_id().map(str::to_owned),
            json!({"inboxCursor": task.journal().inbox_cursor(),
                "sends": task.journal().state().sends.len(),
                "turnsSubmitted": exec.map(|t| t.budget.turns_submitted),
                "resultEvent": exec.and_then(|t| t.result_event.clone())}),
        )
    };
    // The network guard: every request the driver sent is loopback, and
    // on the fake each one is a request the fake served; the real child's
    // proxy trap saw no outbound call.
    let network = json!({
        "clientRequests": client.requests_sent(),
        "resolvedLoopback": client.resolved().is_ok_and(|addrs| !addrs.is_empty() && addrs.iter().all(|a| a.ip().is_loopback())),
        "runtimeServed": runtime.started.fake.as_ref().map(FakeOpenCode::requests),
        "egressAttempts": runtime.started.trap.as_ref().map(flybot_interop::egress::EgressTrap::attempts),
    });
    let ends: Vec<Value> = lock(&member.ends).iter().map(end_view).collect();
    let report = PilotReport {
        evidence_level: runtime.level,
        evidence_level_number: runtime.level.number(),
        versions: json!({
            "flybot": env!("CARGO_PKG_VERSION"),
            "runtime": runtime.versions,
            "pinnedOpencode": flybot_interop::opencode::PINNED_VERSION,
            "botA": "internal agent on the mock model (scenario)",
            "node": fixture::node_version().await,
        }),
        schema_digest: schema,
        command: config.command.clone(),
        input_fixture: json!({"path": "crates/flybot-interop/fixtures/pilot", "sha256": fixture::fixture_digest(),
            "testCommand": fixture::TEST_COMMAND}),
        raw_status: json!({"task": statuses, "taskId": task_id, "opencodeSession": session_id, "journal": journal_view, "network": network, "botBTurns": ends,
            "question": question_id.is_some(), "answered": answered}),
        outcome,
        evidence,
        verification,
        room: lines.iter().map(|l| line_view(l, &names)).collect(),
        skipped_boundaries: skipped_boundaries(runtime.level),
        wall_ms: started.elapsed().as_millis() as u64,
    };
    let runtime_prompts = runtime
        .started
        .fake
        .as_ref()
        .map(|f| f.prompts().into_iter().map(|(_, text)| text).collect())
        .unwrap_or_default();
    Ok(PilotRun {
        report,
        host,
        task_id,
        runtime_prompts,
        _runtime: runtime,
    })
}
