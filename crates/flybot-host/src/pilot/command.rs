//! What a command line needs to run one pilot (#198), shared by `flybot
//! pilot` and `flybot-bench pilot`: the real pinned OpenCode, found and
//! version-checked before anything starts, and one run on a fresh
//! temporary home that goes when the run's processes have ended.

use super::run::{PilotConfig, PilotRuntime};
use flybot_interop::opencode::locate::{NotPinned, locate_pinned};
use flybot_interop::pilot::report::PilotReport;
use std::path::{Path, PathBuf};

/// Why the pinned OpenCode could not be used.
#[derive(Debug, thiserror::Error)]
pub enum PinnedError {
    #[error(transparent)]
    NotPinned(#[from] NotPinned),
    #[error("the version check could not start: {0}")]
    Io(#[from] std::io::Error),
}

/// The real pinned OpenCode as the pilot's runtime: `flag`, then
/// `$FLYBOT_OPENCODE`, then the README's install folder under `roots`; its
/// `--version` runs in a scratch folder and must be the pinned one.
pub fn pinned_runtime(flag: Option<&Path>, roots: &[PathBuf]) -> Result<PilotRuntime, PinnedError> {
    let env = std::env::var_os("FLYBOT_OPENCODE").map(PathBuf::from);
    let scratch = tempfile::tempdir()?;
    let runtime = tokio::runtime::Runtime::new()?;
    let found = runtime.block_on(locate_pinned(flag, env.as_deref(), roots, scratch.path()))?;
    Ok(PilotRuntime::OpenCode {
        binary: found.binary,
        found_by: found.found_by.to_owned(),
    })
}

/// Runs the pilot once on a fresh temporary home; `command` is the command
/// line the report names.
pub fn pilot_on_temporary_home(
    runtime: PilotRuntime,
    real_model: Option<super::real_model::RealModel>,
    command: Vec<String>,
) -> Result<PilotReport, String> {
    pilot_on_temporary_home_asking(runtime, real_model, command, None)
}

/// `pilot_on_temporary_home`, asking a person to accept a result-ready
/// result (`flybot pilot --ask-acceptance`); accepted, the report is level 4.
pub fn pilot_on_temporary_home_asking(
    runtime: PilotRuntime,
    real_model: Option<super::real_model::RealModel>,
    command: Vec<String>,
    ask: Option<super::AcceptanceAsk>,
) -> Result<PilotReport, String> {
    let home = tempfile::tempdir().map_err(|e| format!("no temporary home: {e}"))?;
    let config = PilotConfig {
        runtime,
        home: home.path().to_owned(),
        command,
        real_model,
    };
    super::run_pilot_blocking_asking(config, ask)
}

impl PilotRuntime {
    /// Which OpenCode this is, for a person: `OpenCode from <how>: <path>`.
    pub fn described(&self) -> String {
        match self {
            #[cfg(feature = "fake-runtime")]
            PilotRuntime::Fake => "the scripted fake OpenCode".to_owned(),
            PilotRuntime::OpenCode { binary, found_by } => {
                format!("OpenCode from {found_by}: {}", binary.display())
            }
        }
    }
}
