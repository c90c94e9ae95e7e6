//! The confinement rule: every path a workspace tool touches is resolved
//! against the Session's working folder and must stay inside it.
//!
//! A path is refused when it has a `..` part, when it is absolute and not
//! under the folder, or when a symlink on the way leads outside. The check
//! canonicalizes the deepest part of the path that exists (following every
//! symlink in it) and appends the parts that do not exist yet, which cannot
//! be symlinks. The check is made at call time; a tool call does not race
//! another process of the Bot (one turn at a time per Session), so the gap
//! between the check and the use is not an escape route in practice.

use super::error::{Refusal, Result, WorkspaceError};
use std::io;
use std::path::{Component, Path, PathBuf};

/// A Session's working folder, canonicalized once.
#[derive(Debug, Clone)]
pub struct WorkingFolder {
    root: PathBuf,
}

impl WorkingFolder {
    /// The folder at `root`, which must exist and be a folder.
    pub fn open(root: &Path) -> Result<WorkingFolder> {
        let canonical = match std::fs::canonicalize(root) {
            Ok(path) => path,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(Refusal::RootMissing.into());
            }
            Err(e) => return Err(WorkspaceError::io("open", root.to_path_buf(), ".", e)),
        };
        if !canonical.is_dir() {
            return Err(Refusal::RootMissing.into());
        }
        Ok(WorkingFolder { root: canonical })
    }

    /// The canonical root.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The absolute path inside the folder that `requested` names. `""` and
    /// `"."` are the folder itself.
    pub fn resolve(&self, requested: &str) -> Result<PathBuf> {
        let requested_path = Path::new(requested);
        if requested_path
            .components()
            .any(|part| part == Component::ParentDir)
        {
            return Err(Refusal::ParentDir {
                path: requested.to_owned(),
            }
            .into());
        }
        let candidate = if requested_path.is_absolute() {
            if !requested_path.starts_with(&self.root) {
                return Err(Refusal::AbsoluteOutside {
                    path: requested.to_owned(),
                }
                .into());
            }
            requested_path.to_path_buf()
        } else {
            self.root.join(requested_path)
        };

        // The deepest part that exists as an entry (a dangling symlink is an
        // entry: `symlink_metadata` does not follow it).
        let mut existing = candidate.clone();
        let mut missing: Vec<std::ffi::OsString> = Vec::new();
        loop {
            match std::fs::symlink_metadata(&existing) {
                Ok(_) => break,
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    if existing == self.root {
                        return Err(Refusal::RootMissing.into());
                    }
                    match (existing.file_name(), existing.parent()) {
                        (Some(name), Some(parent)) => {
                            missing.push(name.to_owned());
                            existing = parent.to_path_buf();
                        }
                        // Walked past the root: the root itself is gone.
                        _ => return Err(Refusal::RootMissing.into()),
                    }
                }
                Err(e) => return Err(WorkspaceError::io("open", existing, requested, e)),
            }
        }
        let mut resolved = match std::fs::canonicalize(&existing) {
            Ok(path) => path,
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                return Err(Refusal::DanglingSymlink {
                    path: requested.to_owned(),
                }
                .into());
            }
            Err(e) => return Err(WorkspaceError::io("open", existing, requested, e)),
        };
        if !resolved.starts_with(&self.root) {
            return Err(Refusal::SymlinkEscapes {
                path: requested.to_owned(),
            }
            .into());
        }
        resolved.extend(missing.iter().rev());
        Ok(resolved)
    }

    /// `path` (inside the folder) as the model would write it: relative, with
    /// `/` separators, `.` for the folder itself.
    pub fn shown(&self, path: &Path) -> String {
        match path.strip_prefix(&self.root) {
            Ok(relative) if relative.as_os_str().is_empty() => ".".to_owned(),
            Ok(relative) => relative.to_string_lossy().replace('\\', "/"),
            Err(_) => path.to_string_lossy().into_owned(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::symlink;

    fn folder() -> (tempfile::TempDir, WorkingFolder) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join("root")).unwrap();
        let folder = WorkingFolder::open(&dir.path().join("root")).unwrap();
        (dir, folder)
    }

    fn refusal(result: Result<PathBuf>) -> Refusal {
        match result {
            Err(WorkspaceError::Refused(refusal)) => refusal,
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn workspace_path_inside_resolves() {
        let (_dir, folder) = folder();
        let root = folder.root().to_path_buf();
        assert_eq!(folder.resolve("").unwrap(), root);
        assert_eq!(folder.resolve(".").unwrap(), root);
        assert_eq!(folder.resolve("a/b.txt").unwrap(), root.join("a/b.txt"));
        assert_eq!(folder.resolve("./a/./b").unwrap(), root.join("a/b"));
        let absolute = root.join("x.txt");
        assert_eq!(
            folder.resolve(absolute.to_str().unwrap()).unwrap(),
            absolute
        );
        assert_eq!(folder.shown(&root.join("a/b.txt")), "a/b.txt");
        assert_eq!(folder.shown(&root), ".");
    }

    #[test]
    fn workspace_path_refuses_parent_dir() {
        let (_dir, folder) = folder();
        for path in ["..", "../x", "a/../../x", "a/../b"] {
            assert_eq!(
                refusal(folder.resolve(path)),
                Refusal::ParentDir { path: path.into() }
            );
        }
        let sentence = Refusal::ParentDir {
            path: "../x".into(),
        }
        .to_string();
        assert_eq!(
            sentence,
            "`../x` goes up with `..`; give a path inside the working folder without `..`."
        );
    }

    #[test]
    fn workspace_path_refuses_absolute_outside() {
        let (dir, folder) = folder();
        for path in ["/etc/passwd", "/", dir.path().to_str().unwrap()] {
            assert_eq!(
                refusal(folder.resolve(path)),
                Refusal::AbsoluteOutside { path: path.into() }
            );
        }
    }

    #[test]
    fn workspace_path_refuses_escaping_symlinks() {
        let (dir, folder) = folder();
        let root = folder.root().to_path_buf();
        std::fs::write(dir.path().join("secret.txt"), "s").unwrap();
        symlink(dir.path(), root.join("up")).unwrap();
        symlink(dir.path().join("secret.txt"), root.join("secret")).unwrap();
        symlink("/etc", root.join("etc")).unwrap();
        for path in [
            "up",
            "up/secret.txt",
            "up/new/file.txt",
            "secret",
            "etc/hostname",
        ] {
            assert_eq!(
                refusal(folder.resolve(path)),
                Refusal::SymlinkEscapes { path: path.into() },
                "{path}"
            );
        }
        // A dangling symlink is refused too: writing through it would create
        // a file wherever it points.
        symlink(dir.path().join("nowhere"), root.join("dangling")).unwrap();
        assert_eq!(
            refusal(folder.resolve("dangling")),
            Refusal::DanglingSymlink {
                path: "dangling".into()
            }
        );
    }

    #[test]
    fn workspace_path_allows_symlinks_that_stay_inside() {
        let (_dir, folder) = folder();
        let root = folder.root().to_path_buf();
        std::fs::create_dir(root.join("real")).unwrap();
        symlink(root.join("real"), root.join("alias")).unwrap();
        assert_eq!(
            folder.resolve("alias/new.txt").unwrap(),
            root.join("real/new.txt")
        );
    }

    #[test]
    fn workspace_path_root_must_exist() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("gone");
        assert!(matches!(
            WorkingFolder::open(&missing),
            Err(WorkspaceError::Refused(Refusal::RootMissing))
        ));
        std::fs::write(&missing, "a file").unwrap();
        assert!(matches!(
            WorkingFolder::open(&missing),
            Err(WorkspaceError::Refused(Refusal::RootMissing))
        ));
        // A folder removed after it was opened.
        let (dir, folder) = folder();
        std::fs::remove_dir(dir.path().join("root")).unwrap();
        assert_eq!(refusal(folder.resolve("a.txt")), Refusal::RootMissing);
    }
}
