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
    /// Where the team is saved: the home folder (the default), or a
    /// PostgreSQL database, `postgres://user@host:port/db` (also `store =`
    /// in config.toml). On PostgreSQL one host leads, holding a lease; the
    /// home folder still holds config.toml and the local working folders.
    #[arg(long, value_name = "URL")]
    store: Option<String>,
    /// With `--store postgres://…`: follow the host that leads (reads and
    /// the page work, writes are refused with `bot/read-only`) and take
    /// over within seconds once its lease lapses.
    #[arg(long)]
    standby: bool,
    #[command(flatten)]
    sign_in: crate::sign_in::SignInArgs,
}

pub fn run(args: ServeArgs) -> anyhow::Result<()> {
    let home = config::home_dir(args.home)?;
    let config = config::load(&home)?;
    let address = listen_address(&args.listen)?;
    let edge = crate::sign_in::edge_config(&args.sign_in, &config.sign_in, address)?;
    let owner_token = crate::sign_in::owner_token(&home)?;
    keep_diagnostics(&home);
    let runtime = tokio::runtime::Runtime::new().context("could not start the async runtime")?;
    runtime.block_on(async move {
        let options = StoreOptions {
            state_journal: config.state_journal,
            engine: store_engine(args.store.as_deref().or(config.store.as_deref()), args.standby)?,
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
        host_config.edge = edge;
        host_config.build = stamped_build();
    // The About block's update check reaches the network: the owner's
    // choice, off unless set (#374).
    host_config.update_check = std::env::var("FLYBOT_UPDATE_CHECK")
        .ok()
        .filter(|api| !api.trim().is_empty());
        host_config.check_ratio = config.check_ratio;
        if let Some(ms) = config.compact_deadline_ms {
            host_config.compact_deadline_ms = ms;
        }
        host_config.automation_tasks = config.automation_tasks != Some(false);
        host_config.notify = config.notify_config();
        host_config.attachments = config.attachment_config();
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
            say!("{}", flybot_host::read_only_sentence(&reason));
        }
        start_sandbox(&home, config.sandbox);
        // Turns a crash or a kill cut are picked up once, before new input
        // (`Host::open_picking_up`); a standby does so when it takes over
        // (issue 35).
        let (host, picked) = Host::open_picking_up(store, host_config).await;
        match picked {
            Some(picked) => say_picked_up(picked),
            None if args.standby => {
                tokio::spawn(resume_on_takeover(host.clone()));
            }
            None => {}
        }
        let stop = shutdown_signal();
        let listener = listen_and_announce(&args.listen, |address| {
            format!(
                "FlyBot is listening on http://{address} (home: {})",
                home.display()
            )
        })
        .await?;
        announce_sign_in(&listener, &owner_token, host.config().edge.open_mode);
        flybot_host::serve(host, listener, stop).await?;
        say!("FlyBot stopped; every change is saved.");
        record_console(&home);
        Ok(())
    })
}

/// `--listen` as an address, so the open mode can be checked before the
/// home is opened.
fn listen_address(listen: &str) -> anyhow::Result<std::net::SocketAddr> {
    use std::net::ToSocketAddrs;
    let mut addresses = listen
        .to_socket_addrs()
        .with_context(|| format!("--listen {listen} is not an address such as 127.0.0.1:7450"))?;
    addresses
        .next()
        .with_context(|| format!("--listen {listen} names no address"))
}

/// The owner's sign-in link (issue 29), printed after the listening line.
fn announce_sign_in(listener: &tokio::net::TcpListener, token: &str, open_mode: bool) {
    if let Ok(address) = listener.local_addr() {
        say!(
            "Sign in as the owner: {}",
            crate::sign_in::sign_in_link(address, token)
        );
    }
    if open_mode {
        say!(
            "Warning: --no-sign-in: anyone who reaches this port acts as the owner until the home has another member."
        );
    }
}

/// Keeps the host's warnings in the home's diagnostics log (issue 40).
fn keep_diagnostics(home: &std::path::Path) {
    if let Err(e) = flybot_host::logging::keep_diagnostics(home) {
        warn!(
            "flybot: the diagnostics log could not be opened in {}: {e}",
            home.display()
        );
    }
}

/// The clean stop's record in the diagnostics log: what the console could
/// not take, when it could not (a closed or full pipe).
fn record_console(home: &std::path::Path) {
    use flybot_host::logging::console;
    console::flush(std::time::Duration::from_secs(1));
    let closed = console::closed(console::Stream::Out) || console::closed(console::Stream::Err);
    let dropped = console::unwritten();
    let why = match closed {
        true => "its reader closed the pipe",
        false => "nobody read the pipe and it was full",
    };
    let line = match dropped {
        0 => format!(
            "flybot stopped cleanly (home {}); every change is saved",
            home.display()
        ),
        n => format!(
            "flybot stopped cleanly (home {}); {n} console line(s) were not written, dropped because {why}",
            home.display()
        ),
    };
    flybot_host::logging::diagnose(&line);
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
        say!("ended {ended} process(es) a previous run of this home left running");
    }
    if let Some(warning) = flybot_sandbox::standing_warning() {
        say!("warning: {warning}");
    }
}

