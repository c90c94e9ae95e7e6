//! The pilot's steps, in order, on a temporary home. Each step that can
//! fail says which one it was; the report keeps every raw status seen.

use super::member::OpenCodeMember;
use crate::host::Host;
use crate::rooms::opencode::launcher::{self, OpenCodeRuntime, Started};
use flybot_core::fences::readable_body;
use flybot_core::rooms::log::RoomLine;
#[cfg(feature = "fake-runtime")]
use flybot_interop::opencode::config::ModelEndpoint;
use flybot_interop::opencode::{OpenCodeClient, TurnEnd, check_doc_against};
use flybot_interop::pilot::fixture;
use flybot_interop::pilot::report::{EvidenceLevel, PilotReport, skipped_boundaries};
#[cfg(feature = "fake-runtime")]
use flybot_interop::pilot::script;
use flybot_interop::projection::Observation;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::time::Instant;

/// Which OpenCode speaks for Bot B.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PilotRuntime {
    /// The scripted fake OpenCode (evidence level 1).
    #[cfg(feature = "fake-runtime")]
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
    /// Level 3: Bot A and the real OpenCode on this local model instead of
    /// the mock (`--model-endpoint`).
    pub real_model: Option<super::real_model::RealModel>,
}

/// Test hooks: Bot B's scripted steps on the fake, and private markers
/// seeded into Bot A's side (its instructions, another room's line, the
/// owner's line there) that must never reach Bot B.
#[derive(Debug, Clone, Default)]
pub struct PilotProbe {
    #[cfg(feature = "fake-runtime")]
    pub fake_steps: Option<Vec<flybot_interop::opencode::fake::FakeStep>>,
    pub private_markers: Vec<String>,
}

/// One call on the host's channel, through its HTTP edge as a client makes
/// it, as the host's owner with her token (issue 29).
pub(super) async fn call(host: &Host, endpoint: &str, body: Value) -> Result<Value, String> {
    use tower::ServiceExt;
    let token = crate::edge::owner_token(&host.config().home).map_err(|e| e.to_string())?;
    let request = axum::http::Request::post(format!("/api/bot/{endpoint}"))
        .header("authorization", format!("Bearer {token}"))
        .body(axum::body::Body::from(body.to_string()))
        .map_err(|e| e.to_string())?;
    let answer = crate::http::app(host.clone())
        .oneshot(request)
        .await
        .map_err(|e| e.to_string())?;
    let bytes = axum::body::to_bytes(answer.into_body(), usize::MAX)
        .await
        .map_err(|e| e.to_string())?;
    let mut value: Value = serde_json::from_slice(&bytes).map_err(|e| e.to_string())?;
    if value["ok"] != Value::Bool(true) {
        return Err(format!("{endpoint}: {}", value["error"]));
    }
    if let Some(object) = value.as_object_mut() {
        object.remove("ok");
    }
    Ok(value)
}

pub(super) fn str_at(value: &Value, pointer: &str) -> Result<String, String> {
    value
        .pointer(pointer)
        .and_then(Value::as_str)
        .map(str::to_owned)
        .ok_or_else(|| format!("no {pointer} in {value}"))
}

/// Bot B's runtime, started through the host's launcher (the same start an
/// OpenCode Bot's seat uses), with the report's versions and level.
pub(super) struct Runtime {
    pub started: Started,
    pub versions: Value,
    pub level: EvidenceLevel,
}

