//! A project's own OpenCode configuration, refused (#198): OpenCode reads
//! `opencode.json`, `opencode.jsonc` and a `.opencode/` folder in its
//! working folder and every folder above it over the configuration the
//! driver generates, so such a file in a seed or a workspace (which the
//! agent may edit, and which outlives a seat) could widen permissions or
//! add plugins and MCP servers. The child is also started with OpenCode's
//! own switch that skips project configuration; this check does not rely
//! on it.

use std::path::{Path, PathBuf};

/// The names OpenCode reads as project configuration.
pub const PROJECT_CONFIG_NAMES: [&str; 3] = ["opencode.json", "opencode.jsonc", ".opencode"];

fn is_config(name: &str) -> bool {
    PROJECT_CONFIG_NAMES.contains(&name)
}

fn first_inside(folder: &Path) -> std::io::Result<Option<PathBuf>> {
    let mut entries: Vec<_> = std::fs::read_dir(folder)?.collect::<Result<_, _>>()?;
    entries.sort_by_key(std::fs::DirEntry::file_name);
    for entry in entries {
        if is_config(&entry.file_name().to_string_lossy()) {
            return Ok(Some(entry.path()));
        }
        // A symlinked folder is not followed: its name was checked above.
        if entry.file_type()?.is_dir()
            && let Some(found) = first_inside(&entry.path())?
        {
            return Ok(Some(found));
        }
    }
    Ok(None)
}

/// The first project configuration in `folder` (at any depth, dot folders
/// included) or in a folder above it.
pub fn project_config_at(folder: &Path) -> std::io::Result<Option<PathBuf>> {
    if let Some(found) = first_inside(folder)? {
        return Ok(Some(found));
    }
    for above in folder.ancestors().skip(1) {
        for name in PROJECT_CONFIG_NAMES {
            let candidate = above.join(name);
            if candidate.symlink_metadata().is_ok() {
                return Ok(Some(candidate));
            }
        }
    }
    Ok(None)
}

/// Refuses `folder` (a `what`: "seed", "workspace") when it carries a
/// project configuration; one sentence a person can act on.
pub fn refuse_project_config(folder: &Path, what: &str) -> Result<(), String> {
    match project_config_at(folder) {
        Ok(None) => Ok(()),
        Ok(Some(found)) => Err(format!(
            "the {what} carries OpenCode project configuration at {}, which could widen OpenCode's permissions; remove it and ask again",
            found.display()
        )),
        Err(e) => Err(format!(
            "the {what} {} could not be checked for OpenCode project configuration: {e}",
            folder.display()
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_project_config_at_any_depth_or_above_is_found_and_refused() {
        let root = tempfile::tempdir().unwrap();
        let workspace = root.path().join("seat/workspace");
        std::fs::create_dir_all(workspace.join("src/deep")).unwrap();
        std::fs::write(workspace.join("src/deep/main.mjs"), "x").unwrap();
        assert_eq!(refuse_project_config(&workspace, "workspace"), Ok(()));
        for (at, is_folder) in [
            ("opencode.json", false),
            ("src/deep/opencode.jsonc", false),
            (".opencode", true),
            ("../opencode.json", false),
        ] {
            let path = workspace.join(at);
            if is_folder {
                std::fs::create_dir_all(path.join("plugin")).unwrap();
            } else {
                std::fs::write(&path, "{}").unwrap();
            }
            let refused = refuse_project_config(&workspace, "workspace").unwrap_err();
            assert!(
                refused.starts_with("the workspace carries OpenCode project configuration at"),
                "{refused}"
            );
            assert!(refused.contains(at.trim_start_matches("../")), "{refused}");
            if is_folder {
                std::fs::remove_dir_all(&path).unwrap();
            } else {
                std::fs::remove_file(&path).unwrap();
            }
        }
        assert_eq!(refuse_project_config(&workspace, "workspace"), Ok(()));
    }
}
