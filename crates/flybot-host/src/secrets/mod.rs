//! The owner's saved keys (#545, #651) as a service: `secrets.json` read
//! and written by one writer at a time (a lock around load, edit, atomic
//! save), widened once at start when this host writes the team, and the
//! keys each Bot's shell gets (`SecretAccess`). A file this build cannot
//! read gives no Bot a key and refuses every write (fail closed).

use crate::team::Team;
use flybot_agent::tools::secrets::SecretAccess;
use flybot_core::access::{Actor, shared_blocked};
use flybot_core::rooms::participants::{ParticipantKind, participants_of};
use flybot_core::secrets::{ShellBot, ShellSecrets, shell_secrets, widen_on_load};
use flybot_core::shared_surfaces::{SharedSurfaceAccess, shared_surface_access};
use flybot_protocol::secrets::SecretsFile;
use flybot_protocol::state::TeamState;
use flybot_protocol::{ApiError, ErrorCode};
use flybot_store::StoreStatus;
use flybot_store::secrets::SecretsStore;
use std::path::Path;
use std::sync::{Arc, Mutex};

/// The saved keys. Cheap to clone.
#[derive(Clone)]
pub struct Secrets {
    inner: Arc<Inner>,
}

struct Inner {
    team: Team,
    store: SecretsStore,
    /// One edit at a time: load, change, save.
    writing: Mutex<()>,
}

impl Secrets {
    /// The keys of `home`; a writing host widens an old empty scope once
    /// and saves it back, a reading host widens in memory only (#545).
    pub fn open(team: &Team, home: &Path) -> Secrets {
        let secrets = Secrets {
            inner: Arc::new(Inner {
                team: team.clone(),
                store: SecretsStore::new(home),
                writing: Mutex::new(()),
            }),
        };
        if matches!(team.store().status(), StoreStatus::Writer)
            && let Ok(mut file) = secrets.inner.store.load()
            && widen_on_load(&mut file)
            && let Err(e) = secrets.inner.store.save(&file)
        {
            tracing::warn!("the widened secret scopes could not be saved: {e}");
        }
        secrets
    }

    /// The saved keys, widened as loading does.
    pub fn read(&self) -> Result<SecretsFile, ApiError> {
        let mut file = self.inner.store.load().map_err(|e| {
            tracing::warn!("{e}");
            ApiError::new(
                ErrorCode::ReadOnly,
                format!("The saved secrets cannot be read ({e}); fix or remove secrets.json."),
            )
        })?;
        widen_on_load(&mut file);
        Ok(file)
    }

    /// Refuses a shared write (#49) or a write to a read-only home.
    pub fn check_writable(&self) -> Result<(), ApiError> {
        self.check_shared("Secrets and connectors")?;
        self.check_disk()
    }

    /// Refuses a write to a read-only home.
    fn check_disk(&self) -> Result<(), ApiError> {
        if let StoreStatus::ReadOnly(reason) = self.inner.team.store().status() {
            // A home the disk stopped writing is a fault of the host
            // (`bot/unavailable`); another writer or a standby is not.
            return Err(flybot_store::read_only_error(&reason));
        }
        Ok(())
    }

    /// `bot/blocked-shared` while the team has more than one member (#49).
    pub fn check_shared(&self, what: &str) -> Result<(), ApiError> {
        if self.inner.team.read(shared_blocked) {
            return Err(blocked_shared(what));
        }
        Ok(())
    }

    /// The caller's reach over the keys and connectors (issue 39).
    pub fn access(&self, actor: &Actor) -> SharedSurfaceAccess {
        self.inner
            .team
            .read(|state| shared_surface_access(state, actor))
    }

    /// Refuses `what`'s rows to a caller who may not read them: on a
    /// shared host, anyone but its owner (#49, issue 39).
    pub fn check_read(&self, actor: &Actor, what: &str) -> Result<(), ApiError> {
        if self.access(actor).may_read() {
            return Ok(());
        }
        Err(blocked_shared(what))
    }

    /// Loads, runs `edit`, and saves atomically; nothing is written when
    /// `edit` refuses.
    pub fn edit<T>(
        &self,
        edit: impl FnOnce(&mut SecretsFile, &TeamState) -> Result<T, ApiError>,
    ) -> Result<T, ApiError> {
        self.check_writable()?;
        self.write(edit)
    }

    /// As `edit`, for a value the host itself keeps fresh (the Matrix
    /// token a homeserver rotates, issue 33): no person's write, so the
    /// shared block (#49) does not apply; a read-only home still refuses.
    pub fn renew<T>(
        &self,
        edit: impl FnOnce(&mut SecretsFile, &TeamState) -> Result<T, ApiError>,
    ) -> Result<T, ApiError> {
        self.check_disk()?;
        self.write(edit)
    }

    fn write<T>(
        &self,
        edit: impl FnOnce(&mut SecretsFile, &TeamState) -> Result<T, ApiError>,
    ) -> Result<T, ApiError> {
        let _one = self.inner.writing.lock().map_err(|_| {
            // A write that panicked broke the lock: a fault of the host,
            // never of the request (issue 38).
            ApiError::new(
                ErrorCode::Unavailable,
                "A secrets write failed on this host; try again.",
            )
        })?;
        let mut file = self.read()?;
        let answer = self.inner.team.read(|state| edit(&mut file, state))?;
        self.inner.store.save(&file).map_err(|e| {
            tracing::error!("secrets.json could not be saved: {e}");
            ApiError::new(
                ErrorCode::Unavailable,
                "The secrets could not be saved on this host's disk; nothing changed.",
            )
        })?;
        Ok(answer)
    }

    /// A value of `name` for the host's own use (a connector's key).
    pub fn value(&self, name: &str) -> Option<String> {
        self.read()
            .ok()
            .and_then(|file| file.secrets.get(name).map(|r| r.value.0.clone()))
    }

    /// The team, for the rules that read it with the keys.
    pub fn team(&self) -> &Team {
        &self.inner.team
    }
}

/// Whose shell `bot_id` is: a Bot of the team, a friend's Bot seated in a
/// room, or nobody the team knows.
pub fn shell_bot<'a>(state: &'a TeamState, bot_id: &'a str) -> ShellBot<'a> {
    if let Some(bot) = state.bots.get(bot_id) {
        return ShellBot::Own {
            bot_id: &bot.id,
            owner_id: &bot.owner_id,
        };
    }
    let remote = state.rooms.values().any(|room| {
        participants_of(room)
            .iter()
            .any(|seat| seat.kind == ParticipantKind::RemoteBot && seat.id == bot_id)
    });
    if remote {
        ShellBot::Remote
    } else {
        ShellBot::Unknown
    }
}

impl SecretAccess for Secrets {
    fn shell(&self, bot_id: &str) -> ShellSecrets {
        // A file that cannot be read gives no key (fail closed).
        let Ok(file) = self.read() else {
            return ShellSecrets::default();
        };
        self.inner
            .team
            .read(|state| shell_secrets(&file, shell_bot(state, bot_id)))
    }
}

/// The one refusal of a shared surface (#49).
pub fn blocked_shared(what: &str) -> ApiError {
    ApiError::new(
        ErrorCode::BlockedShared,
        format!(
            "{what} belong to the whole host; while it has more than one member, no one member may use them."
        ),
    )
}
