//! Shared, non-isolatable surfaces (#49): deployment-wide preferences and the
//! host's diagnostics. One member cannot change or read them for everyone
//! once the team has more than one member: `bot/blocked-shared`.

use crate::actor::journal_actor;
use crate::team::Team;
use flybot_core::access::{Actor, shared_blocked};
use flybot_protocol::ApiError;
use flybot_protocol::answers::{
    Diagnostics, DiagnosticsAnswer, PrefsAnswer, StoreWriter, TeamCounts,
};
use flybot_protocol::channel::SetPrefs;
use flybot_store::StoreStatus;

/// The most preference keys, and the longest preference value in bytes.
const PREFS_MAX: usize = 200;
const PREF_VALUE_MAX: usize = 16 * 1024;

pub(super) use crate::secrets::blocked_shared as blocked;

/// `set-prefs {prefs}` → `{prefs}`: merges keys; a key set to null is removed,
/// and the notification keys keep only what is off (core `prefs`, #469).
pub async fn set_prefs(team: &Team, actor: &Actor, req: SetPrefs) -> Result<PrefsAnswer, ApiError> {
    for (key, value) in &req.prefs {
        if key.is_empty() || key.len() > 100 || key.chars().any(char::is_control) {
            return Err(ApiError::invalid(
                "prefs",
                "A preference key is 1 to 100 printable characters.",
            ));
        }
        // Quiet hours (#1166): a window that does not read is refused.
        if key == "quietHours" {
            flybot_core::schedules::quiet::quiet_hours(Some(value))?;
        }
        if value.to_string().len() > PREF_VALUE_MAX {
            return Err(ApiError::invalid(
                &format!("prefs.{key}"),
                "A preference value is at most 16 KiB of JSON.",
            ));
        }
    }
    let prefs = team
        .mutate(journal_actor(actor), |change| {
            if shared_blocked(change.state()) {
                return Err(blocked("Preferences"));
            }
            for (key, value) in &req.prefs {
                let current = change.state().prefs.get(key).cloned();
                let next = flybot_core::prefs::next_pref(key, current.as_ref(), value)?;
                if next != current {
                    change.set_pref(key, next.as_ref());
                }
            }
            if change.state().prefs.len() > PREFS_MAX {
                return Err(ApiError::invalid(
                    "prefs",
                    format!("The host keeps at most {PREFS_MAX} preferences."),
                ));
            }
            Ok(change.state().prefs.clone())
        })
        .await?;
    Ok(PrefsAnswer { prefs })
}

/// `diagnostics` → where the home is, whether this team writes, sizes, and
/// the About block's build, links and how far behind the build is (#374:
/// null unless the owner turned the update check on and it answered).
pub async fn diagnostics(
    team: &Team,
    config: &crate::HostConfig,
    actor: &Actor,
) -> Result<DiagnosticsAnswer, ApiError> {
    let mut answer = diagnostics_now(team, config, actor)?;
    answer.diagnostics.behind =
        super::behind::behind(config.update_check.as_deref(), &config.build).await;
    Ok(answer)
}

fn diagnostics_now(
    team: &Team,
    config: &crate::HostConfig,
    _actor: &Actor,
) -> Result<DiagnosticsAnswer, ApiError> {
    let home = &config.home;
    let store = team.store();
    store.read(|state| {
        if shared_blocked(state) {
            return Err(blocked("Diagnostics"));
        }
        let writer = match store.status() {
            StoreStatus::Writer => StoreWriter {
                writer: true,
                reason: None,
            },
            StoreStatus::ReadOnly(reason) => StoreWriter {
                writer: false,
                reason: Some(crate::http::read_only_sentence(&reason)),
            },
        };
        Ok(DiagnosticsAnswer {
            diagnostics: Diagnostics {
                version: env!("CARGO_PKG_VERSION").to_owned(),
                home: home.display().to_string(),
                store: writer,
                revision: store.revision(),
                saves_queued: store.saves_queued(),
                counts: TeamCounts {
                    members: state.members.len(),
                    bots: state.bots.len(),
                    rooms: state.rooms.len(),
                    tasks: state.tasks.len(),
                },
                build: super::about::build_view(&config.build),
                links: super::about::links(),
                behind: None,
            },
        })
    })
}
