//! The store's one error vocabulary: why the store could not do its work.
//! Every variant is a fault of the host (its disk, its files, its database,
//! its lease), never of a caller's input, so at the channel each one reads
//! as `bot/unavailable` (issue 29) and never as `bot/invalid` (issue 38).
//! The sentences are for a person; the variants are for code.

use crate::replay::ReplayError;
use flybot_protocol::{ApiError, ErrorCode};
use std::io;
use std::path::PathBuf;
use std::sync::Arc;

/// Why the store could not do what it was asked. Cheap to clone: the
/// journal writer answers every waiter of a failed batch with the same one.
#[derive(Debug, Clone, thiserror::Error)]
pub enum StoreError {
    /// The home folder could not be used at all (made, narrowed, locked).
    #[error("the home folder {path} could not be used: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: Arc<io::Error>,
    },
    /// The disk refused a write or its fsync: nothing after it is
    /// acknowledged.
    #[error("the disk refused a write: {0}")]
    Disk(#[source] Arc<io::Error>),
    /// A file of the home could not be read or opened.
    #[error("{file} could not be {doing}: {source}")]
    File {
        file: &'static str,
        doing: &'static str,
        #[source]
        source: Arc<io::Error>,
    },
    /// A file holds what this build cannot trust (fail closed, #47): the
    /// home only reads until a person looks.
    #[error("{0}")]
    Untrusted(String),
    /// A journal's lines do not replay: `file` names which journal.
    #[error("{file} {source}")]
    Journal {
        file: &'static str,
        #[source]
        source: Arc<ReplayError>,
    },
    /// A record would not encode as JSON: a fault of this build.
    #[error("a record could not be encoded as JSON: {0}")]
    Encode(#[source] Arc<serde_json::Error>),
    /// The journal's writer has stopped; nothing more is acknowledged.
    #[error("the journal writer has stopped")]
    WriterStopped,
    /// The database could not be reached or refused a statement, or its
    /// lease went to another FlyBot, so this one may not write (issue 35).
    #[error("{0}")]
    Database(String),
}

/// What the store's fallible work answers.
pub type StoreResult<T> = Result<T, StoreError>;

impl StoreError {
    /// A write or fsync the disk refused.
    pub(crate) fn disk(source: io::Error) -> StoreError {
        StoreError::Disk(Arc::new(source))
    }

    /// A journal whose lines do not replay.
    pub(crate) fn journal(file: &'static str, source: ReplayError) -> StoreError {
        StoreError::Journal {
            file,
            source: Arc::new(source),
        }
    }

    /// The refusal a caller gets when this error stops its request: a fault
    /// of the host, answered `bot/unavailable`, never `bot/invalid`.
    pub fn refusal(&self) -> ApiError {
        ApiError::new(
            ErrorCode::Unavailable,
            format!(
                "This FlyBot could not save or read the team: {self}. Nothing changed; try again, or see the host's log."
            ),
        )
    }
}

impl From<serde_json::Error> for StoreError {
    fn from(source: serde_json::Error) -> StoreError {
        StoreError::Encode(Arc::new(source))
    }
}

/// The PostgreSQL engine's sentences (issue 35): every one it makes names a
/// fault of the database or of the link to it.
impl From<String> for StoreError {
    fn from(why: String) -> StoreError {
        StoreError::Database(why)
    }
}

impl From<&str> for StoreError {
    fn from(why: &str) -> StoreError {
        StoreError::Database(why.to_owned())
    }
}
