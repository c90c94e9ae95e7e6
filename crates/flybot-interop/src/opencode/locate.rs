//! Where the pinned OpenCode is: `--opencode PATH`, then `$FLYBOT_OPENCODE`,
//! then the folder the README's setup installs it into,
//! `<repo>/.tools/opencode/node_modules/.bin/opencode`. The answer says
//! which one was used, and `locate_pinned` refuses any other version.

use super::PINNED_VERSION;
use super::process::version_of;
use std::path::{Path, PathBuf};

/// The README's install folder, relative to the repository.
pub const README_PATH: &str = ".tools/opencode/node_modules/.bin/opencode";

/// The binary and how it was found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Located {
    pub binary: PathBuf,
    pub found_by: &'static str,
}

/// Finds OpenCode: the flag, the environment variable, then `README_PATH`
/// under each of `roots` (the current folder and its parents, the source
/// tree). A flag or variable that names nothing is still answered: the
/// version check then refuses it visibly.
pub fn locate(flag: Option<&Path>, env: Option<&Path>, roots: &[PathBuf]) -> Option<Located> {
    if let Some(path) = flag {
        return Some(Located {
            binary: path.to_owned(),
            found_by: "--opencode",
        });
    }
    if let Some(path) = env.filter(|p| !p.as_os_str().is_empty()) {
        return Some(Located {
            binary: path.to_owned(),
            found_by: "$FLYBOT_OPENCODE",
        });
    }
    roots
        .iter()
        .flat_map(|root| root.ancestors().map(Path::to_owned).collect::<Vec<_>>())
        .map(|root| root.join(README_PATH))
        .find(|candidate| candidate.exists())
        .map(|binary| Located {
            binary,
            found_by: "the README's install folder (.tools/opencode)",
        })
}

/// Why no pinned OpenCode can be used, in the sentence a person reads.
#[derive(Debug, thiserror::Error)]
pub enum NotPinned {
    #[error(
        "OpenCode {PINNED_VERSION} is not installed: run the README's setup (it installs it into {README_PATH}), or pass --opencode PATH or set FLYBOT_OPENCODE"
    )]
    Missing,
    #[error("{} could not be run", binary.display())]
    CouldNotRun {
        binary: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{} is OpenCode {version:?}, not the pinned {PINNED_VERSION}; nothing was started", binary.display())]
    OtherVersion { binary: PathBuf, version: String },
}

/// `locate`, then the found binary's `--version` (run in `scratch`) must be
/// the pinned one; nothing else is started before that check.
pub async fn locate_pinned(
    flag: Option<&Path>,
    env: Option<&Path>,
    roots: &[PathBuf],
    scratch: &Path,
) -> Result<Located, NotPinned> {
    let found = locate(flag, env, roots).ok_or(NotPinned::Missing)?;
    let version =
        version_of(&found.binary, scratch)
            .await
            .map_err(|source| NotPinned::CouldNotRun {
                binary: found.binary.clone(),
                source,
            })?;
    if version != PINNED_VERSION {
        return Err(NotPinned::OtherVersion {
            binary: found.binary,
            version,
        });
    }
    Ok(found)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_flag_wins_then_the_variable_then_the_readme_folder() {
        let flag = PathBuf::from("/a/opencode");
        let env = PathBuf::from("/b/opencode");
        let found = locate(Some(&flag), Some(&env), &[]).unwrap();
        assert_eq!((found.binary, found.found_by), (flag, "--opencode"));
        let found = locate(None, Some(&env), &[]).unwrap();
        assert_eq!(found.found_by, "$FLYBOT_OPENCODE");
        let dir = tempfile::tempdir().unwrap();
        let bin = dir.path().join(README_PATH);
        std::fs::create_dir_all(bin.parent().unwrap()).unwrap();
        std::fs::write(&bin, "").unwrap();
        let nested = dir.path().join("crates/x");
        let found = locate(None, None, &[nested]).unwrap();
        assert_eq!(found.binary, bin);
        assert!(locate(None, None, &[PathBuf::from("/nonexistent-root")]).is_none());
    }
}
