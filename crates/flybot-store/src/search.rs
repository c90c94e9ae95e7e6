//! The search index (issue 31): `search.sqlite` in the home, an SQLite FTS5
//! table of the lines people and Bots wrote in Bots' own chats and in rooms,
//! with one cursor per conversation (the last seq it holds).
//!
//! The index is derived: every line in it is also in a durable log (a
//! Session log, a room log), the host adds lines only once they are
//! durable, and nothing waits on the index being written. A lost, torn or
//! older index is thrown away and rebuilt from the logs by catching each
//! conversation up from its cursor (`SearchIndex::open` starts it empty).
//! Which conversations a caller may search is the host's question; this
//! module only answers within the scope it is handed.

mod index;
mod query;

pub use index::SearchIndex;
pub use query::{MAX_WORDS, match_expression};

use std::path::PathBuf;

/// The index's file name inside the home folder.
pub const SEARCH_FILE: &str = "search.sqlite";

/// One line handed to the index.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IndexedLine {
    /// The line's seq in its conversation's log.
    pub seq: u64,
    /// When it was written, Unix milliseconds.
    pub at: u64,
    /// Who wrote it: a member's or a Bot's id (the host names it).
    pub author: String,
    pub text: String,
}

/// A piece of a hit's snippet: the words the query matched are `hit`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SnippetPart {
    pub text: String,
    pub hit: bool,
}

/// One matching line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchHit {
    /// The conversation's key as the host indexed it.
    pub conversation: String,
    pub seq: u64,
    pub at: u64,
    pub author: String,
    pub snippet: Vec<SnippetPart>,
}

#[derive(Debug, thiserror::Error)]
pub enum SearchError {
    #[error("the search index {path} could not be used: {source}")]
    Database { path: PathBuf, source: sqlx::Error },
}

#[cfg(test)]
mod tests;
