//! How far behind its branch the build is (#374), for the About block.
//! The spec's check is one unauthenticated
//! `GET <repo API>/compare/<commit>...<branch>`, read as `behind =
//! ahead_by` only when the answer's status is `ahead` or `identical`; a
//! failure, a diverged branch, a branch reset to before the commit
//! (`behind`), a branch name with odd characters, a pinned build (no
//! branch) or a build with no known commit is `null`: unknown, never "Up to
//! date".
//!
//! The check reaches the network, so it is off unless the owner turns it
//! on (`FLYBOT_UPDATE_CHECK`, the repository API's base, e.g.
//! `https://api.github.com/repos/ThinkFlowLab/FlyBot`): an offline host,
//! and every test that does not start a loopback fake, asks nothing and
//! shows "unknown".

use crate::BuildInfo;
use serde::Deserialize;
use std::time::Duration;

/// How long the one request may take before the answer is unknown.
const CHECK_TIMEOUT: Duration = Duration::from_secs(5);

/// The compare path for a branch build: `compare/<commit>...<branch>`, or
/// None when nothing is compared (pinned, no 40-hex commit, no branch, a
/// branch name with characters a ref should not carry).
pub fn compare_path(build: &BuildInfo) -> Option<String> {
    if build.pinned {
        return None;
    }
    let commit = build
        .commit
        .as_deref()
        .map(str::trim)
        .filter(|c| c.len() == 40 && c.bytes().all(|b| b.is_ascii_hexdigit()))?;
    let branch = build.branch.as_deref().map(str::trim).filter(|b| {
        !b.is_empty()
            && *b != "HEAD"
            && b.len() <= 200
            && !b.contains("..")
            && !b.starts_with(['/', '-', '.'])
            && b.bytes()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'_' | b'-' | b'/'))
    })?;
    Some(format!(
        "compare/{}...{branch}",
        commit.to_ascii_lowercase()
    ))
}

/// The part of the compare answer the check reads.
#[derive(Debug, Deserialize)]
pub struct Compare {
    pub status: String,
    pub ahead_by: u64,
}

/// `behind` from a compare answer: `ahead_by` when the branch is ahead of
/// the build or identical to it, unknown otherwise.
pub fn behind_of(compare: &Compare) -> Option<u64> {
    match compare.status.as_str() {
        "ahead" => Some(compare.ahead_by),
        "identical" => Some(0),
        _ => None,
    }
}

/// Asks `api` (the repository API's base) how far behind `build` is; None
/// whenever the check is off or does not answer plainly.
pub async fn behind(api: Option<&str>, build: &BuildInfo) -> Option<u64> {
    let api = api.map(str::trim).filter(|a| !a.is_empty())?;
    let path = compare_path(build)?;
    let _ = rustls::crypto::ring::default_provider().install_default();
    let client = reqwest::Client::builder()
        .timeout(CHECK_TIMEOUT)
        .user_agent(concat!("flybot/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| tracing::warn!("the update check could not start: {e}"))
        .ok()?;
    let url = format!("{}/{path}", api.trim_end_matches('/'));
    let answer = client
        .get(&url)
        .header("accept", "application/vnd.github+json")
        .send()
        .await
        .and_then(reqwest::Response::error_for_status)
        .map_err(|e| tracing::warn!("the update check did not answer: {e}"))
        .ok()?;
    let compare: Compare = answer
        .json()
        .await
        .map_err(|e| tracing::warn!("the update check's answer is unreadable: {e}"))
        .ok()?;
    behind_of(&compare)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHA: &str = "0123456789abcdef0123456789abcdef01234567";

    fn build(branch: Option<&str>, commit: Option<&str>, pinned: bool) -> BuildInfo {
        BuildInfo {
            branch: branch.map(str::to_owned),
            commit: commit.map(str::to_owned),
            pinned,
        }
    }

    #[test]
    /// Rule #374.
    fn only_a_branch_build_with_a_known_commit_is_compared() {
        assert_eq!(
            compare_path(&build(Some("main"), Some(SHA), false)).as_deref(),
            Some("compare/0123456789abcdef0123456789abcdef01234567...main")
        );
        assert_eq!(
            compare_path(&build(Some("feature/x-1.2"), Some(SHA), false)).as_deref(),
            Some("compare/0123456789abcdef0123456789abcdef01234567...feature/x-1.2")
        );
        for odd in [
            "",
            "HEAD",
            "a..b",
            "-x",
            "main?x=1",
            "main#frag",
            "a b",
            "../up",
        ] {
            assert_eq!(
                compare_path(&build(Some(odd), Some(SHA), false)),
                None,
                "{odd}"
            );
        }
        assert_eq!(compare_path(&build(Some("main"), Some(SHA), true)), None);
        assert_eq!(
            compare_path(&build(Some("main"), Some("0123456"), false)),
            None
        );
        assert_eq!(compare_path(&build(Some("main"), None, false)), None);
    }

    #[test]
    /// Rule #374.
    fn behind_is_ahead_by_only_for_ahead_or_identical() {
        let read = |status: &str, ahead_by| {
            behind_of(&Compare {
                status: status.into(),
                ahead_by,
            })
        };
        assert_eq!(read("ahead", 3), Some(3));
        assert_eq!(read("identical", 0), Some(0));
        assert_eq!(read("diverged", 3), None);
        assert_eq!(read("behind", 0), None);
    }

    #[tokio::test]
    /// Rule #374.
    async fn the_check_is_off_without_an_api() {
        let b = build(Some("main"), Some(SHA), false);
        assert_eq!(behind(None, &b).await, None);
        assert_eq!(behind(Some("  "), &b).await, None);
    }
}
