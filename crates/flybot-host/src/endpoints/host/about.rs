//! The About block's facts (#374) and the diagnostics log download (#68).
//! The build is stamped into the binary when it is made (`crates/flybot`'s
//! build script reads git, or `FLYBOT_BUILD_BRANCH` / `FLYBOT_BUILD_COMMIT`
//! for a source tarball) and handed to the host in `HostConfig::build`; a
//! binary made without git shows no build rather than a guess. The log is
//! a shared, non-isolatable surface (#49): blocked once the host has more
//! than one member, like `diagnostics`.

use super::prefs::blocked;
use crate::BuildInfo;
use crate::team::Team;
use flybot_core::access::{Actor, shared_blocked};
use flybot_protocol::ApiError;
use flybot_protocol::answers::{AboutLinks, BuildView, DiagnosticsLogAnswer};
use flybot_store::diagnostics_log::{self, DIAGNOSTICS_LOG};
use std::path::Path;

/// FlyBot's repository.
pub const REPOSITORY: &str = "https://github.com/ThinkFlowLab/FlyBot";

/// The About block's links: source, release notes, the issue form.
pub fn links() -> AboutLinks {
    AboutLinks {
        repository: REPOSITORY,
        releases: "https://github.com/ThinkFlowLab/FlyBot/releases",
        issues: "https://github.com/ThinkFlowLab/FlyBot/issues/new",
    }
}

/// The build as the About block shows it (#374, #379): the commit is the
/// short 7 of a 40-hex hash, never another spelling; a pinned build has no
/// branch; nothing known is `None`, never a guess.
pub fn build_view(build: &BuildInfo) -> Option<BuildView> {
    fn clean(v: &Option<String>) -> Option<&str> {
        v.as_deref().map(str::trim).filter(|v| !v.is_empty())
    }
    let commit = clean(&build.commit)
        .filter(|c| c.len() == 40 && c.bytes().all(|b| b.is_ascii_hexdigit()))
        .map(|c| c[..7].to_ascii_lowercase());
    let branch = clean(&build.branch)
        .filter(|b| {
            !build.pinned && *b != "HEAD" && b.len() <= 200 && !b.chars().any(char::is_control)
        })
        .map(str::to_owned);
    if commit.is_none() && branch.is_none() {
        return None;
    }
    Some(BuildView {
        pinned: build.pinned && commit.is_some(),
        branch,
        commit,
    })
}

/// `diagnostics-log` → the home's diagnostics log, rotated part first; the
/// file is at most two limits long, so the answer is bounded.
pub fn diagnostics_log(
    team: &Team,
    home: &Path,
    _actor: &Actor,
) -> Result<DiagnosticsLogAnswer, ApiError> {
    if team.store().read(shared_blocked) {
        return Err(blocked("The diagnostics log"));
    }
    let bytes = diagnostics_log::read_all(home).map_err(|e| {
        tracing::warn!("the diagnostics log could not be read: {e}");
        ApiError::new(
            flybot_protocol::ErrorCode::Unavailable,
            "The diagnostics log could not be read; check the home folder's permissions.",
        )
    })?;
    let text = String::from_utf8_lossy(&bytes).into_owned();
    Ok(DiagnosticsLogAnswer {
        name: DIAGNOSTICS_LOG,
        bytes: bytes.len(),
        text,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn info(branch: Option<&str>, commit: Option<&str>, pinned: bool) -> BuildInfo {
        BuildInfo {
            branch: branch.map(str::to_owned),
            commit: commit.map(str::to_owned),
            pinned,
        }
    }

    #[test]
    /// Rule #374.
    fn the_build_shows_what_git_stamped_and_nothing_it_did_not() {
        let sha = "0123456789abcdef0123456789abcdef01234567";
        let view = |branch, commit, pinned| build_view(&info(branch, commit, pinned));
        let shown = |branch: Option<&str>, commit: Option<&str>, pinned| {
            Some(BuildView {
                branch: branch.map(str::to_owned),
                commit: commit.map(str::to_owned),
                pinned,
            })
        };
        assert_eq!(
            view(Some("main"), Some(sha), false),
            shown(Some("main"), Some("0123456"), false)
        );
        assert_eq!(
            view(Some("main"), Some(sha), true),
            shown(None, Some("0123456"), true)
        );
        assert_eq!(
            view(Some("HEAD"), Some(sha), false),
            shown(None, Some("0123456"), false)
        );
        // A short hex run is not a commit (#379), and no git is no build.
        assert_eq!(
            view(Some("main"), Some("0123456"), false),
            shown(Some("main"), None, false)
        );
        assert_eq!(view(None, None, false), None);
        assert_eq!(view(Some(" "), Some(""), true), None);
    }
}
