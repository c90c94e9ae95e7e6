//! `connectors.json`: the connectors the owner added (#311), so a restart
//! mounts them again. It holds what to run and the names of the secrets it
//! reads, never a value; replaced whole and atomically, mode 0600.

use crate::atomic::atomic_write;
use flybot_protocol::connectors::ConnectorConnect;
use std::io;
use std::path::{Path, PathBuf};

/// The file's name in the home.
pub const CONNECTORS_FILE: &str = "connectors.json";

/// The home's `connectors.json`.
#[derive(Debug, Clone)]
pub struct ConnectorsFile {
    path: PathBuf,
}

impl ConnectorsFile {
    pub fn new(home: &Path) -> ConnectorsFile {
        ConnectorsFile {
            path: home.join(CONNECTORS_FILE),
        }
    }

    /// The saved connectors; no file is none.
    pub fn load(&self) -> io::Result<Vec<ConnectorConnect>> {
        match std::fs::read(&self.path) {
            Ok(bytes) => serde_json::from_slice(&bytes).map_err(io::Error::other),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Vec::new()),
            Err(e) => Err(e),
        }
    }

    /// Replaces the file with `connectors`.
    pub fn save(&self, connectors: &[ConnectorConnect]) -> io::Result<()> {
        let bytes = serde_json::to_vec_pretty(connectors).map_err(io::Error::other)?;
        atomic_write(&self.path, &bytes)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    /// Rule #311.
    fn connectors_are_saved_and_read_back_without_values() {
        let home = tempfile::tempdir().unwrap();
        let file = ConnectorsFile::new(home.path());
        assert!(file.load().unwrap().is_empty());
        let spec: ConnectorConnect = serde_json::from_value(serde_json::json!({
            "id": "github", "command": ["npx", "server"], "secretEnv": {"TOKEN": "GITHUB_TOKEN"}
        }))
        .unwrap();
        file.save(std::slice::from_ref(&spec)).unwrap();
        let back = file.load().unwrap();
        assert_eq!(back[0].id, "github");
        assert_eq!(back[0].secret_env["TOKEN"], "GITHUB_TOKEN");
    }
}