async fn start_runtime(
    config: &PilotConfig,
    workspace: &std::path::Path,
    // Only the fake reads the probe (its scripted steps).
    #[cfg_attr(not(feature = "fake-runtime"), allow(unused_variables))] probe: &PilotProbe,
) -> Result<Runtime, String> {
    let (runtime, model, versions, level) = match &config.runtime {
        #[cfg(feature = "fake-runtime")]
        PilotRuntime::Fake => (
            OpenCodeRuntime::Fake(probe.fake_steps.clone().unwrap_or_else(script::fake_steps)),
            // The fake calls no model.
            ModelEndpoint {
                base_url: String::new(),
                model: String::new(),
                limit: None,
            },
            json!({}),
            EvidenceLevel::OfflineMock,
        ),
        PilotRuntime::OpenCode { binary, found_by } => {
            let (model, level) = match &config.real_model {
                Some(real) => (real.endpoint(), EvidenceLevel::RealModelCollaboration),
                None => (
                    super::real::start_mock_for_opencode().await?,
                    EvidenceLevel::RealProcessInterface,
                ),
            };
            let versions = json!({"opencodeBinary": binary, "foundBy": found_by});
            (
                OpenCodeRuntime::Pinned(binary.clone()),
                model,
                versions,
                level,
            )
        }
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
pub(super) fn latest_observation(member: &OpenCodeMember) -> Option<Observation> {
    flybot_core::sync::lock(&member.observations)
        .last()
        .cloned()
        .flatten()
}

/// Bot B's `index`-th turn's observation.
pub(super) fn observation_at(member: &OpenCodeMember, index: usize) -> Option<Observation> {
    flybot_core::sync::lock(&member.observations)
        .get(index)
        .cloned()
        .flatten()
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

impl PilotRun {
    /// A person's acceptance (`task-accept-result`) through the channel, as
    /// the host's owner, as the page's Accept button makes it.
    pub async fn accept_as_person(&self) -> Result<(), String> {
        call(
            &self.host,
            "task-accept-result",
            json!({"id": self.task_id}),
        )
        .await
        .map(|_| ())
    }

    /// The report with the card as it stands now (#198): level 4 once a
    /// person accepted the verified result, as the card records it.
    pub fn report_now(&self) -> PilotReport {
        let level = self.host.team().read(|state| {
            state
                .tasks
                .get(&self.task_id)
                .and_then(|task| flybot_protocol::task::TaskFields::read(task).evidence_level)
        });
        if level != Some(EvidenceLevel::HumanAcceptance) {
            return self.report.clone();
        }
        let mut report = flybot_interop::pilot::report::accepted_report(&self.report);
        if let Some(moves) = report.raw_status["task"].as_array_mut() {
            moves.push(json!({"task-accept-result": "accepted"}));
        }
        report.raw_status["cardEvidenceLevel"] = json!(EvidenceLevel::HumanAcceptance);
        report
    }
}

/// Asks a person whether to accept a result-ready report's result.
pub type AcceptanceAsk = fn(&PilotReport) -> bool;

/// Runs the pilot on its own multi-threaded runtime and answers its report
/// once its child processes and servers have ended (for a command line,
/// which then removes the home).
pub fn run_pilot_blocking(config: PilotConfig) -> Result<PilotReport, String> {
    run_pilot_blocking_asking(config, None)
}

/// `run_pilot_blocking`, and when the task is result-ready and `ask` says a
/// person accepts it, that acceptance through the channel: the report is
/// then level 4 (#198).
pub fn run_pilot_blocking_asking(
    config: PilotConfig,
    ask: Option<AcceptanceAsk>,
) -> Result<PilotReport, String> {
    let tokio = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| format!("the pilot's runtime could not start: {e}"))?;
    let report = tokio.block_on(async {
        let run = run_pilot(config)
            .await
            .map_err(|e| format!("the pilot stopped: {e}"))?;
        let asked = run.report.outcome == "result-ready" && ask.is_some_and(|ask| ask(&run.report));
        if asked {
            run.accept_as_person().await?;
        }
        let report = run.report_now();
        run.host.begin_stop();
        Ok::<_, String>(report)
    })?;
    // Child processes and servers end with the runtime, before the home goes.
    tokio.shutdown_timeout(std::time::Duration::from_secs(5));
    Ok(report)
}

/// Runs the pilot and answers its report.
pub async fn run_pilot(config: PilotConfig) -> Result<PilotRun, String> {
    run_pilot_probed(config, PilotProbe::default()).await
}

/// The pilot with test hooks.
pub async fn run_pilot_probed(config: PilotConfig, probe: PilotProbe) -> Result<PilotRun, String> {
    let started = Instant::now();
    let workspace = config.home.join("coder-workspace");
    fixture::materialize(&workspace)
        .map_err(|e| format!("the fixture could not be written: {e}"))?;
    let runtime = start_runtime(&config, &workspace, &probe).await?;
    let client = OpenCodeClient::new(&runtime.started.base).map_err(|e| e.to_string())?;
    let doc = client.doc().await.map_err(|e| format!("GET /doc: {e}"))?;
    let check = check_doc_against(&doc, &runtime.started.pin);
    // `pinned`: the runtime serves the pinned OpenCode's own document (the
    // fake's matches only the fake's own digest, which is not the pin).
    let schema = json!({"sha256": check.digest, "pinned": check.pinned,
        "missing": check.missing.iter().map(|c| c.name()).collect::<Vec<_>>()});
    let (cast, statuses) = super::cast::set_up(&config, &probe).await?;
    let member = super::cast::bind_member(&config, &runtime, &client, &check, &cast)?;
    let mut walk = super::walk::walk(&cast, &member, statuses, config.real_model.is_some()).await?;
    let checked =
        super::evidence::check(&config, &runtime, &cast, &member, &mut walk, &workspace).await?;
    let mut raw_status = raw_status(&cast, &member, &walk, &runtime, &client).await;
    raw_status["opencodeTurns"] =
        super::runtime_turns::reported(&client, raw_status["opencodeSession"].as_str()).await;
    let names = vec![
        (cast.ada.clone(), "Ada".to_owned()),
        (cast.coder.clone(), "Coder".to_owned()),
        (walk.opener.author_id.clone(), "Owner".to_owned()),
    ];
    let report = PilotReport {
        evidence_level: runtime.level,
        evidence_level_number: runtime.level.number(),
        runtime_evidence_level: None,
        model: config
            .real_model
            .as_ref()
            .map(super::real_model::RealModel::report),
        versions: json!({
            "flybot": env!("CARGO_PKG_VERSION"),
            "runtime": runtime.versions,
            "pinnedOpencode": flybot_interop::opencode::PINNED_VERSION,
            "botA": match &config.real_model {
                Some(real) => format!("internal agent on {} at {}", real.model_id, real.base_url),
                None => "internal agent on the mock model (scenario)".to_owned(),
            },
            "node": fixture::node_version().await,
        }),
        schema_digest: schema,
        command: config.command.clone(),
        input_fixture: json!({"path": "crates/flybot-interop/fixtures/pilot", "sha256": fixture::fixture_digest(),
            "testCommand": fixture::TEST_COMMAND}),
        raw_status,
        outcome: checked.outcome,
        evidence: checked.evidence,
        verification: checked.verification,
        room: walk.lines.iter().map(|l| line_view(l, &names)).collect(),
        isolation: flybot_interop::pilot::report::isolation(runtime.started.sandbox.as_deref()),
        skipped_boundaries: skipped_boundaries(runtime.level),
        wall_ms: started.elapsed().as_millis() as u64,
        matrix: None,
        gaps: None,
    };
    let runtime_prompts = runtime.started.fake_prompts();
    Ok(PilotRun {
        report,
        host: cast.host,
        task_id: cast.task_id,
        runtime_prompts,
        _runtime: runtime,
    })
}

/// The report's raw statuses: the card's moves, Bot B's session, journal
/// and turns, and the network guard's record (every request the driver sent
/// is loopback; on the fake each one is a request the fake served; the real
/// child's proxy trap saw no outbound call).
async fn raw_status(
    cast: &super::cast::Cast,
    member: &OpenCodeMember,
    walk: &super::walk::Walk,
    runtime: &Runtime,
    client: &OpenCodeClient,
) -> Value {
    let (session_id, journal_view) = {
        let task = member.task.lock().await;
        let exec = task.journal().task(&cast.task_id);
        (
            task.session_id().map(str::to_owned),
            json!({"inboxCursor": task.journal().inbox_cursor(),
                "sends": task.journal().state().sends.len(),
                "turnsSubmitted": exec.map(|t| t.budget.turns_submitted),
                "progressEvents": exec.map(|t| t.budget.progress_events),
                "resultEvent": exec.and_then(|t| t.result_event.clone())}),
        )
    };
    let network = json!({
        "clientRequests": client.requests_sent(),
        "resolvedLoopback": client.resolved().is_ok_and(|addrs| !addrs.is_empty() && addrs.iter().all(|a| a.ip().is_loopback())),
        "runtimeServed": runtime.started.fake_requests(),
        "egressAttempts": runtime.started.trap.as_ref().map(flybot_interop::egress::EgressTrap::attempts),
    });
    let ends: Vec<Value> = flybot_core::sync::lock(&member.ends)
        .iter()
        .map(end_view)
        .collect();
    let bot_a: Vec<Value> = flybot_core::sync::lock(&member.other_turns)
        .iter()
        .map(super::runtime_turns::agent_turn_view)
        .collect();
    let moved_by = moved_by(cast);
    json!({"task": walk.statuses, "movedBy": moved_by, "taskId": cast.task_id, "opencodeSession": session_id, "journal": journal_view, "network": network, "botATurns": bot_a, "botBTurns": ends,
        "question": walk.question_id.is_some(), "answered": walk.answered})
}

/// Who made each of the card's moves, as the card records it.
fn moved_by(cast: &super::cast::Cast) -> serde_json::Map<String, Value> {
    let actors = cast.host.team().read(|state| {
        state
            .tasks
            .get(&cast.task_id)
            .map(|task| flybot_protocol::task::TaskFields::read(task).actors)
            .unwrap_or_default()
    });
    actors
        .iter()
        .map(|(status, entry)| {
            let status = status.as_str();
            (status.to_owned(), Value::from(entry.actor_id.clone()))
        })
        .collect()
}
