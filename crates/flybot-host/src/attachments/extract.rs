//! The one way an attachment's bytes meet a Debian tool (Tesseract,
//! `pdftotext`, issue 32): written alone into a fresh folder, the tool run
//! there through `flybot-sandbox` (no network, writing only that folder, an
//! empty environment but `PATH`), its stdout answered. A tool that is
//! missing, fails or outlives its time answers `None`.

use std::time::Duration;

/// How long one tool may take on one file.
const TIMEOUT: Duration = Duration::from_secs(60);

/// One run: the tool, its arguments, the name the file gets in the folder,
/// and extra environment.
pub struct Tool<'a> {
    pub program: &'a str,
    pub args: &'a [&'a str],
    pub file_name: &'a str,
    pub env: &'a [(&'a str, &'a str)],
}

/// `tool`'s stdout on `bytes`, or `None`.
pub async fn stdout_of(tool: Tool<'_>, bytes: &[u8]) -> Option<String> {
    let folder = tempfile::Builder::new()
        .prefix("flybot-extract-")
        .tempdir()
        .ok()?;
    tokio::fs::write(folder.path().join(tool.file_name), bytes)
        .await
        .ok()?;
    let mut command = tokio::process::Command::new(tool.program);
    command
        .args(tool.args)
        .current_dir(folder.path())
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .envs(tool.env.iter().copied())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true);
    let policy = flybot_sandbox::Policy::writing(&[folder.path()]);
    let (child, _sandbox) = match flybot_sandbox::spawn(command, &policy) {
        Ok(started) => started,
        Err(e) => {
            tracing::warn!("{} could not start: {e}", tool.program);
            return None;
        }
    };
    let output = tokio::time::timeout(TIMEOUT, child.wait_with_output())
        .await
        .ok()?
        .ok()?;
    output
        .status
        .success()
        .then(|| String::from_utf8_lossy(&output.stdout).into_owned())
}
