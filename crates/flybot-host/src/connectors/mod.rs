//! Connectors (#311, #335, #601, #1271): the MCP servers the owner added,
//! as a service. Each is mounted through `mcp` (a supervised child process
//! in its own group, or a streamable-HTTP URL), its tools offered to the
//! Bots' turns as `mcp__<connector>__<tool>`, and its row (off /
//! connecting / ready / error, the tools, the error said plainly) shown by
//! `connectors`. A key a connector names is read from the secrets only to
//! start it, and taken out of any error before it is shown.

mod added;
pub mod mcp;
mod progress;
mod request;

use crate::secrets::Secrets;
use flybot_agent::tools::{DynTool, complete_schema};
use flybot_core::connectors::tool_name;
use flybot_protocol::ApiError;
use flybot_protocol::connectors::{ConnectorConnect, ConnectorRow, ConnectorStatus};
use mcp::{McpTool, Mounted, kill_group};
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};

/// The owner's connectors. Cheap to clone.
#[derive(Clone)]
pub struct Connectors {
    inner: Arc<Inner>,
}

struct Inner {
    secrets: Secrets,
    home: PathBuf,
    /// What the owner added, saved so a restart mounts it again.
    saved: flybot_store::connectors::ConnectorsFile,
    table: Mutex<BTreeMap<String, Entry>>,
}

/// One connector: what the owner asked for and where it is.
struct Entry {
    spec: ConnectorConnect,
    status: ConnectorStatus,
    error: Option<String>,
    tools: Vec<Arc<McpTool>>,
    pgid: Option<u32>,
    /// What holds the stdio server (issue 30); dropped, it kills the group.
    sandbox: Option<flybot_sandbox::ChildSandbox>,
    stop: Option<rmcp::service::RunningServiceCancellationToken>,
    /// Which mount this is, so a late end of an older one changes nothing.
    mount: u64,
}

impl Entry {
    fn connecting(spec: ConnectorConnect, mount: u64) -> Entry {
        Entry {
            spec,
            status: ConnectorStatus::Connecting,
            error: None,
            tools: Vec::new(),
            pgid: None,
            sandbox: None,
            stop: None,
            mount,
        }
    }

    fn failed(spec: ConnectorConnect, why: String, mount: u64) -> Entry {
        Entry {
            status: ConnectorStatus::Error,
            error: Some(why),
            ..Entry::connecting(spec, mount)
        }
    }

    fn row(&self, id: &str) -> ConnectorRow {
        ConnectorRow {
            id: id.to_owned(),
            kind: "mcp".to_owned(),
            status: self.status,
            tools: self.tools.iter().map(|t| t.name.clone()).collect(),
            error: self.error.clone(),
            command: self.spec.command.clone(),
            url: self.spec.url.clone(),
            channel: None,
        }
    }

    /// Stops the server, if one runs.
    fn stop(&mut self) {
        if let Some(stop) = self.stop.take() {
            stop.cancel();
        }
        kill_group(self.pgid.take());
        self.sandbox = None;
        self.tools.clear();
    }
}

impl Connectors {
    pub fn new(secrets: &Secrets, home: &std::path::Path) -> Connectors {
        Connectors {
            inner: Arc::new(Inner {
                secrets: secrets.clone(),
                home: home.to_owned(),
                saved: flybot_store::connectors::ConnectorsFile::new(home),
                table: Mutex::new(BTreeMap::new()),
            }),
        }
    }

    fn table(&self) -> MutexGuard<'_, BTreeMap<String, Entry>> {
        // A panic while the lock was held left plain data: use it.
        self.inner
            .table
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    pub fn secrets(&self) -> &Secrets {
        &self.inner.secrets
    }

    /// Every connector's row, by id.
    pub fn rows(&self) -> Vec<ConnectorRow> {
        self.table().iter().map(|(id, e)| e.row(id)).collect()
    }

    /// A ready connector's plain variable `name`: the GitHub connector's
    /// `GITHUB_LOGIN`, the account the Project Assistant posts for (#1712).
    /// `None` while the connector is not ready (not signed in).
    pub fn ready_env(&self, id: &str, name: &str) -> Option<String> {
        self.table()
            .get(id)
            .filter(|e| e.status == ConnectorStatus::Ready)
            .and_then(|e| e.spec.env.get(name).cloned())
    }

    /// One connector's row; an unknown id is `off`.
    pub fn row(&self, id: &str) -> ConnectorRow {
        self.row_unlocked(&self.table(), id)
    }

