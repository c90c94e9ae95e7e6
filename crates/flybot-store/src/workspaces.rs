//! A Bot's working folder, `<home>/workspaces/<botId>/`: made on first use.
//! The workspace tools stay inside it (flybot-agent's `WorkingFolder`).

use std::io;
use std::path::{Path, PathBuf};

/// The Bot's working folder, created if missing. A Bot id that is not one
/// plain path segment is refused.
pub fn bot_workspace(home: &Path, bot_id: &str) -> io::Result<PathBuf> {
    plain_segment(bot_id)?;
    let folder = home.join("workspaces").join(bot_id);
    crate::private::private_dirs(&folder)?;
    Ok(folder)
}

/// A stdio connector's working folder and HOME, `<home>/connectors/<id>/`,
/// created if missing (the id was checked as a connector name).
pub fn connector_folder(home: &Path, connector_id: &str) -> io::Result<PathBuf> {
    plain_segment(connector_id)?;
    let folder = home.join("connectors").join(connector_id);
    crate::private::private_dirs(&folder)?;
    Ok(folder)
}

/// How deep `workspace_files` looks under the folder.
const LIST_DEPTH: usize = 4;

/// The files in a Bot's working folder as `/`-separated paths relative to
/// it, sorted, at most `max` of them (the Project Assistant's Project State
/// list, #1712). Links are not followed and dot-files are left out; a
/// folder that does not exist yet lists nothing.
pub fn workspace_files(home: &Path, bot_id: &str, max: usize) -> io::Result<Vec<String>> {
    plain_segment(bot_id)?;
    let root = home.join("workspaces").join(bot_id);
    let mut found = Vec::new();
    let mut folders = vec![(root.clone(), 0usize)];
    while let Some((folder, depth)) = folders.pop() {
        let entries = match std::fs::read_dir(&folder) {
            Ok(entries) => entries,
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            Err(e) => return Err(e),
        };
        for entry in entries {
            let entry = entry?;
            if entry.file_name().to_string_lossy().starts_with('.') {
                continue;
            }
            let kind = entry.file_type()?;
            let path = entry.path();
            if kind.is_dir() && depth + 1 < LIST_DEPTH {
                folders.push((path, depth + 1));
            } else if kind.is_file()
                && let Ok(relative) = path.strip_prefix(&root)
            {
                let parts: Vec<String> = relative
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy().into_owned())
                    .collect();
                found.push(parts.join("/"));
            }
        }
    }
    found.sort();
    found.truncate(max);
    Ok(found)
}

/// An id that is one plain path segment, else an error.
fn plain_segment(id: &str) -> io::Result<()> {
    let plain = !id.is_empty()
        && id.len() <= 128
        && id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && id != "."
        && id != "..";
    if !plain {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "an id is one plain path segment",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_folder_is_made_once_and_odd_ids_are_refused() {
        let home = tempfile::tempdir().unwrap();
        let folder = bot_workspace(home.path(), "bot-1").unwrap();
        assert!(folder.is_dir());
        assert_eq!(bot_workspace(home.path(), "bot-1").unwrap(), folder);
        for bad in ["", "..", "a/b", "../x"] {
            assert!(bot_workspace(home.path(), bad).is_err(), "{bad}");
        }
    }

    #[test]
    /// Rule #1712.
    fn the_project_state_list_is_the_folders_files_sorted_and_bounded() {
        let home = tempfile::tempdir().unwrap();
        assert!(
            workspace_files(home.path(), "bot-2", 10)
                .unwrap()
                .is_empty()
        );
        let folder = bot_workspace(home.path(), "bot-2").unwrap();
        std::fs::create_dir_all(folder.join("docs")).unwrap();
        for file in ["PROJECT.md", "docs/plan.md", ".secret", "b.txt"] {
            std::fs::write(folder.join(file), "x").unwrap();
        }
        assert_eq!(
            workspace_files(home.path(), "bot-2", 10).unwrap(),
            ["PROJECT.md", "b.txt", "docs/plan.md"]
        );
        assert_eq!(
            workspace_files(home.path(), "bot-2", 1).unwrap(),
            ["PROJECT.md"]
        );
        assert!(workspace_files(home.path(), "../x", 10).is_err());
    }
}
