//! `flybot-bench connectors` (issue 17): on a host of its own, the time to
//! mount a stdio MCP server of 50 tools (start, handshake, tool list; the
//! fixture is this binary's `mcp-fixture`), the host's latency per tool call
//! over stdio (the fixture answers at once, so the figure is the host's and
//! the pipe's), and the prompt characters the connector's tool schemas add
//! to an own-chat turn and to a room turn, which carries only the read half
//! (#1234).

use crate::figures::{ms, percentile};
use flybot_agent::tools::ToolContext;
use flybot_host::{Host, HostConfig};
use flybot_protocol::connectors::{ConnectorConnect, ConnectorStatus};
use flybot_protocol::state::{Bot, TeamState};
use flybot_store::{Store, StoreOptions};
use std::time::{Duration, Instant};

const MOUNTS: usize = 10;
const CALLS: usize = 1_000;

pub fn run() -> anyhow::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(measure())
}

fn fixture_spec() -> anyhow::Result<ConnectorConnect> {
    let me = std::env::current_exe()?.display().to_string();
    Ok(serde_json::from_value(serde_json::json!({
        "id": "github",
        "command": [me, "mcp-fixture"]
    }))?)
}

async fn measure() -> anyhow::Result<()> {
    let home = tempfile::tempdir()?;
    let store = Store::open(home.path(), StoreOptions::default())?;
    let host = Host::open(store, HostConfig::new(home.path().to_owned())).await;
    // GITHUB_TOKEN is the github connector's key; any value will do.
    host.secrets()
        .edit(|file, _| {
            let set = serde_json::from_value(serde_json::json!({
                "name": "GITHUB_TOKEN", "value": "bench-token"}))
            .map_err(|e| flybot_protocol::ApiError::invalid("value", e.to_string()))?;
            flybot_core::secrets::set(file, set, None, 0).map(|_| ())
        })
        .map_err(|e| anyhow::anyhow!(e.message))?;
    let connectors = host.connectors();
    let mut mounts = Vec::new();
    let mut tools = 0;
    for _ in 0..MOUNTS {
        let started = Instant::now();
        let row = connectors
            .connect(fixture_spec()?)
            .await
            .map_err(|e| anyhow::anyhow!(e.message))?;
        mounts.push(started.elapsed());
        anyhow::ensure!(row.status == ConnectorStatus::Ready, "{:?}", row.error);
        tools = row.tools.len();
    }
    println!(
        "mount a stdio MCP server of {tools} tools: median {:.1} ms, p90 {:.1} ms ({MOUNTS} mounts)",
        ms(percentile(&mut mounts.clone(), 50)),
        ms(percentile(&mut mounts, 90)),
    );
    let mut calls = call_times(&connectors.tools()).await?;
    println!(
        "one tool call over stdio: median {:.3} ms, p99 {:.3} ms ({CALLS} calls)",
        ms(percentile(&mut calls.clone(), 50)),
        ms(percentile(&mut calls, 99)),
    );
    prompt_figures(&connectors.tools());
    connectors.stop_all();
    Ok(())
}

async fn call_times(
    tools: &[std::sync::Arc<dyn flybot_agent::tools::DynTool>],
) -> anyhow::Result<Vec<Duration>> {
    let tool = tools
        .iter()
        .find(|t| t.name() == "mcp__github__get_thing_1")
        .ok_or_else(|| anyhow::anyhow!("the fixture's get_thing_1 is not mounted"))?;
    let ctx = ToolContext::new("session-bench", "bot-bench", std::env::temp_dir());
    let mut times = Vec::with_capacity(CALLS);
    for _ in 0..CALLS {
        let started = Instant::now();
        let answer = tool
            .call_json(&ctx, r#"{"owner":"acme","repo":"app","number":1}"#)
            .await;
        times.push(started.elapsed());
        anyhow::ensure!(answer.is_ok(), "{answer:?}");
    }
    Ok(times)
}

/// The characters of the tool specs a turn sends for the connector.
fn prompt_figures(tools: &[std::sync::Arc<dyn flybot_agent::tools::DynTool>]) {
    let state = TeamState::default();
    let bot = Bot::new("bot-bench", "Bench", "member", "mock", "session-bench", 0);
    let names: Vec<String> = tools.iter().map(|t| t.name().to_owned()).collect();
    let chars = |room: bool| {
        let denied: Vec<String> = flybot_core::connectors::denied(&state, &bot, room, &names)
            .into_iter()
            .map(|(name, _)| name)
            .collect();
        let kept = tools
            .iter()
            .filter(|t| !denied.iter().any(|d| d == t.name()));
        let specs: Vec<serde_json::Value> = kept
            .map(|t| {
                serde_json::json!({"type": "function", "function": {
                    "name": t.name(), "description": t.description(), "parameters": t.parameters()}})
            })
            .collect();
        (
            specs.len(),
            serde_json::to_string(&specs).map_or(0, |s| s.len()),
        )
    };
    let (own_tools, own) = chars(false);
    let (room_tools, room) = chars(true);
    println!(
        "prompt characters the connector adds: own chat {own} ({own_tools} tools), room turn {room} ({room_tools} tools, the read half), {:.0}% of own chat",
        100.0 * room as f64 / own.max(1) as f64
    );
}