    /// The tools of every ready connector, for a turn's tool set.
    pub fn tools(&self) -> Vec<Arc<dyn DynTool>> {
        self.table()
            .values()
            .filter(|e| e.status == ConnectorStatus::Ready)
            .flat_map(|e| e.tools.iter().map(|t| t.clone() as Arc<dyn DynTool>))
            .collect()
    }

    /// Mounts `spec` (replacing a connector of the same id) and answers its
    /// row: `ready` with its tools, or `error` with why. A member's add:
    /// refused on a shared host (#49), saved before it mounts.
    pub async fn connect(&self, spec: ConnectorConnect) -> Result<ConnectorRow, ApiError> {
        self.inner.secrets.check_writable()?;
        let spec = request::with_github_defaults(spec);
        let (endpoint, keys) = request::endpoint(&spec, &self.inner.secrets, &self.inner.home)?;
        let id = spec.id.clone();
        self.save_with(Some(&spec), &id)?;
        added::record(self.inner.secrets.team(), &id, Some(&spec)).await;
        Ok(self.mount(spec, endpoint, keys).await)
    }

    /// Mounts a saved connector as the host, never as a member (issue 39):
    /// nothing is checked against the caller and nothing is saved. One that
    /// cannot start (its key gone, its command gone) is an `error` row
    /// saying why, never silently missing.
    async fn mount_saved(&self, spec: ConnectorConnect) -> ConnectorRow {
        match request::endpoint(&spec, &self.inner.secrets, &self.inner.home) {
            Ok((endpoint, keys)) => self.mount(spec, endpoint, keys).await,
            Err(why) => {
                let id = spec.id.clone();
                self.put_failed(spec, why.message);
                self.row(&id)
            }
        }
    }

    /// Sets `spec`'s row to `error` with `why`, stopping what ran.
    fn put_failed(&self, spec: ConnectorConnect, why: String) {
        let mut table = self.table();
        let mount = table.get(&spec.id).map_or(0, |e| e.mount + 1);
        if let Some(old) = table.get_mut(&spec.id) {
            old.stop();
        }
        table.insert(spec.id.clone(), Entry::failed(spec, why, mount));
    }

    /// Mounts `spec` at `endpoint` and answers its row.
    async fn mount(
        &self,
        spec: ConnectorConnect,
        endpoint: mcp::Endpoint,
        keys: Vec<String>,
    ) -> ConnectorRow {
        let id = spec.id.clone();
        let mount = {
            let mut table = self.table();
            let mount = table.get(&id).map_or(1, |e| e.mount + 1);
            if let Some(old) = table.get_mut(&id) {
                old.stop();
            }
            table.insert(id.clone(), Entry::connecting(spec, mount));
            mount
        };
        let mounted = mcp::mount(&endpoint).await;
        let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
        let redact = |text: &str| flybot_core::secrets::redact(text, &keys);
        let mut table = self.table();
        let Some(entry) = table.get_mut(&id).filter(|e| e.mount == mount) else {
            // Disconnected or replaced while mounting: stop this one.
            if let Ok(mounted) = mounted {
                kill_group(mounted.pgid);
                mounted.service.cancellation_token().cancel();
            }
            return self.row_unlocked(&table, &id);
        };
        match mounted {
            Err(why) => {
                entry.status = ConnectorStatus::Error;
                entry.error = Some(redact(&why));
            }
            Ok(mounted) => {
                let keys = Arc::new(keys.iter().map(|k| (*k).to_owned()).collect());
                self.ready(entry, &id, mounted, keys)
            }
        }
        entry.row(&id)
    }

    /// `connector-retry {id}`: mounts a saved connector again as the host
    /// (issue 39), for a caller the shared-surface rule lets retry.
    pub async fn retry(&self, id: &str) -> Result<ConnectorRow, ApiError> {
        flybot_core::connectors::check_name(id)?;
        let saved = self.inner.saved.load().unwrap_or_default();
        let Some(spec) = saved.into_iter().find(|s| s.id == id) else {
            return Err(ApiError::not_found("connector", id));
        };
        if !added::was_added(self.inner.secrets.team(), &spec) {
            self.put_failed(spec, added::NOT_ADDED.to_owned());
            return Ok(self.row(id));
        }
        Ok(self.mount_saved(spec).await)
    }

    fn row_unlocked(&self, table: &BTreeMap<String, Entry>, id: &str) -> ConnectorRow {
        match table.get(id) {
            Some(entry) => entry.row(id),
            None => ConnectorRow::off(id, "mcp"),
        }
    }

