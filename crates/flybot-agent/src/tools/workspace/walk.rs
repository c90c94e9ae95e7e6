//! A sorted, depth-first walk of a folder inside the working folder, shared
//! by `list_files` and `search_files`. Symlinks are listed but never
//! followed (a link could lead outside the folder or loop), and `.git` is
//! listed but not entered: its contents are noise to a Bot.

use std::fs;
use std::path::{Path, PathBuf};

/// One entry met by the walk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    pub path: PathBuf,
    pub kind: EntryKind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum EntryKind {
    /// A regular file.
    File,
    Folder,
    Symlink,
    /// A pipe, socket or device: listed, never opened (a pipe would block).
    Special,
}

/// Folders the walk lists but does not enter.
const NOT_ENTERED: [&str; 1] = [".git"];

fn sorted_children(folder: &Path) -> std::io::Result<Vec<Entry>> {
    let mut children = Vec::new();
    for item in fs::read_dir(folder)? {
        let item = item?;
        let file_type = item.file_type()?;
        let kind = if file_type.is_symlink() {
            EntryKind::Symlink
        } else if file_type.is_dir() {
            EntryKind::Folder
        } else if file_type.is_file() {
            EntryKind::File
        } else {
            EntryKind::Special
        };
        children.push(Entry {
            path: item.path(),
            kind,
        });
    }
    children.sort_by(|a, b| a.path.cmp(&b.path));
    Ok(children)
}

/// Calls `visit` on the entries under `start` in sorted depth-first order,
/// entering sub-folders when `recursive`, until `visit` answers `false`.
/// A sub-folder that cannot be read is skipped; only `start` itself failing
/// is an error.
pub(crate) fn walk(
    start: &Path,
    recursive: bool,
    visit: &mut dyn FnMut(&Entry) -> bool,
) -> std::io::Result<()> {
    let mut stack: Vec<std::vec::IntoIter<Entry>> = vec![sorted_children(start)?.into_iter()];
    while let Some(level) = stack.last_mut() {
        let Some(entry) = level.next() else {
            stack.pop();
            continue;
        };
        if !visit(&entry) {
            return Ok(());
        }
        let entered = entry.kind == EntryKind::Folder
            && recursive
            && !entry
                .path
                .file_name()
                .is_some_and(|name| NOT_ENTERED.iter().any(|skip| name == *skip));
        if entered && let Ok(children) = sorted_children(&entry.path) {
            stack.push(children.into_iter());
        }
    }
    Ok(())
}
