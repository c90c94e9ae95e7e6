//! `flybot mock-model serve --listen ADDR [--scenario FILE]`: the built-in
//! mock model as an OpenAI-compatible HTTP API, so an external runtime (or a
//! FlyBot home whose provider points here) can be driven by it offline.

use crate::listen::listen_and_announce;
use anyhow::Context;
use clap::{Args, Subcommand};
use flybot_agent::model::mock::{MockModel, Scenario};
use std::path::PathBuf;
use std::sync::Arc;

#[derive(Subcommand)]
pub enum MockModelCommand {
    /// Serve `POST /v1/chat/completions` and `GET /v1/models` until Ctrl-C.
    Serve(ServeArgs),
}

#[derive(Args)]
pub struct ServeArgs {
    /// The address to listen on; 127.0.0.1:0 picks a free port.
    #[arg(long, default_value = "127.0.0.1:7460")]
    listen: String,
    /// A scenario file (JSON rules; see README "The mock model").
    #[arg(long)]
    scenario: Option<PathBuf>,
}

pub fn run(command: MockModelCommand) -> anyhow::Result<()> {
    match command {
        MockModelCommand::Serve(args) => serve(args),
    }
}

/// Reads a scenario file into the mock it describes.
pub fn mock_from(scenario: Option<&std::path::Path>) -> anyhow::Result<MockModel> {
    let Some(path) = scenario else {
        return Ok(MockModel::offline());
    };
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("could not read the scenario {}", path.display()))?;
    let scenario = Scenario::from_json(&text)
        .with_context(|| format!("{} is not a valid scenario", path.display()))?;
    Ok(MockModel::with_scenario(scenario))
}

fn serve(args: ServeArgs) -> anyhow::Result<()> {
    let mock = mock_from(args.scenario.as_deref())?;
    let runtime = tokio::runtime::Runtime::new().context("could not start the async runtime")?;
    runtime.block_on(async move {
        let listener = listen_and_announce(&args.listen, |address| {
            format!("The mock model is listening; its base URL is http://{address}/v1")
        })
        .await?;
        flybot_host::serve_mock_model(listener, Arc::new(mock), async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await
        .context("the mock model server failed")
    })
}
