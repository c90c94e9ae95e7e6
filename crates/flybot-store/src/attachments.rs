//! Attachments' bytes and readings under the home (issue 32): each object
//! once, named by its SHA-256 (`attachments/v1/objects/<2 hex>/<sha256>`,
//! the spec's layout, #779), written whole with fsync and never rewritten;
//! `ocr.json` keeps each image's reading so a later request repeats the
//! same words (#779) and the prompt cache still hits. The records (name,
//! type, owner) are team state, written through the one writer here too.

use crate::atomic::atomic_write;
use crate::change::Change;
use crate::private::private_dirs;
use flybot_protocol::attachment::{Attachment, Posting};
use sha2::{Digest, Sha256};
use std::collections::BTreeMap;
use std::io;
use std::path::{Path, PathBuf};

/// The objects' folder under the home.
pub const OBJECTS_DIR: &str = "attachments/v1/objects";
/// The readings' file under the home.
pub const OCR_FILE: &str = "ocr.json";

/// The SHA-256 of `bytes`, in lower-case hex.
pub fn sha256_hex(bytes: &[u8]) -> String {
    crate::hex(&Sha256::digest(bytes))
}

/// Whether `sha` is 64 lower-case hex digits: the only names an object has,
/// so no id can reach outside the objects' folder.
pub fn is_object_name(sha: &str) -> bool {
    sha.len() == 64
        && sha
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// The path of object `sha` under `home`; `None` for a name that is not one.
pub fn object_path(home: &Path, sha: &str) -> Option<PathBuf> {
    is_object_name(sha).then(|| home.join(OBJECTS_DIR).join(&sha[..2]).join(sha))
}

/// Stores `bytes` once and answers their SHA-256: an object already there
/// (the same bytes uploaded before) is not written again.
pub fn put_object(home: &Path, bytes: &[u8]) -> io::Result<String> {
    let sha = sha256_hex(bytes);
    let path = object_path(home, &sha).ok_or_else(|| io::Error::other("not an object name"))?;
    if path.is_file() {
        return Ok(sha);
    }
    if let Some(dir) = path.parent() {
        private_dirs(dir)?;
    }
    atomic_write(&path, bytes)?;
    Ok(sha)
}

/// The bytes of object `sha`.
pub fn read_object(home: &Path, sha: &str) -> io::Result<Vec<u8>> {
    let path = object_path(home, sha)
        .ok_or_else(|| io::Error::new(io::ErrorKind::NotFound, "not an object name"))?;
    std::fs::read(path)
}

/// The readings of images by object, as `ocr.json` holds them.
pub type Readings = BTreeMap<String, String>;

/// The reading of object `sha` cached in `<home>/ocr.json`, if any; a file
/// that is missing or unreadable is an empty cache.
pub fn cached_reading(home: &Path, sha: &str) -> Option<String> {
    read_readings(home).remove(sha)
}

/// Keeps `reading` of object `sha` in `<home>/ocr.json` (atomically).
pub fn keep_reading(home: &Path, sha: &str, reading: &str) -> io::Result<()> {
    let mut readings = read_readings(home);
    readings.insert(sha.to_owned(), reading.to_owned());
    let bytes = serde_json::to_vec_pretty(&readings).map_err(io::Error::other)?;
    atomic_write(&home.join(OCR_FILE), &bytes)
}

fn read_readings(home: &Path) -> Readings {
    std::fs::read(home.join(OCR_FILE))
        .ok()
        .and_then(|bytes| serde_json::from_slice(&bytes).ok())
        .unwrap_or_default()
}

impl Change<'_> {
    /// Writes an upload's record.
    pub fn put_attachment(&mut self, attachment: &Attachment) {
        self.set(
            vec!["attachments".into(), attachment.id.clone()],
            attachment,
        );
    }

    /// Adds `posting` to the record of attachment `id` (once).
    pub fn post_attachment(&mut self, id: &str, posting: Posting) {
        let Some(mut record) = self.state().attachments.get(id).cloned() else {
            return;
        };
        if !record.postings.contains(&posting) {
            record.postings.push(posting);
            self.put_attachment(&record);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_same_bytes_twice_are_stored_once() {
        let home = tempfile::tempdir().unwrap();
        let first = put_object(home.path(), b"one picture").unwrap();
        let path = object_path(home.path(), &first).unwrap();
        let written = std::fs::metadata(&path).unwrap().modified().unwrap();
        let second = put_object(home.path(), b"one picture").unwrap();
        assert_eq!(first, second);
        assert_eq!(
            std::fs::metadata(&path).unwrap().modified().unwrap(),
            written
        );
        assert_eq!(read_object(home.path(), &first).unwrap(), b"one picture");
        assert!(path.starts_with(home.path().join(OBJECTS_DIR).join(&first[..2])));
    }

    #[test]
    fn only_a_sha256_names_an_object() {
        let home = Path::new("/home");
        assert!(object_path(home, "../../etc/passwd").is_none());
        assert!(object_path(home, &"A".repeat(64)).is_none());
        assert!(object_path(home, &"a".repeat(64)).is_some());
    }

    #[test]
    fn a_reading_is_cached_per_object_in_ocr_json() {
        let home = tempfile::tempdir().unwrap();
        assert_eq!(cached_reading(home.path(), "abc"), None);
        keep_reading(home.path(), "abc", "HELLO").unwrap();
        assert_eq!(cached_reading(home.path(), "abc").as_deref(), Some("HELLO"));
        assert!(home.path().join(OCR_FILE).is_file());
    }
}
