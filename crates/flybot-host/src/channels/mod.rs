//! Channel connectors (#1263, #1266) as a service: Feishu reached through
//! a group's custom-bot webhook (outbound: `connector-send`) or a
//! self-built app (one path in, `inbound`: an allowed sender's message
//! becomes a message to the connector's Bot; one path out, `outbound`: the
//! Bot's answer posted back into that chat). Credentials live only in
//! `secrets.json` (scoped to no Bot's shell); `channels.json` keeps the
//! mode, the Bot, the App ID and the allow-list; the row shows the status,
//! the allow-list and how many strangers were refused, never a value.

mod connect;
mod inbound;
mod outbound;

use crate::secrets::Secrets;
use crate::team::Team;
use flybot_agent::session::Sessions;
use flybot_core::connectors::channel::ChannelSecrets;
use flybot_protocol::channel_connectors::{ChannelMode, ChannelRow, SavedChannel};
use flybot_protocol::connectors::{ConnectorRow, ConnectorStatus};
use flybot_protocol::{ApiError, ErrorCode};
use flybot_store::channels::ChannelsFile;
use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::sync::{Arc, Mutex, MutexGuard};

pub use inbound::EVENTS_ROUTE;

/// The event ids a channel remembers, so a redelivered event lands once.
const SEEN_KEPT: usize = 512;
/// The distinct refused senders a row counts at most.
const REFUSED_KEPT: usize = 10_000;

/// The owner's channel connectors. Cheap to clone.
#[derive(Clone)]
pub struct Channels {
    inner: Arc<Inner>,
}

struct Inner {
    team: Team,
    secrets: Secrets,
    sessions: Sessions,
    file: ChannelsFile,
    /// The Feishu origin every call goes to (`[feishu] api`).
    origin: String,
    http: Option<reqwest::Client>,
    table: Mutex<BTreeMap<String, Live>>,
    /// Sessions with a channel's message not yet answered, and how many.
    waiting: Mutex<HashMap<String, usize>>,
}

/// One channel as it runs.
struct Live {
    saved: SavedChannel,
    status: ConnectorStatus,
    error: Option<String>,
    refused: BTreeSet<String>,
    seen: VecDeque<String>,
    last_event_at: Option<u64>,
    last_ok_at: Option<u64>,
    last_error: Option<String>,
}

impl Live {
    fn new(saved: SavedChannel, status: ConnectorStatus, error: Option<String>) -> Live {
        Live {
            saved,
            status,
            error,
            refused: BTreeSet::new(),
            seen: VecDeque::new(),
            last_event_at: None,
            last_ok_at: None,
            last_error: None,
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    // A panic while the lock was held left plain data: use it.
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

impl Channels {
    pub fn new(
        team: &Team,
        secrets: &Secrets,
        sessions: &Sessions,
        home: &std::path::Path,
        origin: &str,
    ) -> Channels {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let http = reqwest::Client::builder()
            .timeout(std::time::Duration::from_secs(60))
            .build()
            .inspect_err(|e| tracing::warn!("channel connectors are off: no HTTP client ({e})"))
            .ok();
        let channels = Channels {
            inner: Arc::new(Inner {
                team: team.clone(),
                secrets: secrets.clone(),
                sessions: sessions.clone(),
                file: ChannelsFile::new(home),
                origin: origin.to_owned(),
                http,
                table: Mutex::new(BTreeMap::new()),
                waiting: Mutex::new(HashMap::new()),
            }),
        };
        outbound::follow_answers(&channels);
        channels
    }

    fn table(&self) -> MutexGuard<'_, BTreeMap<String, Live>> {
        lock(&self.inner.table)
    }

    /// Whether a channel connector has this id.
    pub fn has(&self, id: &str) -> bool {
        self.table().contains_key(id)
    }

    /// Every channel's row, by id.
    pub fn rows(&self) -> Vec<ConnectorRow> {
        let saved = self.inner.secrets.read().unwrap_or_default();
        self.table()
            .iter()
            .map(|(id, live)| row(id, live, &saved))
            .collect()
    }

    /// One channel's row; an unknown id reads `off`.
    pub fn row(&self, id: &str) -> Option<ConnectorRow> {
        let saved = self.inner.secrets.read().unwrap_or_default();
        self.table().get(id).map(|live| row(id, live, &saved))
    }

    /// Brings back every saved channel: a webhook reads ready without
    /// posting (a restart never messages the group), an app whose pair is
    /// saved reads ready, a half-saved one reads error.
    pub fn restore(&self) {
        let saved = match self.inner.file.load() {
            Ok(saved) => saved,
            Err(e) => {
                tracing::warn!("channels.json is unreadable; no channel is connected: {e}");
                return;
            }
        };
        let file = self.inner.secrets.read().unwrap_or_default();
        let mut table = self.table();
        for channel in saved {
            let (status, error) = match credentials_set(&channel, &file) {
                true => (ConnectorStatus::Ready, None),
                false => (
                    ConnectorStatus::Error,
                    Some("A credential is missing; connect the channel again.".to_owned()),
                ),
            };
            table.insert(channel.id.clone(), Live::new(channel, status, error));
        }
    }

    /// Saves the channels with `id` replaced by `channel` (or removed).
    fn save_with(&self, channel: Option<&SavedChannel>, id: &str) -> Result<(), ApiError> {
        let file = &self.inner.file;
        let mut saved = file.load().unwrap_or_default();
        saved.retain(|s| s.id != id);
        saved.extend(channel.cloned());
        file.save(&saved).map_err(|e| {
            tracing::error!("channels.json could not be saved: {e}");
            ApiError::new(
                ErrorCode::ReadOnly,
                "The channel connectors could not be saved on this host's disk; nothing changed.",
            )
        })
    }

    /// The team, for the rules that read the Bots.
    pub(crate) fn team(&self) -> &Team {
        &self.inner.team
    }
}

/// Whether the channel's credentials are all in `secrets.json`.
fn credentials_set(channel: &SavedChannel, file: &flybot_protocol::secrets::SecretsFile) -> bool {
    let names = ChannelSecrets::of(&channel.id);
    let has = |name: &str| file.secrets.contains_key(name);
    match channel.mode {
        ChannelMode::Webhook => has(&names.webhook),
        ChannelMode::App => has(&names.app_secret) && has(&names.verification_token),
    }
}

fn row(id: &str, live: &Live, file: &flybot_protocol::secrets::SecretsFile) -> ConnectorRow {
    let app = live.saved.mode == ChannelMode::App;
    let pair = credentials_set(&live.saved, file);
    ConnectorRow {
        id: id.to_owned(),
        kind: "channel".to_owned(),
        status: live.status,
        tools: Vec::new(),
        error: live.error.clone(),
        command: None,
        url: None,
        channel: Some(ChannelRow {
            mode: live.saved.mode,
            bot_id: live.saved.bot_id.clone(),
            app_id: live.saved.app_id.clone(),
            app_pair: app.then(|| if pair { "set" } else { "missing" }.to_owned()),
            events_path: app.then(|| EVENTS_ROUTE.replace("{id}", id)),
            allowed: live.saved.allowed.clone(),
            refused_senders: live.refused.len(),
            last_event_at: live.last_event_at,
            last_ok_at: live.last_ok_at,
            last_error: live.last_error.clone(),
        }),
    }
}
