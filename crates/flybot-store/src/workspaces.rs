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
}
