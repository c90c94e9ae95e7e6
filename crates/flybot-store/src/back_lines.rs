//! A file's lines read from its end, a chunk at a time: what reading a
//! log's newest entries costs is the suffix read, not the file.

use std::fs::File;
use std::io;
use std::os::unix::fs::FileExt;

/// How much of a log is read at a time when it is read from its end.
pub(crate) const BACK_CHUNK: u64 = 64 << 10;

/// A file's lines from its end: `pending` holds the bytes from `pos` up to
/// the end of the lines not yet given out.
pub(crate) struct BackLines {
    pos: u64,
    pending: Vec<u8>,
}

impl BackLines {
    pub(crate) fn new(len: u64) -> BackLines {
        BackLines {
            pos: len,
            pending: Vec::new(),
        }
    }

    /// The next line back (without its newline); `None` at the start. The
    /// file is read at offsets (pread), so a descriptor shared by several
    /// readers has no position to keep.
    pub(crate) fn next_line(&mut self, file: &File) -> io::Result<Option<Vec<u8>>> {
        loop {
            // The byte before the last is where the last line may begin:
            // a newline that ends `pending` belongs to its last line.
            let body = self.pending.len().saturating_sub(1);
            if let Some(i) = self.pending[..body].iter().rposition(|&b| b == b'\n') {
                let line = self.pending[i + 1..].to_vec();
                self.pending.truncate(i + 1);
                return Ok(Some(strip_newline(line)));
            }
            if self.pos == 0 {
                let rest = std::mem::take(&mut self.pending);
                return Ok((!rest.is_empty()).then(|| strip_newline(rest)));
            }
            let start = self.pos.saturating_sub(BACK_CHUNK);
            let mut chunk = vec![0; (self.pos - start) as usize];
            file.read_exact_at(&mut chunk, start)?;
            chunk.extend_from_slice(&self.pending);
            self.pending = chunk;
            self.pos = start;
        }
    }
}

fn strip_newline(mut line: Vec<u8>) -> Vec<u8> {
    if line.last() == Some(&b'\n') {
        line.pop();
    }
    line
}
