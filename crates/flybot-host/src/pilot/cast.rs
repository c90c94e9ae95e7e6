//! The pilot's cast, made through the channel as a person would: the host
//! with Bot A on the mock model's scenario, Bot B's record, the room, the
//! private room a probe seeds (lines that must never reach Bot B), and the
//! card accepted and started; then Bot B bound to its execution journal.

use super::member::OpenCodeMember;
use super::run::{PilotConfig, PilotProbe, Runtime, call, str_at};
use crate::host::{Host, HostConfig};
use crate::rooms::agent::AgentParticipant;
use flybot_agent::model::config::ProviderRegistry;
use flybot_agent::model::mock::{MockModel, Scenario};
use flybot_core::rooms::log::{AuthorKind, LineKind};
use flybot_interop::budgets::PROPOSED;
use flybot_interop::journal::Journal;
use flybot_interop::opencode::{DocCheck, JournaledTask, OpenCodeClient, Parties};
use flybot_interop::pilot::script;
use flybot_store::room_log::NewLine;
use flybot_store::{Store, StoreOptions};
use serde_json::{Value, json};
use std::sync::{Arc, Mutex};

/// Who plays: the host, both Bots, the room and the card.
pub struct Cast {
    pub host: Host,
    pub ada: String,
    pub coder: String,
    pub room_id: String,
    pub task_id: String,
    /// The execution service's binding to the card and its credential,
    /// minted at enrollment: Bot B's question and result move the card as
    /// that service, never as the owner (#198).
    pub binding: flybot_core::tasks::execution_seam::ExecutionBinding,
    pub credential: crate::rooms::opencode::execution::ExecutionCredential,
}

/// Makes the cast; answers it with the card's statuses so far.
pub async fn set_up(
    config: &PilotConfig,
    probe: &PilotProbe,
) -> Result<(Cast, Vec<Value>), String> {
    let (models, bot_model) = models_of(config)?;
    let host_home = config.home.join("host");
    let store = Store::open(&host_home, StoreOptions::default()).map_err(|e| e.to_string())?;
    let mut host_config = HostConfig::new(host_home);
    host_config.models = Arc::new(models);
    let host = Host::open(store, host_config).await;
    let ada_instructions = probe.private_markers.join(" ");
    let ada = call(
        &host,
        "create-bot",
        json!({"name": "Ada", "model": bot_model, "instructions": ada_instructions}),
    )
    .await?;
    let ada = str_at(&ada, "/bot/id")?;
    let coder = call(
        &host,
        "create-bot",
        json!({"name": "Coder", "model": bot_model,
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
    seed_private_room(&host, &ada, probe).await?;
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
    let (binding, credential) =
        crate::rooms::opencode::execution::enroll(&task_id, &ada, &coder, &room_id)
            .ok_or("no randomness for the execution credential")?;
    let cast = Cast {
        host,
        ada,
        coder,
        room_id,
        task_id,
        binding,
        credential,
    };
    Ok((cast, statuses))
}

/// Bot A's models and the one it runs on: the real local model on level 3,
/// else the mock answering by Bot A's scenario.
fn models_of(config: &PilotConfig) -> Result<(ProviderRegistry, &'static str), String> {
    if let Some(real) = &config.real_model {
        return Ok((real.registry()?, super::real_model::PILOT_MODEL));
    }
    let scenario = Scenario::from_json(&script::bot_a_scenario()).map_err(|e| e.to_string())?;
    let mock = ProviderRegistry::with_mock(MockModel::with_scenario(scenario));
    Ok((mock, "mock"))
}

/// A second room of Bot A's with the probe's private lines in it.
async fn seed_private_room(host: &Host, ada: &str, probe: &PilotProbe) -> Result<(), String> {
    if probe.private_markers.is_empty() {
        return Ok(());
    }
    let other = call(
        host,
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
                    author_id: ada.to_owned(),
                    author_kind: AuthorKind::LocalBot,
                    kind: LineKind::Chat,
                    text: format!("private note {marker}"),
                    at: flybot_store::system_now_ms(),
                    hop: 0,
                },
            )
            .map_err(|e| format!("the private room's log: {e}"))?;
    }
    Ok(())
}

/// Bot B as a room member: its execution journal, one writer over the
/// pilot's own folder, bound to the card and the runtime's session.
pub fn bind_member(
    config: &PilotConfig,
    runtime: &Runtime,
    client: &OpenCodeClient,
    check: &DocCheck,
    cast: &Cast,
) -> Result<OpenCodeMember, String> {
    let journal = Journal::open(&config.home, PROPOSED, flybot_store::system_now_ms())
        .map_err(|e| e.to_string())?;
    let parties = Parties {
        server: "flybot-room".to_owned(),
        requester_bot: cast.ada.clone(),
        worker_bot: cast.coder.clone(),
        owner_binding: "single-owner".to_owned(),
        runtime_installation: runtime.versions["opencode"]
            .as_str()
            .unwrap_or("opencode")
            .to_owned(),
        conversation_id: cast.room_id.clone(),
    };
    let session = JournaledTask::bind(
        journal,
        parties,
        &cast.task_id,
        client.clone(),
        check.clone(),
        flybot_store::system_now_ms,
    )
    .map_err(|e| format!("Bot B's journal: {e}"))?;
    Ok(OpenCodeMember {
        agent: AgentParticipant {
            sessions: cast.host.sessions().clone(),
        },
        rounds: cast.host.rounds().clone(),
        task_id: cast.task_id.clone(),
        test_command: flybot_interop::pilot::fixture::TEST_COMMAND
            .iter()
            .map(|s| (*s).to_owned())
            .collect(),
        bot_id: cast.coder.clone(),
        name: "Coder".to_owned(),
        task: tokio::sync::Mutex::new(session),
        stop: tokio::sync::watch::channel(false).0,
        ends: Mutex::new(Vec::new()),
        observations: Mutex::new(Vec::new()),
        running: Mutex::new(false),
        other_turns: Mutex::new(Vec::new()),
        turn_limit: super::member::turn_limit(config.real_model.is_some()),
    })
}
