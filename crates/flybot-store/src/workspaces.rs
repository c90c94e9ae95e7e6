//! A Bot's working folder, `<home>/workspaces/<botId>/`: made on first use.
//! The workspace tools stay inside it (flybot-agent's `WorkingFolder`).

use std::io;
use std::path::{Path, PathBuf};

/// The Bot's working folder, created if missing. A Bot id that is not one
/// plain path segment is refused.
pub fn bot_workspace(home: &Path, bot_id: &str) -> io::Result<PathBuf> {
    let plain = !bot_id.is_empty()
        && bot_id.len() <= 128
        && bot_id
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
        && bot_id != "."
        && bot_id != "..";
    if !plain {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "a Bot id is one plain path segment",
        ));
    }
    let folder = home.join("workspaces").join(bot_id);
    std::fs::create_dir_all(&folder)?;
    Ok(folder)
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
}
