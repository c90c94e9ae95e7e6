//! `project_state` (#1702): the Project State files of the Session's
//! working folder (`PROJECT.md`, `ROADMAP.md`, `docs/governance.md`,
//! `decisions/*.md`, `LESSONS.md`), listed with byte size, SHA-256 and
//! modified time, or one of them handed over whole up to 200,000 bytes. A
//! caller compares the hash with the copy it had, so a stale copy shows. A
//! missing file, one too large (with its size) and a folder that is not a
//! repository are answers, never an empty document; any other path is
//! refused. A call only reads: it writes no file, prompt or Session context.

use super::error::{Refusal, Result, WorkspaceError};
use super::path::WorkingFolder;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use std::io::Read;
use std::path::Path;
use std::time::UNIX_EPOCH;

/// The most bytes one file is handed over with (#1702).
pub const PROJECT_STATE_MAX_BYTES: u64 = 200_000;

/// The Project State files at fixed paths, in the order they are listed.
const FIXED: [&str; 4] = [
    "PROJECT.md",
    "ROADMAP.md",
    "docs/governance.md",
    "LESSONS.md",
];

/// The folder whose `*.md` files are Project State too.
const DECISIONS: &str = "decisions";

/// List the Project State files, or hand one over.
#[derive(Debug, Clone, Default, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ProjectStateArgs {
    /// One Project State file to hand over whole (`PROJECT.md`,
    /// `ROADMAP.md`, `docs/governance.md`, `LESSONS.md` or
    /// `decisions/<name>.md`); leave it out to list them all.
    #[serde(default)]
    pub file: Option<String>,
}

/// One Project State file as the tool reports it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StateFile {
    pub path: String,
    /// `present`, `absent` or `too-large`.
    pub status: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub size: Option<u64>,
    /// The hex SHA-256 of the file's bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
    /// Milliseconds since the Unix epoch.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub modified_at: Option<u64>,
    /// The whole text, when one file was asked for and fits.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub content: Option<String>,
}

/// What a call answers.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "status", rename_all = "kebab-case")]
pub enum ProjectState {
    /// The working folder holds no `.git`: there is no Project State.
    NotARepository { note: String },
    /// Every Project State file, present or not.
    Listed { files: Vec<StateFile> },
    /// The one file asked for.
    File { file: StateFile },
}

impl ProjectState {
    /// The answer as the model reads it: one JSON object.
    pub fn to_model_text(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default()
    }
}

/// Lists the Project State files, or hands over the one `args.file` names.
pub fn project_state(folder: &WorkingFolder, args: &ProjectStateArgs) -> Result<ProjectState> {
    if let Some(file) = &args.file {
        check_state_path(file)?;
    }
    let git = folder.root().join(".git");
    if std::fs::symlink_metadata(&git).is_err() {
        return Ok(ProjectState::NotARepository {
            note: "The working folder is not a repository (it has no .git), so it has no Project State files.".to_owned(),
        });
    }
    match &args.file {
        Some(file) => Ok(ProjectState::File {
            file: state_file(folder, file, true)?,
        }),
        None => {
            let mut paths: Vec<String> = FIXED.iter().map(|p| (*p).to_owned()).collect();
            paths.extend(decision_files(folder)?);
            let files = paths
                .iter()
                .map(|path| state_file(folder, path, false))
                .collect::<Result<Vec<_>>>()?;
            Ok(ProjectState::Listed { files })
        }
    }
}

/// Refuses a path that is not a Project State file.
fn check_state_path(file: &str) -> Result<()> {
    let decision = file
        .strip_prefix("decisions/")
        .and_then(|name| name.strip_suffix(".md"))
        .is_some_and(|stem| {
            !stem.is_empty() && !stem.contains(['/', '\\']) && !stem.starts_with('.')
        });
    if FIXED.contains(&file) || decision {
        return Ok(());
    }
    Err(Refusal::NotProjectState {
        path: file.to_owned(),
    }
    .into())
}

