//! What the build script stamps into the binary for the About block (#374):
//! the branch and commit git reports, or what the packager sets in
//! `FLYBOT_BUILD_BRANCH` / `FLYBOT_BUILD_COMMIT` (a source tarball has no
//! git). Shared by `build.rs` (through `#[path]`) and the binary's tests,
//! so it uses nothing but `std`. A build never fails for want of git.

/// The stamp: each part empty when nothing named it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Stamp {
    pub branch: String,
    pub commit: String,
    /// Built from a detached commit (no branch): the commit is pinned.
    pub pinned: bool,
}

/// The stamp from the packager's values (`env_*`, which win) and git's
/// answers (`git rev-parse --abbrev-ref HEAD`, `git rev-parse HEAD`), each
/// `None` when not set or when git did not answer.
pub fn stamp(
    env_branch: Option<&str>,
    env_commit: Option<&str>,
    git_branch: Option<&str>,
    git_commit: Option<&str>,
) -> Stamp {
    let clean = |v: Option<&str>| {
        v.map(str::trim)
            .filter(|v| !v.is_empty())
            .map(str::to_owned)
    };
    let commit = clean(env_commit)
        .or_else(|| clean(git_commit))
        .filter(|c| c.len() == 40 && c.bytes().all(|b| b.is_ascii_hexdigit()))
        .unwrap_or_default();
    let branch = clean(env_branch).or_else(|| clean(git_branch));
    // `--abbrev-ref` answers HEAD on a detached checkout: a pinned commit.
    let detached = branch.as_deref() == Some("HEAD");
    Stamp {
        pinned: detached && !commit.is_empty(),
        branch: branch
            .filter(|b| !detached && b.len() <= 200)
            .unwrap_or_default(),
        commit,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SHA: &str = "0123456789abcdef0123456789abcdef01234567";

    #[test]
    /// Rule #374.
    fn the_stamp_reads_git_the_packager_wins_and_no_git_is_no_stamp() {
        let main = Stamp {
            branch: "main".into(),
            commit: SHA.into(),
            pinned: false,
        };
        assert_eq!(stamp(None, None, Some("main\n"), Some(SHA)), main);
        assert_eq!(stamp(Some("main"), Some(SHA), Some("other"), None), main);
        let pinned = Stamp {
            branch: String::new(),
            commit: SHA.into(),
            pinned: true,
        };
        assert_eq!(stamp(None, None, Some("HEAD"), Some(SHA)), pinned);
        // No git (a source tarball) and nothing set: an empty stamp, no error.
        assert_eq!(stamp(None, None, None, None), Stamp::default());
        // Something that is not a full commit hash is not a commit.
        assert_eq!(stamp(None, Some("abc1234"), None, None).commit, "");
    }
}
