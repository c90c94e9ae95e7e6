//! `secrets.json` (#545): the owner's saved keys, apart from the team's
//! state so no value reaches the journal, a snapshot or a view. The file is
//! mode 0600 and replaced whole, atomically (temp file, fsync, rename, fsync
//! of the folder), so a crash leaves the old keys or the new ones.

use crate::atomic::atomic_write;
use flybot_protocol::secrets::SecretsFile;
use std::io;
use std::path::{Path, PathBuf};

/// The file's name in the home.
pub const SECRETS_FILE: &str = "secrets.json";
/// The version this build writes.
const VERSION: u32 = 1;

/// Why the saved keys could not be read; no value is ever in the text.
#[derive(Debug, thiserror::Error)]
pub enum SecretsError {
    #[error("secrets.json could not be read: {0}")]
    Io(#[from] io::Error),
    #[error("secrets.json is not a secrets file this build reads (line {line})")]
    Malformed { line: usize },
    #[error("secrets.json was written by a newer FlyBot (version {0})")]
    Newer(u32),
}

/// The home's `secrets.json`.
#[derive(Debug, Clone)]
pub struct SecretsStore {
    path: PathBuf,
}

impl SecretsStore {
    pub fn new(home: &Path) -> SecretsStore {
        SecretsStore {
            path: home.join(SECRETS_FILE),
        }
    }

    /// The saved keys; no file is no keys. A malformed or newer file is an
    /// error, so a caller fails closed instead of reading it as empty.
    pub fn load(&self) -> Result<SecretsFile, SecretsError> {
        let bytes = match std::fs::read(&self.path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(SecretsFile::default()),
            Err(e) => return Err(e.into()),
        };
        // serde's message may quote the text it choked on: keep only the line.
        let file: SecretsFile = serde_json::from_slice(&bytes)
            .map_err(|e| SecretsError::Malformed { line: e.line() })?;
        if file.version > VERSION {
            return Err(SecretsError::Newer(file.version));
        }
        Ok(file)
    }

    /// Replaces the file with `file`, atomically, mode 0600.
    pub fn save(&self, file: &SecretsFile) -> Result<(), SecretsError> {
        let mut file = file.clone();
        file.version = VERSION;
        let bytes = serde_json::to_vec_pretty(&file).map_err(io::Error::other)?;
        atomic_write(&self.path, &bytes)?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flybot_protocol::secrets::{SecretRecord, SecretScope, SecretValue};
    use std::os::unix::fs::PermissionsExt;

    #[test]
    /// Rule #545.
    fn secrets_the_file_is_private_and_read_back_whole() {
        let home = tempfile::tempdir().unwrap();
        let store = SecretsStore::new(home.path());
        assert!(store.load().unwrap().secrets.is_empty());
        let mut file = SecretsFile::default();
        file.secrets.insert(
            "GITHUB_TOKEN".into(),
            SecretRecord {
                value: SecretValue("ghp_value".into()),
                scope: SecretScope::all(),
                scope_set: false,
                set_by: Some("member-1".into()),
                set_at: 1,
                updated_at: 2,
            },
        );
        store.save(&file).unwrap();
        let mode = std::fs::metadata(home.path().join(SECRETS_FILE))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o600);
        let back = store.load().unwrap();
        assert_eq!(back.version, 1);
        assert_eq!(back.secrets, file.secrets);
    }

    #[test]
    fn a_malformed_file_is_an_error_that_quotes_nothing() {
        let home = tempfile::tempdir().unwrap();
        std::fs::write(home.path().join(SECRETS_FILE), "{\"secrets\": sk-live-123").unwrap();
        let err = SecretsStore::new(home.path()).load().unwrap_err();
        assert!(!err.to_string().contains("sk-live"), "{err}");
        std::fs::write(
            home.path().join(SECRETS_FILE),
            r#"{"version": 9, "secrets": {}}"#,
        )
        .unwrap();
        assert!(matches!(
            SecretsStore::new(home.path()).load(),
            Err(SecretsError::Newer(9))
        ));
    }
}
