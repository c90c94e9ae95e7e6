//! The phase-1 fixture task (#198): a tiny node project whose tests fail and
//! whose requirement needs one clarification. It is written into a folder,
//! its files are digested and compared, and its test command is run there.

use crate::subprocess::group::ProcessGroup;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

/// The fixture's files, as the repository holds them.
pub const FILES: [(&str, &str); 3] = [
    (
        "REQUIREMENT.md",
        include_str!("../../fixtures/pilot/REQUIREMENT.md"),
    ),
    ("slug.mjs", include_str!("../../fixtures/pilot/slug.mjs")),
    (
        "slug.test.mjs",
        include_str!("../../fixtures/pilot/slug.test.mjs"),
    ),
];

/// The one command the fixture's tests run with (and the only one the
/// OpenCode policy allows).
pub const TEST_COMMAND: [&str; 2] = ["node", "--test"];

/// How long the tests may run.
const TEST_LIMIT: Duration = Duration::from_secs(120);

/// A digest of the fixture as shipped: the report's input fixture.
pub fn fixture_digest() -> String {
    let mut all = Vec::new();
    for (name, text) in FILES {
        all.extend_from_slice(name.as_bytes());
        all.push(0);
        all.extend_from_slice(crate::sha256_hex(text.as_bytes()).as_bytes());
        all.push(b'\n');
    }
    crate::sha256_hex(&all)
}

/// Writes the fixture into `folder` (made if missing).
pub fn materialize(folder: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(folder)?;
    for (name, text) in FILES {
        std::fs::write(folder.join(name), text)?;
    }
    Ok(())
}

fn walk(root: &Path, folder: &Path, out: &mut BTreeMap<String, Vec<u8>>) -> std::io::Result<()> {
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

/// Every project file under `folder`: relative path → bytes.
pub fn files_of(folder: &Path) -> std::io::Result<BTreeMap<String, Vec<u8>>> {
    let mut out = BTreeMap::new();
    walk(folder, folder, &mut out)?;
    Ok(out)
}

/// Relative path → SHA-256 of each project file.
pub fn digests_of(folder: &Path) -> std::io::Result<BTreeMap<String, String>> {
    Ok(files_of(folder)?
        .into_iter()
        .map(|(k, v)| (k, crate::sha256_hex(&v)))
        .collect())
}

/// The files that differ from the fixture as shipped: path → new bytes
/// (`None` when removed).
pub fn changes(folder: &Path) -> std::io::Result<BTreeMap<String, Option<Vec<u8>>>> {
    let now = files_of(folder)?;
    let mut out = BTreeMap::new();
    for (name, text) in FILES {
        match now.get(name) {
            Some(bytes) if bytes == text.as_bytes() => {}
            Some(bytes) => {
                out.insert(name.to_owned(), Some(bytes.clone()));
            }
            None => {
                out.insert(name.to_owned(), None);
            }
        }
    }
    for (name, bytes) in now {
        if !FILES.iter().any(|(n, _)| *n == name) {
            out.insert(name, Some(bytes));
        }
    }
    Ok(out)
}

/// A plain diff of the changes against the fixture: each changed file's old
/// lines with `-`, then its new lines with `+`.
pub fn diff_text(changes: &BTreeMap<String, Option<Vec<u8>>>) -> String {
    let mut out = String::new();
    for (name, new) in changes {
        let old = FILES
            .iter()
            .find(|(n, _)| n == name)
            .map_or("", |(_, t)| *t);
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

/// Applies `changes` to a fresh fixture in `folder`.
pub fn apply(folder: &Path, changes: &BTreeMap<String, Option<Vec<u8>>>) -> std::io::Result<()> {
    materialize(folder)?;
    for (name, new) in changes {
        let relative = Path::new(name);
        if relative.is_absolute() || name.split('/').any(|s| s == "..") {
            return Err(std::io::Error::other(format!("{name} leaves the project")));
        }
        let target = folder.join(relative);
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

/// One run of the fixture's tests.
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

/// Runs the test command in `folder` (its own process group, a clean
/// environment, a limit).
pub async fn run_tests(folder: &Path) -> std::io::Result<TestRun> {
    let mut command = tokio::process::Command::new(TEST_COMMAND[0]);
    command
        .args(&TEST_COMMAND[1..])
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
        .stderr(Stdio::piped())
        .process_group(0)
        .kill_on_drop(true);
    let child = command.spawn()?;
    let _group = ProcessGroup::new(child.id());
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
        command: TEST_COMMAND.iter().map(|s| (*s).to_owned()).collect(),
        folder: folder.to_owned(),
        exit_code: output.status.code(),
        passed: output.status.success(),
        summary,
        output_sha256: crate::sha256_hex(&output.stdout),
    })
}

/// `node --version`, or `null` when node cannot be run.
pub async fn node_version() -> serde_json::Value {
    let ran = tokio::process::Command::new("node")
        .arg("--version")
        .current_dir(std::env::temp_dir())
        .stdin(Stdio::null())
        .kill_on_drop(true)
        .output()
        .await;
    match ran {
        Ok(out) if out.status.success() => {
            serde_json::Value::String(String::from_utf8_lossy(&out.stdout).trim().to_owned())
        }
        _ => serde_json::Value::Null,
    }
}