    /// Marks `entry` ready with `mounted`'s tools and watches its session.
    fn ready(&self, entry: &mut Entry, id: &str, mut mounted: Mounted, keys: Arc<Vec<String>>) {
        let approval = &entry.spec.approval;
        entry.tools = mounted
            .tools
            .iter()
            .map(|tool| {
                let mut schema = serde_json::Value::Object((*tool.input_schema).clone());
                complete_schema(&mut schema);
                Arc::new(McpTool {
                    name: tool_name(id, &tool.name),
                    remote: tool.name.to_string(),
                    description: tool.description.as_deref().unwrap_or("").to_owned(),
                    schema,
                    approval: approval.iter().any(|a| a == tool.name.as_ref()),
                    peer: mounted.peer.clone(),
                    progress: mounted.progress.clone(),
                    keys: keys.clone(),
                })
            })
            .collect();
        entry.status = ConnectorStatus::Ready;
        entry.error = None;
        entry.pgid = mounted.pgid;
        entry.sandbox = mounted.sandbox.take();
        entry.stop = Some(mounted.service.cancellation_token());
        let (watcher, id, mount, pgid) = (self.clone(), id.to_owned(), entry.mount, mounted.pgid);
        tokio::spawn(async move {
            let why = mcp::ended(mounted.service).await;
            kill_group(pgid);
            watcher.ended(&id, mount, why);
        });
    }

    /// The session of mount `mount` ended: an exit is an error on the row.
    fn ended(&self, id: &str, mount: u64, why: Option<String>) {
        let mut table = self.table();
        if let Some(entry) = table.get_mut(id).filter(|e| e.mount == mount)
            && entry.status == ConnectorStatus::Ready
        {
            entry.status = ConnectorStatus::Error;
            entry.error = why.or(Some("The server's session ended.".to_owned()));
            entry.tools.clear();
            entry.pgid = None;
            entry.sandbox = None;
            entry.stop = None;
        }
    }

    /// Stops the connector and forgets it; its row reads `off`.
    pub fn disconnect(&self, id: &str) -> Result<ConnectorRow, ApiError> {
        self.inner.secrets.check_writable()?;
        flybot_core::connectors::check_name(id)?;
        let mut table = self.table();
        let Some(mut entry) = table.remove(id) else {
            return Err(ApiError::not_found("connector", id));
        };
        entry.stop();
        drop(table);
        self.save_with(None, id)?;
        let (team, id_owned) = (self.inner.secrets.team().clone(), id.to_owned());
        tokio::spawn(async move { added::record(&team, &id_owned, None).await });
        Ok(self.row(id))
    }

    /// The process group of a stdio connector's server, while it runs (for
    /// a supervisor or a test that stops it from outside).
    pub fn process_group(&self, id: &str) -> Option<u32> {
        self.table().get(id).and_then(|e| e.pgid)
    }

    /// Saves the connectors with `id` replaced by `spec` (or removed).
    fn save_with(&self, spec: Option<&ConnectorConnect>, id: &str) -> Result<(), ApiError> {
        let file = &self.inner.saved;
        let mut saved = file.load().unwrap_or_default();
        saved.retain(|s| s.id != id);
        saved.extend(spec.cloned());
        file.save(&saved).map_err(|e| {
            tracing::error!("connectors.json could not be saved: {e}");
            ApiError::new(
                flybot_protocol::ErrorCode::ReadOnly,
                "The connectors could not be saved on this host's disk.",
            )
        })
    }

    /// Mounts every saved connector again, each on its own task (a start).
    pub fn restore(&self) {
        let saved = match self.inner.saved.load() {
            Ok(saved) => saved,
            Err(e) => {
                tracing::warn!("connectors.json is unreadable; no connector is mounted: {e}");
                return;
            }
        };
        for spec in saved {
            // Issue 30: only what the owner added through the channel runs.
            if !added::was_added(self.inner.secrets.team(), &spec) {
                tracing::warn!("connector {} is not started: {}", spec.id, added::NOT_ADDED);
                self.put_failed(spec, added::NOT_ADDED.to_owned());
                continue;
            }
            // Issue 39: the host mounts what its owner saved, as itself, so
            // a second member joining since takes nothing away.
            let hub = self.clone();
            tokio::spawn(async move {
                let row = hub.mount_saved(spec).await;
                if let Some(why) = row.error {
                    tracing::warn!("the saved connector {} did not start: {why}", row.id);
                }
            });
        }
    }

    /// Stops every server (the host is stopping).
    pub fn stop_all(&self) {
        for entry in self.table().values_mut() {
            entry.stop();
        }
    }
}
