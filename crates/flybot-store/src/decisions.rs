//! `decisions.jsonl` (#396): one line per decision a Bot records, bounded at
//! the newest 2,000 lines and 1 MB, trimmed as the host appends. It is
//! opened through the JSONL appender, so a torn last line is cut first.
//! On a store on PostgreSQL the lines are rows of the database, trimmed
//! there, and the file is the home's copy (`engine::records`).

use crate::jsonl::JsonlAppender;
use std::io;
use std::path::{Path, PathBuf};

pub const MAX_DECISION_LINES: usize = 2000;
pub const MAX_DECISION_BYTES: usize = 1024 * 1024;

const FILE: &str = "decisions.jsonl";

pub fn decisions_path(home: &Path) -> PathBuf {
    home.join(FILE)
}

/// One writer of `decisions.jsonl` at a time in this process (#396): an
/// append that trims reads the file and replaces it, so two at once would
/// lose one's line.
static ONE_WRITER: std::sync::Mutex<()> = std::sync::Mutex::new(());

/// Appends `line` (one JSON object), then trims the file to the bounds.
pub fn append_decision(home: &Path, line: &serde_json::Value) -> io::Result<()> {
    append_bounded(home, line, MAX_DECISION_LINES, MAX_DECISION_BYTES)
}

/// [`append_decision`] with bounds of the caller's (tests, so a trim is
/// seen without 2,000 lines).
#[cfg(feature = "testing")]
pub fn append_decision_within(
    home: &Path,
    line: &serde_json::Value,
    max_lines: usize,
    max_bytes: usize,
) -> io::Result<()> {
    append_bounded(home, line, max_lines, max_bytes)
}

fn append_bounded(
    home: &Path,
    line: &serde_json::Value,
    max_lines: usize,
    max_bytes: usize,
) -> io::Result<()> {
    let _one_writer = flybot_core::sync::lock(&ONE_WRITER);
    let path = decisions_path(home);
    let one = serde_json::to_string(line).map_err(io::Error::other)?;
    let bounds = (max_lines, max_bytes);
    if let Some(written) = crate::engine::records::append_bounded(home, FILE, &one, bounds) {
        return written;
    }
    let mut text = serde_json::to_vec(line).map_err(io::Error::other)?;
    text.push(b'\n');
    let mut file = JsonlAppender::open(&path)?;
    let existing = file.read_all()?;
    let lines = existing
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .count();
    if lines < max_lines && existing.len() + text.len() <= max_bytes {
        return file.append(&text);
    }
    drop(file);
    let mut kept: Vec<&[u8]> = existing
        .split(|b| *b == b'\n')
        .filter(|l| !l.is_empty())
        .collect();
    kept.push(&text[..text.len() - 1]);
    let mut size: usize = kept.iter().map(|l| l.len() + 1).sum();
    let mut start = kept.len().saturating_sub(max_lines);
    size -= kept[..start].iter().map(|l| l.len() + 1).sum::<usize>();
    while size > max_bytes && start < kept.len() {
        size -= kept[start].len() + 1;
        start += 1;
    }
    let mut out = Vec::with_capacity(size);
    for l in &kept[start..] {
        out.extend_from_slice(l);
        out.push(b'\n');
    }
    crate::atomic_write(&path, &out)
}

/// The recorded decisions, newest last; reads at most 1 MB.
pub fn read_decisions(home: &Path) -> io::Result<Vec<serde_json::Value>> {
    let bytes = match std::fs::read(decisions_path(home)) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    let tail = &bytes[bytes.len().saturating_sub(MAX_DECISION_BYTES)..];
    Ok(tail
        .split(|b| *b == b'\n')
        .filter_map(|l| serde_json::from_slice(l).ok())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    /// Rule #396.
    fn a_torn_tail_is_cut_and_the_next_decision_reads_back() {
        let home = tempfile::tempdir().unwrap();
        append_decision(home.path(), &json!({"n": 1})).unwrap();
        for torn in [&b"{\"n\":"[..], &b"{\"n\":\n"[..]] {
            let mut raw = std::fs::read(decisions_path(home.path())).unwrap();
            raw.extend_from_slice(torn);
            std::fs::write(decisions_path(home.path()), raw).unwrap();
            append_decision(home.path(), &json!({"n": 2})).unwrap();
        }
        assert_eq!(
            std::fs::read(decisions_path(home.path())).unwrap(),
            b"{\"n\":1}\n{\"n\":2}\n{\"n\":2}\n"
        );
        assert_eq!(
            read_decisions(home.path()).unwrap(),
            vec![json!({"n": 1}), json!({"n": 2}), json!({"n": 2})]
        );
    }

    #[test]
    fn the_file_keeps_the_newest_lines_only() {
        let home = tempfile::tempdir().unwrap();
        for n in 0..25 {
            append_bounded(home.path(), &json!({"n": n}), 20, 1 << 20).unwrap();
        }
        let all = read_decisions(home.path()).unwrap();
        assert_eq!(all.len(), 20);
        assert_eq!(all[0], json!({"n": 5}));
    }

    #[test]
    /// Rule #396.
    fn decisions_have_one_writer_so_concurrent_trims_lose_no_line() {
        let home = tempfile::tempdir().unwrap();
        let path = home.path().to_owned();
        // Every append past the first 10 lines trims (reads and replaces).
        let threads: Vec<_> = (0..8)
            .map(|t| {
                let path = path.clone();
                std::thread::spawn(move || {
                    for n in 0..15 {
                        append_bounded(&path, &json!({"t": t, "n": n}), 10, 1 << 20).unwrap();
                    }
                })
            })
            .collect();
        for thread in threads {
            thread.join().unwrap();
        }
        let kept = read_decisions(home.path()).unwrap();
        assert_eq!(kept.len(), 10, "{kept:?}");
        // Each thread's lines stay in its own order, and every thread's
        // last line is among the newest ten or came before one that is.
        for t in 0..8 {
            let ns: Vec<u64> = kept
                .iter()
                .filter(|l| l["t"] == t)
                .map(|l| l["n"].as_u64().unwrap())
                .collect();
            assert!(ns.windows(2).all(|w| w[1] == w[0] + 1), "{t}: {ns:?}");
            if let Some(last) = ns.last() {
                assert_eq!(*last, 14, "{t}: a later line of it was lost: {ns:?}");
            }
        }
    }
}
