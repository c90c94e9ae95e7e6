//! A project folder as evidence (#198): its files and their digests, the
//! changes against a baseline (the seed or the fixture as shipped), a plain
//! diff, a fresh copy with the changes applied, and one run of its test
//! command (own process group, a clean environment, a limit).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

/// Relative path → bytes.
pub type Files = BTreeMap<String, Vec<u8>>;
/// Relative path → new bytes, `None` when removed.
pub type Changes = BTreeMap<String, Option<Vec<u8>>>;

/// How long a test command may run.
const TEST_LIMIT: Duration = Duration::from_secs(120);

fn walk(root: &Path, folder: &Path, out: &mut Files) -> std::io::Result<()> {
    for entry in std::fs::read_dir(folder)? {
        let entry = entry?;
        let name = entry.file_name().to_string_lossy().into_owned();
        // The runtime's own state is not the project's.
        if name.starts_with('.') || name == "node_modules" {
            continue;
        }
        let path = entry.path();
        let kind = entry.file_type()?;
        if kind.is_dir() {
            walk(root, &path, out)?;
        } else if kind.is_file() {
            let relative = path
                .strip_prefix(root)
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or(name);
            out.insert(relative, std::fs::read(&path)?);
        }
    }
    Ok(())
}

/// Every project file under `folder` (dot folders and `node_modules` left
/// out; symlinks are not followed).
pub fn files_of(folder: &Path) -> std::io::Result<Files> {
    let mut out = Files::new();
    walk(folder, folder, &mut out)?;
    Ok(out)
}

/// Relative path → SHA-256 of each file.
pub fn digests(files: &Files) -> BTreeMap<String, String> {
    files
        .iter()
        .map(|(k, v)| (k.clone(), crate::sha256_hex(v)))
        .collect()
}

/// The files of `now` that differ from `baseline`.
pub fn changes_against(baseline: &Files, now: &Files) -> Changes {
    let mut out = Changes::new();
    for (name, old) in baseline {
        match now.get(name) {
            Some(bytes) if bytes == old => {}
            Some(bytes) => {
                out.insert(name.clone(), Some(bytes.clone()));
            }
            None => {
                out.insert(name.clone(), None);
            }
        }
    }
    for (name, bytes) in now {
        if !baseline.contains_key(name) {
            out.insert(name.clone(), Some(bytes.clone()));
        }
    }
    out
}

/// A plain diff: each changed file's old lines with `-`, then its new
/// lines with `+`.
pub fn diff_against(baseline: &Files, changes: &Changes) -> String {
    let mut out = String::new();
    for (name, new) in changes {
        let old = baseline
            .get(name)
            .map(|b| String::from_utf8_lossy(b).into_owned())
            .unwrap_or_default();
        out.push_str(&format!("--- a/{name}\n+++ b/{name}\n"));
        for line in old.lines() {
            out.push_str(&format!("-{line}\n"));
        }
        if let Some(new) = new {
            for line in String::from_utf8_lossy(new).lines() {
                out.push_str(&format!("+{line}\n"));
            }
        }
    }
    out
}

fn inside(name: &str) -> std::io::Result<&Path> {
    let relative = Path::new(name);
    if relative.is_absolute() || name.split('/').any(|s| s == "..") {
        return Err(std::io::Error::other(format!("{name} leaves the project")));
    }
    Ok(relative)
}

/// Writes `files` into `folder` (made if missing).
pub fn write_files(folder: &Path, files: &Files) -> std::io::Result<()> {
    std::fs::create_dir_all(folder)?;
    for (name, bytes) in files {
        let target = folder.join(inside(name)?);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(target, bytes)?;
    }
    Ok(())
}

/// A fresh copy in `folder`: `baseline`, then `changes` applied.
pub fn apply_onto(folder: &Path, baseline: &Files, changes: &Changes) -> std::io::Result<()> {
    write_files(folder, baseline)?;
    for (name, new) in changes {
        let target = folder.join(inside(name)?);
        match new {
            Some(bytes) => {
                if let Some(parent) = target.parent() {
                    std::fs::create_dir_all(parent)?;
                }
                std::fs::write(target, bytes)?;
            }
            None => {
                let _ = std::fs::remove_file(target);
            }
        }
    }
    Ok(())
}

/// One run of a project's test command.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub struct TestRun {
    pub command: Vec<String>,
    pub folder: PathBuf,
    pub exit_code: Option<i32>,
    pub passed: bool,
    /// The summary lines of the output (`# pass`, `# fail`, ...).
    pub summary: Vec<String>,
    pub output_sha256: String,
}

/// Runs `command` in `folder`: never through a shell, only `PATH` from the
/// host's environment, a time limit, and inside the sandbox (issue 30: its
/// own process group, writes only the fresh copy, no network at all; the
/// verifier runs a peer's edited code).
pub async fn run_tests_with(folder: &Path, command: &[String]) -> std::io::Result<TestRun> {
    let Some((program, args)) = command.split_first() else {
        return Err(std::io::Error::other("the test command is empty"));
    };
    let mut child = tokio::process::Command::new(program);
    child
        .args(args)
        .current_dir(folder)
        .env_clear()
        .env(
            "PATH",
            std::env::var_os("PATH").unwrap_or_else(|| "/usr/bin:/bin".into()),
        )
        .env("HOME", folder)
        .env("NO_COLOR", "1")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let policy = flybot_sandbox::Policy::writing(&[folder])
        .reading(flybot_sandbox::program_roots(command, None));
    let (child, _sandbox) = flybot_sandbox::spawn(child, &policy)?;
    let output = tokio::time::timeout(TEST_LIMIT, child.wait_with_output())
        .await
        .map_err(|_| std::io::Error::other("the tests ran past their limit"))??;
    let text = String::from_utf8_lossy(&output.stdout).into_owned();
    let summary = text
        .lines()
        .filter(|l| {
            ["# tests", "# pass", "# fail"]
                .iter()
                .any(|p| l.starts_with(p))
        })
        .map(str::to_owned)
        .collect();
    Ok(TestRun {
        command: command.to_vec(),
        folder: folder.to_owned(),
        exit_code: output.status.code(),
        passed: output.status.success(),
        summary,
        output_sha256: crate::sha256_hex(&output.stdout),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(pairs: &[(&str, &str)]) -> Files {
        pairs
            .iter()
            .map(|(k, v)| ((*k).to_owned(), v.as_bytes().to_vec()))
            .collect()
    }

    #[test]
    fn changes_name_edits_additions_and_removals_and_a_fresh_copy_matches() {
        let baseline = files(&[("a.txt", "one\n"), ("b.txt", "two\n"), ("c.txt", "same\n")]);
        let now = files(&[
            ("a.txt", "uno\n"),
            ("c.txt", "same\n"),
            ("d/e.txt", "new\n"),
        ]);
        let changes = changes_against(&baseline, &now);
        assert_eq!(
            changes.keys().collect::<Vec<_>>(),
            vec!["a.txt", "b.txt", "d/e.txt"]
        );
        assert_eq!(changes["b.txt"], None);
        let diff = diff_against(&baseline, &changes);
        assert!(
            diff.starts_with("--- a/a.txt\n+++ b/a.txt\n-one\n+uno\n"),
            "{diff}"
        );
        let dir = tempfile::tempdir().unwrap();
        apply_onto(dir.path(), &baseline, &changes).unwrap();
        assert_eq!(files_of(dir.path()).unwrap(), now);
        let escape: Changes = [("../x".to_owned(), Some(b"x".to_vec()))].into();
        assert!(apply_onto(dir.path(), &baseline, &escape).is_err());
    }
}
