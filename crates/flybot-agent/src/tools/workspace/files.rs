//! Reading, writing and editing one text file inside the working folder.
//! Write and edit create missing parent folders, inside the folder only;
//! an edit replaces exactly one occurrence of a given text.

use super::error::{Refusal, Result, WorkspaceError};
use super::path::WorkingFolder;
use schemars::JsonSchema;
use serde::Deserialize;
use std::io::{BufRead, BufReader, Read};

/// What `read_file` returns at most unless asked for less.
pub const READ_DEFAULT_BYTES: u64 = 64 * 1024;
/// The most `read_file` returns in one call, whatever is asked.
pub const READ_MAX_BYTES: u64 = 256 * 1024;
/// The largest text `write_file` and `edit_file` write.
pub const WRITE_MAX_BYTES: usize = 1024 * 1024;
/// How much of a file's start is checked for a NUL byte.
pub(crate) const BINARY_SNIFF_BYTES: usize = 8 * 1024;

/// Read a text file in the working folder.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ReadFileArgs {
    /// The file's path, relative to the working folder.
    pub path: String,
    /// The first line to return (1 is the first line of the file).
    #[serde(default)]
    pub start_line: Option<u64>,
    /// The last line to return (inclusive).
    #[serde(default)]
    pub end_line: Option<u64>,
    /// At most this many bytes are returned (default 65536, at most 262144).
    #[serde(default)]
    pub max_bytes: Option<u64>,
}

/// Create or overwrite a text file in the working folder.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct WriteFileArgs {
    /// The file's path, relative to the working folder; missing folders are created.
    pub path: String,
    /// The whole new content of the file.
    pub content: String,
}

/// Replace one exact piece of text in a file in the working folder.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct EditFileArgs {
    /// The file's path, relative to the working folder.
    pub path: String,
    /// The exact text to replace; it must occur exactly once in the file.
    pub old_text: String,
    /// The text to put in its place.
    pub new_text: String,
}

/// A file's text, or the part of it that was asked for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileText {
    pub text: String,
    /// The byte cap cut the text short; `next_line` is where to read on.
    pub truncated: bool,
    pub next_line: Option<u64>,
}

impl FileText {
    /// The text with a note the model can act on when it was cut short.
    pub fn to_model_text(&self) -> String {
        match (self.truncated, self.next_line) {
            (true, Some(line)) => format!(
                "{}\n[truncated by the byte limit; read on with start_line = {line}]",
                self.text
            ),
            (true, None) => format!("{}\n[truncated by the byte limit]", self.text),
            (false, _) => self.text.clone(),
        }
    }
}

fn open_text_file(
    folder: &WorkingFolder,
    shown: &str,
) -> Result<(std::path::PathBuf, std::fs::File)> {
    let path = folder.resolve(shown)?;
    // Checked before opening: opening a pipe would block the call.
    check_regular_file(&path, shown)?;
    let file = std::fs::File::open(&path)
        .map_err(|e| WorkspaceError::io("read", path.clone(), shown, e))?;
    Ok((path, file))
}

/// A folder or a special file (pipe, socket, device) is refused; a missing
/// path is an I/O failure the caller reports.
fn check_regular_file(path: &std::path::Path, shown: &str) -> Result<()> {
    let meta = match std::fs::metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(WorkspaceError::io("read", path.to_path_buf(), shown, e)),
    };
    if meta.is_dir() {
        return Err(Refusal::IsAFolder {
            path: shown.to_owned(),
        }
        .into());
    }
    if !meta.is_file() {
        return Err(Refusal::NotARegularFile {
            path: shown.to_owned(),
        }
        .into());
    }
    Ok(())
}