/// Ctrl-C or SIGTERM. The handlers are installed when this is called, not
/// when the answer is first polled: the listening line tells a supervisor
/// the host is up, and a SIGTERM sent right after it must stop the host
/// cleanly instead of killing it by the signal's default action.
fn shutdown_signal() -> impl std::future::Future<Output = ()> + Send + 'static {
    use tokio::signal::unix::{SignalKind, signal};
    let terminate = signal(SignalKind::terminate()).ok();
    let interrupt = signal(SignalKind::interrupt()).ok();
    let next = |installed: Option<tokio::signal::unix::Signal>| async move {
        match installed {
            Some(mut signal) => {
                signal.recv().await;
            }
            None => std::future::pending::<()>().await,
        }
    };
    async move {
        tokio::select! {
            () = next(interrupt) => {}
            () = next(terminate) => {}
        }
    }
}

/// The OpenCode that OpenCode Bots run on; says which, or how to install it.
fn opencode_runtime(flag: Option<&std::path::Path>) -> OpenCodeRuntime {
    let env = std::env::var_os("FLYBOT_OPENCODE").map(PathBuf::from);
    match locate(flag, env.as_deref(), &crate::pilot_cmd::opencode_roots()) {
        Some(found) => {
            say!(
                "OpenCode Bots run on {} (from {}; version {PINNED_VERSION} is checked at each start)",
                found.binary.display(),
                found.found_by
            );
            OpenCodeRuntime::Pinned(found.binary)
        }
        None => {
            say!(
                "OpenCode Bots are off: OpenCode {PINNED_VERSION} is not installed (the README's setup puts it in {README_PATH}; or pass --opencode PATH)"
            );
            OpenCodeRuntime::Missing
        }
    }
}

/// The build `build.rs` stamped (#374): empty parts are unknown.
fn stamped_build() -> flybot_host::BuildInfo {
    let part = |v: &str| (!v.is_empty()).then(|| v.to_owned());
    flybot_host::BuildInfo {
        branch: part(env!("FLYBOT_BUILD_BRANCH")),
        commit: part(env!("FLYBOT_BUILD_COMMIT")),
        pinned: env!("FLYBOT_BUILD_PINNED") == "1",
    }
}

/// The store's engine from `--store` / `store =` (issue 35).
fn store_engine(store: Option<&str>, standby: bool) -> anyhow::Result<flybot_store::Engine> {
    match store {
        None | Some("") | Some("home") => {
            anyhow::ensure!(
                !standby,
                "--standby needs --store postgres://…: a home folder has one writer and no standby"
            );
            Ok(flybot_store::Engine::Folder)
        }
        Some(url) if flybot_store::engine::is_postgres_url(url) => Ok(
            flybot_store::Engine::Postgres(flybot_store::PostgresOptions {
                standby,
                ..flybot_store::PostgresOptions::new(url)
            }),
        ),
        Some(other) => anyhow::bail!(
            "--store {other:?} is neither a postgres:// URL nor \"home\"; give postgres://user@host:port/database"
        ),
    }
}

/// Says what a start picked up of the turns and room rounds a crash, a
/// kill or a failover cut (#1368).
fn say_picked_up((pickup, rounds): flybot_host::PickedUp) {
    if rounds > 0 {
        say!("resuming {rounds} room round(s) from before the restart");
    }
    match pickup {
        Ok(pickup) if !pickup.turns.is_empty() || pickup.queued > 0 => say!(
            "picked up {} cut turn(s) and {} queued line(s) from before the restart",
            pickup.turns.len(),
            pickup.queued
        ),
        Ok(_) => {}
        Err(error) => {
            warn!("flybot: inflight.json could not be read ({error}); nothing was picked up")
        }
    }
}

/// A standby (issue 35): once its store takes the lease, it does what a
/// start does for the writer, as a restart would, and says so.
async fn resume_on_takeover(host: Host) {
    if let Some(picked) = host.lead_once_taken_over().await {
        say!("this standby took over: it now saves the team and runs its Bots");
        say_picked_up(picked);
    }
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::store_engine;
    use flybot_store::Engine;

    #[test]
    fn store_picks_the_engine_and_refuses_what_it_cannot_use_issue_35() {
        assert!(matches!(store_engine(None, false).unwrap(), Engine::Folder));
        assert!(matches!(
            store_engine(Some("home"), false).unwrap(),
            Engine::Folder
        ));
        let Engine::Postgres(pg) = store_engine(Some("postgres://u@h:5432/db"), true).unwrap()
        else {
            panic!("a postgres URL picks PostgreSQL");
        };
        assert!(pg.standby);
        assert_eq!(pg.url, "postgres://u@h:5432/db");
        let refused = store_engine(None, true).unwrap_err().to_string();
        assert!(refused.contains("--standby needs --store"), "{refused}");
        let refused = store_engine(Some("mysql://x"), false)
            .unwrap_err()
            .to_string();
        assert!(refused.contains("postgres://"), "{refused}");
    }
}
