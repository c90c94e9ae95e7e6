//! `flybot serve`: open the home, bind the channel, serve until Ctrl-C or
//! SIGTERM, then stop cleanly with every acknowledged change on disk.

use crate::config;
use crate::listen::listen_and_announce;
use anyhow::Context;
use clap::Args;
use flybot_host::rooms::opencode::launcher::OpenCodeRuntime;
use flybot_host::{ACK_MODEL_KEY, Host, HostConfig};
use flybot_interop::opencode::PINNED_VERSION;
use flybot_interop::opencode::locate::{README_PATH, locate};
use flybot_store::{Store, StoreOptions, StoreStatus};
use std::path::PathBuf;

#[derive(Args)]
pub struct ServeArgs {
    /// The home folder holding the team (default: $FLYBOT_HOME, else ~/.flybot).
    #[arg(long)]
    home: Option<PathBuf>,
    /// The address to listen on; 127.0.0.1:0 picks a free port.
    #[arg(long, default_value = "127.0.0.1:7450")]
    listen: String,
    /// The pinned `opencode` binary OpenCode Bots run on (else
    /// $FLYBOT_OPENCODE, else the README's install folder, .tools/opencode).
    #[arg(long)]
    opencode: Option<PathBuf>,
}

pub fn run(args: ServeArgs) -> anyhow::Result<()> {
    let home = config::home_dir(args.home)?;
    let config = config::load(&home)?;
    let runtime = tokio::runtime::Runtime::new().context("could not start the async runtime")?;
    runtime.block_on(async move {
        let options = StoreOptions {
            state_journal: config.state_journal,
            ..StoreOptions::default()
        };
        let store = Store::open(&home, options)
            .with_context(|| format!("could not open the home {}", home.display()))?;
        let mut host_config = HostConfig::new(home.clone());
        host_config.models = std::sync::Arc::new(
            flybot_agent::model::config::ProviderRegistry::from_config(
                &config.models_config(),
                flybot_agent::model::mock::MockModel::offline(),
            )
            .context("config.toml's [providers] and [models] could not be used")?,
        );
        host_config.opencode = opencode_runtime(args.opencode.as_deref());
        host_config.check_ratio = config.check_ratio;
        if let Some(ms) = config.compact_deadline_ms {
            host_config.compact_deadline_ms = ms;
        }
        host_config.automation_tasks = config.automation_tasks != Some(false);
        host_config.notify = config.notify_config();
        if let Some(feishu) = &config.feishu {
            host_config.feishu_api = feishu.api.clone();
        }
        host_config.ack_model = config.model_for.get(ACK_MODEL_KEY).cloned();
        if let Some(model) = &host_config.ack_model {
            anyhow::ensure!(
                host_config.models.route(model).is_ok(),
                "config.toml's [modelFor] names the model \"{model}\" for {ACK_MODEL_KEY}, but [models] declares no such model; add it there or remove the line."
            );
        }
        if let Some(model) = config.default_model {
            host_config.default_model = model;
        }
        if let StoreStatus::ReadOnly(reason) = store.status() {
            println!("{}", flybot_host::read_only_sentence(&reason));
        }
        start_sandbox(&home, config.sandbox);
        let host = Host::open(store, host_config).await;
        // Turns a crash or a kill cut are picked up once, before new input.
        if store_writes(&host) {
            let (pickup, rounds) = host.pick_up();
            if rounds > 0 {
                println!("resuming {rounds} room round(s) from before the restart");
            }
            match pickup {
                Ok(pickup) if !pickup.turns.is_empty() || pickup.queued > 0 => println!(
                    "picked up {} cut turn(s) and {} queued line(s) from before the restart",
                    pickup.turns.len(),
                    pickup.queued
                ),
                Ok(_) => {}
                Err(error) => eprintln!(
                    "flybot: inflight.json could not be read ({error}); nothing was picked up"
                ),
            }
        }
        let listener = listen_and_announce(&args.listen, |address| {
            format!(
                "FlyBot is listening on http://{address} (home: {})",
                home.display()
            )
        })
        .await?;
        flybot_host::serve(host, listener, shutdown_signal()).await?;
        println!("FlyBot stopped; every change is saved.");
        Ok(())
    })
}

/// Issue 30: the owner's sandbox mode for every agent process; this home's
/// marker on each; what a killed host of this home left is ended now.
fn start_sandbox(home: &std::path::Path, mode: Option<flybot_sandbox::Mode>) {
    flybot_sandbox::set_mode(mode.unwrap_or(flybot_sandbox::Mode::On));
    let marker = home.canonicalize().unwrap_or_else(|_| home.to_owned());
    let marker = marker.display().to_string();
    flybot_sandbox::set_owner_marker(&marker);
    let ended = flybot_sandbox::sweep_orphans(&marker);
    if ended > 0 {
        println!("ended {ended} process(es) a previous run of this home left running");
    }
    if let Some(warning) = flybot_sandbox::standing_warning() {
        println!("warning: {warning}");
    }
}

fn store_writes(host: &Host) -> bool {
    host.store().status() == StoreStatus::Writer
}

/// Ctrl-C or SIGTERM.
async fn shutdown_signal() {
    let terminate = async {
        match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
            Ok(mut signal) => {
                signal.recv().await;
            }
            Err(_) => std::future::pending::<()>().await,
        }
    };
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        () = terminate => {}
    }
}

/// The OpenCode that OpenCode Bots run on; says which, or how to install it.
fn opencode_runtime(flag: Option<&std::path::Path>) -> OpenCodeRuntime {
    let env = std::env::var_os("FLYBOT_OPENCODE").map(PathBuf::from);
    match locate(flag, env.as_deref(), &crate::pilot_cmd::opencode_roots()) {
        Some(found) => {
            println!(
                "OpenCode Bots run on {} (from {}; version {PINNED_VERSION} is checked at each start)",
                found.binary.display(),
                found.found_by
            );
            OpenCodeRuntime::Pinned(found.binary)
        }
        None => {
            println!(
                "OpenCode Bots are off: OpenCode {PINNED_VERSION} is not installed (the README's setup puts it in {README_PATH}; or pass --opencode PATH)"
            );
            OpenCodeRuntime::Missing
        }
    }
}
