//! `channels.json`: the channel connectors the owner added (#1266), so a
//! restart brings each back: its mode, its Bot, its App ID and its
//! allow-list, never a credential (those are in `secrets.json`). Replaced
//! whole and atomically, mode 0600.

use crate::atomic::atomic_write;
use flybot_protocol::channel_connectors::SavedChannel;
use std::io;
use std::path::{Path, PathBuf};

/// The file's name in the home.
pub const CHANNELS_FILE: &str = "channels.json";

/// The home's `channels.json`.
#[derive(Debug, Clone)]
pub struct ChannelsFile {
    path: PathBuf,
}

impl ChannelsFile {
    pub fn new(home: &Path) -> ChannelsFile {
        ChannelsFile {
            path: home.join(CHANNELS_FILE),
        }
    }

    /// The saved channels; no file is none.
    pub fn load(&self) -> io::Result<Vec<SavedChannel>> {
        match std::fs::read(&self.path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(io::Error::other),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Vec::new()),
            Err(e) => Err(e),
        }
    }

    /// Replaces the file with `channels`.
    pub fn save(&self, channels: &[SavedChannel]) -> io::Result<()> {
        let bytes = serde_json::to_vec_pretty(channels).map_err(io::Error::other)?;
        atomic_write(&self.path, &bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::PermissionsExt;

    #[test]
    /// Rule #1266.
    fn channels_are_saved_0600_and_read_back() {
        let home = tempfile::tempdir().unwrap();
        let file = ChannelsFile::new(home.path());
        assert!(file.load().unwrap().is_empty());
        let saved: SavedChannel = serde_json::from_value(serde_json::json!({
            "id": "feishu", "mode": "app", "botId": "bot-a", "appId": "cli_x1",
            "allowed": [{"openId": "ou_ada", "name": "Ada"}]
        }))
        .unwrap();
        file.save(std::slice::from_ref(&saved)).unwrap();
        assert_eq!(file.load().unwrap(), vec![saved]);
        let mode = std::fs::metadata(home.path().join(CHANNELS_FILE))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
    }
}