/// Reads lines `start_line..=end_line` (all by default) of a text file, up
/// to the byte cap; a file with a NUL byte near its start is refused as
/// binary.
pub fn read_file(folder: &WorkingFolder, args: &ReadFileArgs) -> Result<FileText> {
    let first = args.start_line.unwrap_or(1);
    let last = args.end_line.unwrap_or(u64::MAX);
    if first == 0 || last < first {
        return Err(Refusal::BadLineRange {
            line_range: format!("{first}..{last}"),
        }
        .into());
    }
    let cap = usize::try_from(
        args.max_bytes
            .unwrap_or(READ_DEFAULT_BYTES)
            .clamp(1, READ_MAX_BYTES),
    )
    .unwrap_or(usize::MAX);
    let (path, file) = open_text_file(folder, &args.path)?;
    let fail = |e| WorkspaceError::io("read", path.clone(), &args.path, e);
    let mut reader = BufReader::new(file);
    if reader
        .fill_buf()
        .map_err(fail)?
        .iter()
        .take(BINARY_SNIFF_BYTES)
        .any(|b| *b == 0)
    {
        return Err(Refusal::Binary {
            path: args.path.clone(),
        }
        .into());
    }

    let mut out: Vec<u8> = Vec::new();
    let mut line = Vec::new();
    let mut number = 0u64;
    loop {
        line.clear();
        // A line is read whole but only up to the cap plus one byte, so one
        // enormous line cannot fill memory.
        let read = (&mut reader)
            .take(cap as u64 + 1)
            .read_until(b'\n', &mut line)
            .map_err(fail)?;
        if read == 0 {
            break;
        }
        number += 1;
        if number < first {
            if !line.ends_with(b"\n") {
                // The rest of an overlong skipped line.
                reader.skip_until(b'\n').map_err(fail)?;
            }
            continue;
        }
        if number > last {
            break;
        }
        if out.len() + line.len() > cap {
            // A line that does not fit is left for the next read, unless it
            // alone is over the cap: then its start is shown and the next
            // read goes past it, so reading on always makes progress.
            let next_line = if out.is_empty() {
                out.extend_from_slice(&line[..cap]);
                number + 1
            } else {
                number
            };
            return Ok(FileText {
                text: String::from_utf8_lossy(&out).into_owned(),
                truncated: true,
                next_line: Some(next_line).filter(|n| *n <= last),
            });
        }
        out.extend_from_slice(&line);
    }
    Ok(FileText {
        text: String::from_utf8_lossy(&out).into_owned(),
        truncated: false,
        next_line: None,
    })
}

fn write_inside(folder: &WorkingFolder, shown: &str, content: &str) -> Result<usize> {
    if content.len() > WRITE_MAX_BYTES {
        return Err(Refusal::TooLarge {
            size: content.len(),
            limit: WRITE_MAX_BYTES,
        }
        .into());
    }
    let path = folder.resolve(shown)?;
    check_regular_file(&path, shown)?;
    // `resolve` proved every existing part is inside the folder, and the
    // missing parts cannot be symlinks, so creating them stays inside.
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| WorkspaceError::io("create the folders of", path.clone(), shown, e))?;
    }
    std::fs::write(&path, content)
        .map_err(|e| WorkspaceError::io("write", path.clone(), shown, e))?;
    Ok(content.len())
}

/// Creates or overwrites a file; answers a one-line confirmation.
pub fn write_file(folder: &WorkingFolder, args: &WriteFileArgs) -> Result<String> {
    let bytes = write_inside(folder, &args.path, &args.content)?;
    Ok(format!("Wrote {bytes} bytes to `{}`.", args.path))
}

