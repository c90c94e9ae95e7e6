//! `list_files`: the entries of a folder inside the working folder, one
//! level or the whole tree, capped so a large tree cannot flood the turn.

use super::error::{Refusal, Result, WorkspaceError};
use super::path::WorkingFolder;
use super::walk::{EntryKind, walk};
use schemars::JsonSchema;
use serde::Deserialize;

/// Entries listed unless asked for fewer.
pub const LIST_DEFAULT_ENTRIES: u32 = 200;
/// The most entries one call lists.
pub const LIST_MAX_ENTRIES: u32 = 2_000;

/// List the files and folders in a folder of the working folder.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ListFilesArgs {
    /// The folder to list, relative to the working folder (default: the working folder itself).
    #[serde(default)]
    pub path: Option<String>,
    /// List the whole tree below the folder, not just its own entries.
    #[serde(default)]
    pub recursive: bool,
    /// At most this many entries (default 200, at most 2000).
    #[serde(default)]
    pub max_entries: Option<u32>,
}

/// The listing: paths relative to the working folder, a folder ending in
/// `/`, a symlink in `@`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listing {
    pub entries: Vec<String>,
    /// The cap stopped the listing before its end.
    pub truncated: bool,
}

impl Listing {
    pub fn to_model_text(&self) -> String {
        let mut text = if self.entries.is_empty() {
            "(empty folder)".to_owned()
        } else {
            self.entries.join("\n")
        };
        if self.truncated {
            text.push_str(&format!(
                "\n[stopped at {} entries; list a sub-folder to see more]",
                self.entries.len()
            ));
        }
        text
    }
}

pub fn list_files(folder: &WorkingFolder, args: &ListFilesArgs) -> Result<Listing> {
    let shown = args.path.as_deref().unwrap_or(".");
    let start = folder.resolve(shown)?;
    if !start.is_dir() {
        if !start.exists() {
            return Err(WorkspaceError::io(
                "list",
                start,
                shown,
                std::io::ErrorKind::NotFound.into(),
            ));
        }
        return Err(Refusal::NotAFolder {
            path: shown.to_owned(),
        }
        .into());
    }
    let cap = args
        .max_entries
        .unwrap_or(LIST_DEFAULT_ENTRIES)
        .clamp(1, LIST_MAX_ENTRIES) as usize;
    let mut entries = Vec::new();
    let mut truncated = false;
    walk(&start, args.recursive, &mut |entry| {
        if entries.len() == cap {
            truncated = true;
            return false;
        }
        let name = folder.shown(&entry.path);
        entries.push(match entry.kind {
            EntryKind::File | EntryKind::Special => name,
            EntryKind::Folder => format!("{name}/"),
            EntryKind::Symlink => format!("{name}@"),
        });
        true
    })
    .map_err(|e| WorkspaceError::io("list", start.clone(), shown, e))?;
    Ok(Listing { entries, truncated })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree() -> (tempfile::TempDir, WorkingFolder) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("src/deep")).unwrap();
        std::fs::create_dir_all(root.join(".git/objects")).unwrap();
        std::fs::write(root.join("README.md"), "hi").unwrap();
        std::fs::write(root.join("src/main.rs"), "fn main() {}").unwrap();
        std::fs::write(root.join("src/deep/x.rs"), "x").unwrap();
        std::os::unix::fs::symlink("/etc", root.join("link")).unwrap();
        let folder = WorkingFolder::open(root).unwrap();
        (dir, folder)
    }

    fn list(
        folder: &WorkingFolder,
        path: Option<&str>,
        recursive: bool,
        cap: Option<u32>,
    ) -> Result<Listing> {
        list_files(
            folder,
            &ListFilesArgs {
                path: path.map(str::to_owned),
                recursive,
                max_entries: cap,
            },
        )
    }

    #[test]
    fn workspace_list_one_level_and_recursive() {
        let (_dir, folder) = tree();
        let top = list(&folder, None, false, None).unwrap();
        assert_eq!(top.entries, [".git/", "README.md", "link@", "src/"]);
        assert!(!top.truncated);
        let all = list(&folder, None, true, None).unwrap();
        assert_eq!(
            all.entries,
            [
                ".git/",
                "README.md",
                "link@",
                "src/",
                "src/deep/",
                "src/deep/x.rs",
                "src/main.rs"
            ],
            "sorted, .git and symlinks not entered"
        );
        let sub = list(&folder, Some("src"), false, None).unwrap();
        assert_eq!(sub.entries, ["src/deep/", "src/main.rs"]);
    }

    #[test]
    fn workspace_list_cap() {
        let (_dir, folder) = tree();
        let capped = list(&folder, None, true, Some(3)).unwrap();
        assert_eq!(capped.entries, [".git/", "README.md", "link@"]);
        assert!(capped.truncated);
        assert!(
            capped
                .to_model_text()
                .ends_with("[stopped at 3 entries; list a sub-folder to see more]")
        );
        // Exactly the cap is not truncated.
        let exact = list(&folder, Some("src"), false, Some(2)).unwrap();
        assert!(!exact.truncated);
    }

    #[test]
    fn workspace_list_refusals() {
        let (_dir, folder) = tree();
        assert!(matches!(
            list(&folder, Some("README.md"), false, None),
            Err(WorkspaceError::Refused(Refusal::NotAFolder { .. }))
        ));
        assert!(matches!(
            list(&folder, Some("link"), false, None),
            Err(WorkspaceError::Refused(Refusal::SymlinkEscapes { .. }))
        ));
        assert!(matches!(
            list(&folder, Some("/"), true, None),
            Err(WorkspaceError::Refused(Refusal::AbsoluteOutside { .. }))
        ));
        assert!(matches!(
            list(&folder, Some(".."), false, None),
            Err(WorkspaceError::Refused(Refusal::ParentDir { .. }))
        ));
        let missing = list(&folder, Some("nope"), false, None).unwrap_err();
        assert_eq!(
            missing.model_sentence(),
            "Could not list `nope`: it does not exist."
        );
    }
}
