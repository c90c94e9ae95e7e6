//! The phase-1 fixture task (#198): a tiny node project whose tests fail and
//! whose requirement needs one clarification. It is written into a folder,
//! its files are digested and compared, and its test command is run there.

pub use crate::project::TestRun;
use crate::project::{self, Changes, Files};
use std::collections::BTreeMap;
use std::path::Path;
use std::process::Stdio;

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
    project::write_files(folder, &baseline())
}

/// The fixture as shipped: the baseline its changes are measured against.
pub fn baseline() -> Files {
    FILES
        .iter()
        .map(|(name, text)| ((*name).to_owned(), text.as_bytes().to_vec()))
        .collect()
}

/// Every project file under `folder`: relative path → bytes.
pub fn files_of(folder: &Path) -> std::io::Result<Files> {
    project::files_of(folder)
}

/// Relative path → SHA-256 of each project file.
pub fn digests_of(folder: &Path) -> std::io::Result<BTreeMap<String, String>> {
    Ok(project::digests(&files_of(folder)?))
}

/// The files that differ from the fixture as shipped.
pub fn changes(folder: &Path) -> std::io::Result<Changes> {
    Ok(project::changes_against(&baseline(), &files_of(folder)?))
}

/// A plain diff of the changes against the fixture.
pub fn diff_text(changes: &Changes) -> String {
    project::diff_against(&baseline(), changes)
}

/// Applies `changes` to a fresh fixture in `folder`.
pub fn apply(folder: &Path, changes: &Changes) -> std::io::Result<()> {
    project::apply_onto(folder, &baseline(), changes)
}

/// Runs the fixture's test command in `folder`.
pub async fn run_tests(folder: &Path) -> std::io::Result<TestRun> {
    let command: Vec<String> = TEST_COMMAND.iter().map(|s| (*s).to_owned()).collect();
    project::run_tests_with(folder, &command).await
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