/// Replaces the one occurrence of `old_text`; refuses none or several.
pub fn edit_file(folder: &WorkingFolder, args: &EditFileArgs) -> Result<String> {
    if args.old_text.is_empty() {
        return Err(Refusal::EmptyEdit.into());
    }
    let (path, mut file) = open_text_file(folder, &args.path)?;
    let mut text = String::new();
    file.read_to_string(&mut text).map_err(|e| match e.kind() {
        std::io::ErrorKind::InvalidData => WorkspaceError::Refused(Refusal::Binary {
            path: args.path.clone(),
        }),
        _ => WorkspaceError::io("read", path.clone(), &args.path, e),
    })?;
    let count = text.matches(args.old_text.as_str()).count();
    match count {
        0 => Err(Refusal::EditNotFound {
            path: args.path.clone(),
        }
        .into()),
        1 => {
            let edited = text.replacen(args.old_text.as_str(), &args.new_text, 1);
            write_inside(folder, &args.path, &edited)?;
            Ok(format!("Edited `{}`: replaced 1 occurrence.", args.path))
        }
        count => Err(Refusal::EditAmbiguous {
            path: args.path.clone(),
            count,
        }
        .into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn folder() -> (tempfile::TempDir, WorkingFolder) {
        let dir = tempfile::tempdir().unwrap();
        let folder = WorkingFolder::open(dir.path()).unwrap();
        (dir, folder)
    }

    fn read(
        folder: &WorkingFolder,
        path: &str,
        range: (Option<u64>, Option<u64>),
        cap: Option<u64>,
    ) -> Result<FileText> {
        read_file(
            folder,
            &ReadFileArgs {
                path: path.into(),
                start_line: range.0,
                end_line: range.1,
                max_bytes: cap,
            },
        )
    }

    fn refusal<T: std::fmt::Debug>(result: Result<T>) -> Refusal {
        match result {
            Err(WorkspaceError::Refused(refusal)) => refusal,
            other => panic!("expected a refusal, got {other:?}"),
        }
    }

    #[test]
    fn workspace_write_creates_parents_and_reads_back() {
        let (dir, folder) = folder();
        let answer = write_file(
            &folder,
            &WriteFileArgs {
                path: "notes/today/a.txt".into(),
                content: "one\ntwo\nthree\n".into(),
            },
        )
        .unwrap();
        assert_eq!(answer, "Wrote 14 bytes to `notes/today/a.txt`.");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("notes/today/a.txt")).unwrap(),
            "one\ntwo\nthree\n"
        );
        let all = read(&folder, "notes/today/a.txt", (None, None), None).unwrap();
        assert_eq!(all.text, "one\ntwo\nthree\n");
        assert!(!all.truncated);
        let middle = read(&folder, "notes/today/a.txt", (Some(2), Some(2)), None).unwrap();
        assert_eq!(middle.text, "two\n");
        let tail = read(&folder, "notes/today/a.txt", (Some(3), None), None).unwrap();
        assert_eq!(tail.text, "three\n");
    }

    #[test]
    fn workspace_read_byte_cap_says_where_to_read_on() {
        let (dir, folder) = folder();
        std::fs::write(dir.path().join("big.txt"), "aaaa\nbbbb\ncccc\n").unwrap();
        let cut = read(&folder, "big.txt", (None, None), Some(7)).unwrap();
        assert_eq!(cut.text, "aaaa\n", "a line that does not fit is left whole");
        assert!(cut.truncated);
        assert_eq!(cut.next_line, Some(2));
        assert_eq!(
            cut.to_model_text(),
            "aaaa\n\n[truncated by the byte limit; read on with start_line = 2]"
        );
        // One huge line is cut without reading all of it into memory.
        std::fs::write(dir.path().join("line.txt"), "x".repeat(100_000)).unwrap();
        let cut = read(&folder, "line.txt", (None, None), Some(10)).unwrap();
        assert_eq!(cut.text, "x".repeat(10));
        assert!(cut.truncated);
        // Skipping an overlong line keeps line numbers right.
        std::fs::write(
            dir.path().join("mixed.txt"),
            format!("{}\nsecond\n", "y".repeat(50)),
        )
        .unwrap();
        let second = read(&folder, "mixed.txt", (Some(2), None), Some(10)).unwrap();
        assert_eq!(second.text, "second\n");
    }

    #[test]
    fn workspace_read_refusals() {
        let (dir, folder) = folder();
        std::fs::write(dir.path().join("bin"), [0u8, 1, 2, 3]).unwrap();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        assert_eq!(
            refusal(read(&folder, "bin", (None, None), None)),
            Refusal::Binary { path: "bin".into() }
        );
        assert_eq!(
            refusal(read(&folder, "sub", (None, None), None)),
            Refusal::IsAFolder { path: "sub".into() }
        );
        assert!(matches!(
            refusal(read(&folder, "a.txt", (Some(0), None), None)),
            Refusal::BadLineRange { .. }
        ));
        assert!(matches!(
            refusal(read(&folder, "a.txt", (Some(5), Some(2)), None)),
            Refusal::BadLineRange { .. }
        ));
        assert_eq!(
            refusal(read(&folder, "../x", (None, None), None)),
            Refusal::ParentDir {
                path: "../x".into()
            }
        );
        let missing = read(&folder, "nope.txt", (None, None), None).unwrap_err();
        assert_eq!(
            missing.model_sentence(),
            "Could not read `nope.txt`: it does not exist."
        );
    }

    #[test]
    fn workspace_special_files_are_refused_without_blocking() {
        let (dir, folder) = folder();
        let fifo = dir.path().join("pipe");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        let expected = Refusal::NotARegularFile {
            path: "pipe".into(),
        };
        assert_eq!(refusal(read(&folder, "pipe", (None, None), None)), expected);
        let write = write_file(
            &folder,
            &WriteFileArgs {
                path: "pipe".into(),
                content: "x".into(),
            },
        );
        assert_eq!(refusal(write), expected);
        // A search walks past it rather than opening it.
        std::fs::write(dir.path().join("a.txt"), "needle").unwrap();
        let args = crate::tools::workspace::SearchFilesArgs {
            query: "needle".into(),
            mode: crate::tools::workspace::SearchMode::Text,
            path: None,
            file_pattern: None,
            ignore_case: false,
            max_results: None,
        };
        let results = crate::tools::workspace::search_files(&folder, &args).unwrap();
        assert_eq!(results.hits.len(), 1);
    }

    #[test]
    fn workspace_write_refusals() {
        let (dir, folder) = folder();
        std::fs::create_dir(dir.path().join("sub")).unwrap();
        let write = |path: &str, content: String| {
            write_file(
                &folder,
                &WriteFileArgs {
                    path: path.into(),
                    content,
                },
            )
        };
        assert_eq!(
            refusal(write("sub", "x".into())),
            Refusal::IsAFolder { path: "sub".into() }
        );
        assert_eq!(
            refusal(write("/outside-the-folder/escape.txt", "x".into())),
            Refusal::AbsoluteOutside {
                path: "/outside-the-folder/escape.txt".into()
            }
        );
        assert_eq!(
            refusal(write("a/../../escape.txt", "x".into())),
            Refusal::ParentDir {
                path: "a/../../escape.txt".into()
            }
        );
        assert!(matches!(
            refusal(write("big.txt", "x".repeat(WRITE_MAX_BYTES + 1))),
            Refusal::TooLarge { .. }
        ));
        assert!(!dir.path().join("big.txt").exists());
    }

    #[test]
    fn workspace_write_through_escaping_symlink_is_refused_and_writes_nothing() {
        let outside = tempfile::tempdir().unwrap();
        let (dir, folder) = folder();
        std::os::unix::fs::symlink(outside.path(), dir.path().join("out")).unwrap();
        let result = write_file(
            &folder,
            &WriteFileArgs {
                path: "out/deep/planted.txt".into(),
                content: "x".into(),
            },
        );
        assert_eq!(
            refusal(result),
            Refusal::SymlinkEscapes {
                path: "out/deep/planted.txt".into()
            }
        );
        assert!(!outside.path().join("deep").exists());
    }

    fn edit(folder: &WorkingFolder, old: &str, new: &str) -> Result<String> {
        edit_file(
            folder,
            &EditFileArgs {
                path: "code.rs".into(),
                old_text: old.into(),
                new_text: new.into(),
            },
        )
    }

    #[test]
    fn workspace_edit_replaces_one_exact_occurrence() {
        let (dir, folder) = folder();
        std::fs::write(dir.path().join("code.rs"), "let a = 1;\nlet b = 1;\n").unwrap();
        assert_eq!(
            edit(&folder, "let b = 1;", "let b = 2;").unwrap(),
            "Edited `code.rs`: replaced 1 occurrence."
        );
        assert_eq!(
            std::fs::read_to_string(dir.path().join("code.rs")).unwrap(),
            "let a = 1;\nlet b = 2;\n"
        );
    }

    #[test]
    fn workspace_edit_refuses_missing_and_ambiguous_text() {
        let (dir, folder) = folder();
        let original = "x = 1\nx = 1\ny = 2\n";
        std::fs::write(dir.path().join("code.rs"), original).unwrap();
        let ambiguous = refusal(edit(&folder, "x = 1", "x = 3"));
        assert_eq!(
            ambiguous,
            Refusal::EditAmbiguous {
                path: "code.rs".into(),
                count: 2
            }
        );
        assert_eq!(
            ambiguous.to_string(),
            "`old_text` occurs 2 times in `code.rs`; include more of the surrounding lines so it matches exactly once."
        );
        assert_eq!(
            refusal(edit(&folder, "z = 9", "z = 0")),
            Refusal::EditNotFound {
                path: "code.rs".into()
            }
        );
        assert_eq!(refusal(edit(&folder, "", "z")), Refusal::EmptyEdit);
        assert_eq!(
            std::fs::read_to_string(dir.path().join("code.rs")).unwrap(),
            original,
            "a refused edit writes nothing"
        );
    }
}
