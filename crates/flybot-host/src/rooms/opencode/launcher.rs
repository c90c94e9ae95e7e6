//! Which OpenCode a running host starts for an OpenCode Bot (#198), and
//! the model it points that OpenCode at. The pinned `opencode serve` is
//! found when the host starts (`$FLYBOT_OPENCODE`, then the README's
//! install folder) and its version is checked before each start; the
//! scripted fake is a mock for tests and offline demos, named as such, and
//! only in a build with the `fake-runtime` feature.

use flybot_agent::model::config::ModelRoute;
use flybot_interop::egress::EgressTrap;
use flybot_interop::opencode::PINNED_VERSION;
use flybot_interop::opencode::config::ModelEndpoint;
#[cfg(feature = "fake-runtime")]
use flybot_interop::opencode::fake::{FakeGaps, FakeOpenCode, FakeStep, fake_doc_digest};
use flybot_interop::opencode::locate::{README_PATH, locate};
use flybot_interop::opencode::pin::PINNED_DOC_SHA256;
use flybot_interop::opencode::process::{OpenCodeProcess, version_of};
use std::path::{Path, PathBuf};

/// The OpenCode the host runs.
#[derive(Debug, Clone)]
pub enum OpenCodeRuntime {
    /// The pinned `opencode serve` at this path (its version is checked
    /// before each start).
    Pinned(PathBuf),
    /// None was found: an OpenCode Bot's turn says how to install it.
    Missing,
    /// The scripted fake OpenCode: a mock for tests and demos. Each card
    /// gets a fresh fake running these steps.
    #[cfg(feature = "fake-runtime")]
    Fake(Vec<FakeStep>),
    /// The scripted fake with the gaps it emulates (a runtime that does
    /// not confirm an abort, one that forgets a session).
    #[cfg(feature = "fake-runtime")]
    FakeGapped(Vec<FakeStep>, FakeGaps),
}

impl OpenCodeRuntime {
    /// `$FLYBOT_OPENCODE`, then `.tools/opencode` under `roots` (and their
    /// parents).
    pub fn located(roots: &[PathBuf]) -> OpenCodeRuntime {
        let env = std::env::var_os("FLYBOT_OPENCODE").map(PathBuf::from);
        locate(None, env.as_deref(), roots).map_or(OpenCodeRuntime::Missing, |found| {
            OpenCodeRuntime::Pinned(found.binary)
        })
    }
}

/// One started OpenCode: where it listens, the `/doc` digest it must match,
/// its version, and what keeps it alive.
pub struct Started {
    pub base: String,
    pub pin: String,
    pub version: String,
    /// The real child's proxy trap: every outbound attempt it made.
    pub trap: Option<EgressTrap>,
    /// The mechanism that holds the real child's network (`None` on the
    /// fake, which starts no process).
    pub sandbox: Option<String>,
    /// The fake's record of what it was sent (the fake only).
    #[cfg(feature = "fake-runtime")]
    pub fake: Option<FakeOpenCode>,
    _process: Option<OpenCodeProcess>,
}

impl Started {
    /// How many requests the fake OpenCode served (none on the real one).
    pub fn fake_requests(&self) -> Option<u64> {
        #[cfg(feature = "fake-runtime")]
        if let Some(fake) = &self.fake {
            return Some(fake.requests());
        }
        None
    }

    /// Every prompt the fake OpenCode received (empty on the real one).
    pub fn fake_prompts(&self) -> Vec<String> {
        #[cfg(feature = "fake-runtime")]
        if let Some(fake) = &self.fake {
            return fake.prompts().into_iter().map(|(_, text)| text).collect();
        }
        Vec::new()
    }
}

/// The model endpoint OpenCode is pointed at for a Bot's model: the
/// route's own OpenAI-compatible endpoint, or the mock served on loopback
/// (`serve_mock`). A provider that needs a key is refused: the key stays
/// with the host.
pub fn endpoint_of(route: &ModelRoute) -> Result<Option<ModelEndpoint>, String> {
    if route.needs_key {
        return Err(format!(
            "the model {} needs a key, and an OpenCode Bot runs only on a keyless endpoint (a local server or the mock) so no key leaves the host",
            route.name
        ));
    }
    Ok(route.base_url.as_ref().map(|base| ModelEndpoint {
        base_url: base.clone(),
        model: route.provider_model.clone(),
        limit: None,
    }))
}

/// Starts the runtime for one card: `root` is its private folder,
/// `workspace` the folder it edits.
pub async fn start(
    runtime: &OpenCodeRuntime,
    root: &Path,
    workspace: &Path,
    model: &ModelEndpoint,
    test_command: &[String],
) -> Result<Started, String> {
    match runtime {
        OpenCodeRuntime::Missing => Err(format!(
            "OpenCode {PINNED_VERSION} is not installed here: run the README's setup (it installs it into {README_PATH}) or set FLYBOT_OPENCODE, then restart the host"
        )),
        #[cfg(feature = "fake-runtime")]
        OpenCodeRuntime::Fake(steps) => {
            let gapped = OpenCodeRuntime::FakeGapped(steps.clone(), FakeGaps::default());
            Box::pin(start(&gapped, root, workspace, model, test_command)).await
        }
        #[cfg(feature = "fake-runtime")]
        OpenCodeRuntime::FakeGapped(steps, gaps) => {
            let gaps = gaps.clone();
            // Its sessions outlive it in the card's folder, as the pinned
            // server's do in its data folder, so a restart can reconcile.
            std::fs::create_dir_all(root)
                .map_err(|e| format!("the fake OpenCode's folder could not be made: {e}"))?;
            let fake = FakeOpenCode::new(steps.clone(), gaps.clone(), workspace.to_owned())
                .persisted_in(root.join("fake-sessions.json"));
            let base = fake
                .clone()
                .serve()
                .await
                .map_err(|e| format!("the fake OpenCode could not bind: {e}"))?;
            Ok(Started {
                base,
                pin: fake_doc_digest(&gaps),
                version: "fake (scripted mock of the pinned routes)".to_owned(),
                trap: None,
                sandbox: None,
                fake: Some(fake),
                _process: None,
            })
        }
        OpenCodeRuntime::Pinned(binary) => {
            let version = version_of(binary, &root.join("version-probe"))
                .await
                .map_err(|e| format!("{} could not be run: {e}", binary.display()))?;
            if version != PINNED_VERSION {
                return Err(format!(
                    "{} is OpenCode {version:?}, not the pinned {PINNED_VERSION}",
                    binary.display()
                ));
            }
            let trap = EgressTrap::start()
                .await
                .map_err(|e| format!("the egress trap could not bind: {e}"))?;
            let process = OpenCodeProcess::start_for(
                binary,
                root,
                workspace,
                model,
                test_command,
                Some(trap.url()),
            )
            .await
            .map_err(|e| format!("opencode serve did not start: {e}"))?;
            Ok(Started {
                base: process.base().to_owned(),
                pin: PINNED_DOC_SHA256.trim().to_owned(),
                version,
                trap: Some(trap),
                sandbox: Some(process.sandbox().to_owned()),
                #[cfg(feature = "fake-runtime")]
                fake: None,
                _process: Some(process),
            })
        }
    }
}
