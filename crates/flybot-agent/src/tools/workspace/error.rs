//! What a workspace tool answers when it does not do its work: a refusal
//! (the model asked for something the folder rule or a limit forbids) or a
//! failure (the file system said no). Each has a sentence meant for the
//! model, kept apart from the internal detail that goes to the log.

use std::io;
use std::path::PathBuf;

/// A request the tools refuse. `Display` is the sentence the model reads;
/// it names the path as the model gave it, never the host's absolute path.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Refusal {
    #[error(
        "The working folder does not exist, so no workspace tool can run; ask the owner to recreate it."
    )]
    RootMissing,
    #[error("`{path}` goes up with `..`; give a path inside the working folder without `..`.")]
    ParentDir { path: String },
    #[error(
        "`{path}` is an absolute path outside the working folder; give a path relative to the working folder."
    )]
    AbsoluteOutside { path: String },
    #[error(
        "`{path}` passes through a symlink that leads outside the working folder; use a path that stays inside it."
    )]
    SymlinkEscapes { path: String },
    #[error("`{path}` is a symlink whose target does not exist; remove it or use another path.")]
    DanglingSymlink { path: String },
    #[error("`{path}` is a folder, not a file; use list_files to see what is in it.")]
    IsAFolder { path: String },
    #[error(
        "`{path}` is not a regular file (a pipe, socket or device); the workspace tools read and write regular files only."
    )]
    NotARegularFile { path: String },
    #[error("`{path}` is not a folder.")]
    NotAFolder { path: String },
    #[error("`{path}` looks like a binary file; the workspace tools read text only.")]
    Binary { path: String },
    #[error(
        "The text to write is {size} bytes, over the {limit}-byte limit; write it in smaller files."
    )]
    TooLarge { size: usize, limit: usize },
    #[error("`old_text` is empty; copy the exact text to replace from the file.")]
    EmptyEdit,
    #[error(
        "`old_text` was not found in `{path}`; read the file and copy the exact text, whitespace included."
    )]
    EditNotFound { path: String },
    #[error(
        "`old_text` occurs {count} times in `{path}`; include more of the surrounding lines so it matches exactly once."
    )]
    EditAmbiguous { path: String, count: usize },
    #[error("The search text is empty; give the text or pattern to look for.")]
    EmptyQuery,
    #[error(
        "The command is empty; give the program and its arguments as a list, e.g. [\"ls\", \"-la\"]."
    )]
    EmptyCommand,
    #[error(
        "`{line_range}` is not a line range; lines start at 1 and `end_line` is not before `start_line`."
    )]
    BadLineRange { line_range: String },
    #[error(
        "`{path}` is not a Project State file; ask for PROJECT.md, ROADMAP.md, docs/governance.md, LESSONS.md or decisions/<name>.md, or leave `file` out for the list."
    )]
    NotProjectState { path: String },
}

#[derive(Debug, thiserror::Error)]
pub enum WorkspaceError {
    #[error(transparent)]
    Refused(#[from] Refusal),
    /// The file system failed. `shown` is the path as the model gave it.
    #[error("could not {action} {path}: {source}")]
    Io {
        action: &'static str,
        path: PathBuf,
        shown: String,
        source: io::Error,
    },
}

impl WorkspaceError {
    pub(crate) fn io(action: &'static str, path: PathBuf, shown: &str, source: io::Error) -> Self {
        WorkspaceError::Io {
            action,
            path,
            shown: shown.to_owned(),
            source,
        }
    }

    /// The sentence the model reads. An I/O failure names only the path the
    /// model gave and a plain cause; the host path and the OS text are for
    /// the log.
    pub fn model_sentence(&self) -> String {
        match self {
            WorkspaceError::Refused(refusal) => refusal.to_string(),
            WorkspaceError::Io {
                action,
                shown,
                source,
                ..
            } => {
                let cause = match source.kind() {
                    io::ErrorKind::NotFound => "it does not exist",
                    io::ErrorKind::PermissionDenied => "permission was denied",
                    io::ErrorKind::AlreadyExists => "something is already there",
                    io::ErrorKind::IsADirectory => "it is a folder",
                    io::ErrorKind::NotADirectory => "a part of the path is a file, not a folder",
                    io::ErrorKind::StorageFull => "the disk is full",
                    _ => "the file system refused",
                };
                format!("Could not {action} `{shown}`: {cause}.")
            }
        }
    }
}

pub type Result<T> = std::result::Result<T, WorkspaceError>;