/// The `decisions/*.md` files, sorted; none when the folder is missing.
fn decision_files(folder: &WorkingFolder) -> Result<Vec<String>> {
    let dir = folder.resolve(DECISIONS)?;
    let entries = match std::fs::read_dir(&dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) if e.kind() == std::io::ErrorKind::NotADirectory => return Ok(Vec::new()),
        Err(e) => return Err(WorkspaceError::io("list", dir, DECISIONS, e)),
    };
    let mut names: Vec<String> = entries
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .map(|name| format!("{DECISIONS}/{name}"))
        .filter(|path| check_state_path(path).is_ok())
        .collect();
    names.sort();
    Ok(names)
}

/// One file's size, hash and time; its text too when `whole` and it fits.
fn state_file(folder: &WorkingFolder, shown: &str, whole: bool) -> Result<StateFile> {
    let path = folder.resolve(shown)?;
    let mut row = StateFile {
        path: shown.to_owned(),
        status: "absent",
        size: None,
        sha256: None,
        modified_at: None,
        content: None,
    };
    let meta = match std::fs::metadata(&path) {
        Ok(meta) if meta.is_file() => meta,
        Ok(_) => return Err(Refusal::NotARegularFile { path: row.path }.into()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(row),
        Err(e) => return Err(WorkspaceError::io("read", path, shown, e)),
    };
    row.modified_at = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map(|d| d.as_millis() as u64);
    let (bytes, size, sha256) = read_hashed(&path, shown, whole)?;
    row.size = Some(size);
    row.sha256 = Some(sha256);
    row.status = "present";
    if whole {
        match bytes {
            None => row.status = "too-large",
            Some(bytes) => match String::from_utf8(bytes) {
                Ok(text) => row.content = Some(text),
                Err(_) => return Err(Refusal::Binary { path: row.path }.into()),
            },
        }
    }
    Ok(row)
}

/// Reads the file once, hashing every byte; keeps the bytes when `keep`
/// and they fit in `PROJECT_STATE_MAX_BYTES`.
fn read_hashed(path: &Path, shown: &str, keep: bool) -> Result<(Option<Vec<u8>>, u64, String)> {
    let io = |e| WorkspaceError::io("read", path.to_path_buf(), shown, e);
    let mut file = std::fs::File::open(path).map_err(io)?;
    let mut hasher = Sha256::new();
    let mut kept = keep.then(Vec::new);
    let mut size: u64 = 0;
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = file.read(&mut buf).map_err(io)?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
        size += n as u64;
        if size > PROJECT_STATE_MAX_BYTES {
            kept = None;
        }
        if let Some(kept) = kept.as_mut() {
            kept.extend_from_slice(&buf[..n]);
        }
    }
    let sha256 = hasher
        .finalize()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    Ok((kept, size, sha256))
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    fn repo() -> (tempfile::TempDir, WorkingFolder) {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir(dir.path().join(".git")).unwrap();
        let folder = WorkingFolder::open(dir.path()).unwrap();
        (dir, folder)
    }

    fn ask(folder: &WorkingFolder, file: Option<&str>) -> Result<ProjectState> {
        let args = ProjectStateArgs {
            file: file.map(str::to_owned),
        };
        project_state(folder, &args)
    }

    #[test]
    /// Rule #1702.
    fn project_state_lists_every_file_with_size_hash_and_time() {
        let (dir, folder) = repo();
        std::fs::write(dir.path().join("PROJECT.md"), "abc").unwrap();
        std::fs::create_dir(dir.path().join("decisions")).unwrap();
        std::fs::write(dir.path().join("decisions/0002-b.md"), "b").unwrap();
        std::fs::write(dir.path().join("decisions/0001-a.md"), "a").unwrap();
        std::fs::write(dir.path().join("decisions/notes.txt"), "x").unwrap();
        let ProjectState::Listed { files } = ask(&folder, None).unwrap() else {
            panic!("expected a list");
        };
        let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(
            paths,
            [
                "PROJECT.md",
                "ROADMAP.md",
                "docs/governance.md",
                "LESSONS.md",
                "decisions/0001-a.md",
                "decisions/0002-b.md"
            ]
        );
        let project = &files[0];
        assert_eq!(project.status, "present");
        assert_eq!(project.size, Some(3));
        assert_eq!(
            project.sha256.as_deref(),
            Some("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        );
        assert!(project.modified_at.unwrap() > 1_600_000_000_000);
        assert!(project.content.is_none(), "a list hands over no text");
        assert_eq!(files[1].status, "absent");
        assert_eq!(files[1].sha256, None);
    }

    #[test]
    /// Rule #1702.
    fn project_state_hands_one_file_over_whole_up_to_200000_bytes() {
        let (dir, folder) = repo();
        let text = "x".repeat(PROJECT_STATE_MAX_BYTES as usize);
        std::fs::write(dir.path().join("ROADMAP.md"), &text).unwrap();
        let ProjectState::File { file } = ask(&folder, Some("ROADMAP.md")).unwrap() else {
            panic!("expected one file");
        };
        assert_eq!(file.content.as_deref(), Some(text.as_str()));
        assert_eq!(file.size, Some(PROJECT_STATE_MAX_BYTES));
        // One byte more: too large, with its size and hash, and no text.
        std::fs::write(dir.path().join("ROADMAP.md"), format!("{text}y")).unwrap();
        let ProjectState::File { file } = ask(&folder, Some("ROADMAP.md")).unwrap() else {
            panic!("expected one file");
        };
        assert_eq!(file.status, "too-large");
        assert_eq!(file.size, Some(PROJECT_STATE_MAX_BYTES + 1));
        assert!(file.sha256.is_some() && file.content.is_none());
        let ProjectState::File { file } = ask(&folder, Some("LESSONS.md")).unwrap() else {
            panic!("expected one file");
        };
        assert_eq!(file.status, "absent");
    }

    #[test]
    /// Rule #1702.
    fn project_state_refuses_any_other_path_and_answers_not_a_repository() {
        let (dir, folder) = repo();
        std::fs::write(dir.path().join("secret.md"), "s").unwrap();
        for path in [
            "secret.md",
            "decisions/../secret.md",
            "decisions/sub/x.md",
            "decisions/.md",
            "/etc/passwd",
            "docs/other.md",
        ] {
            let err = ask(&folder, Some(path)).unwrap_err();
            assert!(
                matches!(
                    err,
                    WorkspaceError::Refused(Refusal::NotProjectState { .. })
                ),
                "{path}: {err:?}"
            );
        }
        let plain = tempfile::tempdir().unwrap();
        std::fs::write(plain.path().join("PROJECT.md"), "abc").unwrap();
        let folder = WorkingFolder::open(plain.path()).unwrap();
        let answer = ask(&folder, Some("PROJECT.md")).unwrap();
        assert!(matches!(answer, ProjectState::NotARepository { .. }));
        assert!(
            answer
                .to_model_text()
                .contains("\"status\": \"not-a-repository\"")
        );
    }

    #[cfg(unix)]
    #[test]
    /// Rule #1702.
    fn project_state_refuses_a_decision_that_links_outside_the_folder() {
        let (dir, folder) = repo();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("x.md"), "outside").unwrap();
        std::fs::create_dir(dir.path().join("decisions")).unwrap();
        std::os::unix::fs::symlink(
            outside.path().join("x.md"),
            dir.path().join("decisions/x.md"),
        )
        .unwrap();
        let err = ask(&folder, Some("decisions/x.md")).unwrap_err();
        assert!(matches!(
            err,
            WorkspaceError::Refused(Refusal::SymlinkEscapes { .. })
        ));
    }
}
