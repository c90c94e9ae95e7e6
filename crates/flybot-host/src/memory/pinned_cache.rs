//! The Bots' pinned blocks as last read, each kept with the stamp of the
//! file it was read from (issue 38): a turn costs one `stat` of `PINNED.md`
//! and no open while the file stands; a write through the memory tools (an
//! atomic replace, so a new inode) or a hand edit makes the next turn read
//! it again. The file stays the only source of truth.

use flybot_core::sync::lock;
use flybot_store::memory::{FileStamp, MemoryFiles};
use std::collections::HashMap;
use std::io;
use std::sync::{Arc, Mutex};

/// A pinned block as read, with the stamp of the file it was read from.
type Read = (Option<FileStamp>, String);

/// One entry per Bot that took a turn.
#[derive(Clone, Default)]
pub struct PinnedCache {
    read: Arc<Mutex<HashMap<String, Read>>>,
}

impl PinnedCache {
    /// The Bot's pinned block: the kept text while the file's stamp is the
    /// one it was read at, else read again (stamped before the read, so a
    /// write between the two is read again next time).
    pub fn pinned(&self, files: &MemoryFiles, bot_id: &str) -> io::Result<String> {
        let stamp = files.pinned_stamp(bot_id)?;
        if let Some((kept, text)) = lock(&self.read).get(bot_id)
            && *kept == stamp
        {
            return Ok(text.clone());
        }
        let text = files.read_pinned(bot_id)?;
        lock(&self.read).insert(bot_id.to_owned(), (stamp, text.clone()));
        Ok(text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_hand_edit_and_a_removal_are_read_and_an_unchanged_file_is_kept_38() {
        let home = tempfile::tempdir().unwrap();
        let files = MemoryFiles::new(home.path());
        let cache = PinnedCache::default();
        assert_eq!(cache.pinned(&files, "bot-a").unwrap(), "");
        let dir = home.path().join("memory/bots/bot-a");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("PINNED.md"), "Call me Ada.\n").unwrap();
        assert_eq!(cache.pinned(&files, "bot-a").unwrap(), "Call me Ada.");
        // The kept text answers while the stamp stands: the same length
        // written in place (same inode) with the old time put back is not
        // read again.
        let path = dir.join("PINNED.md");
        let modified = std::fs::metadata(&path).unwrap().modified().unwrap();
        std::fs::write(&path, "Call me Bob.\n").unwrap();
        let file = std::fs::File::options().write(true).open(&path).unwrap();
        file.set_modified(modified).unwrap();
        assert_eq!(cache.pinned(&files, "bot-a").unwrap(), "Call me Ada.");
        std::fs::remove_file(&path).unwrap();
        assert_eq!(cache.pinned(&files, "bot-a").unwrap(), "");
        std::fs::write(&path, "Call me Grace, please.\n").unwrap();
        assert_eq!(
            cache.pinned(&files, "bot-a").unwrap(),
            "Call me Grace, please."
        );
    }
}
