//! A PDF's text (issue 32): Debian's `pdftotext` (poppler-utils) extracts
//! it, run like the Tesseract reading through `flybot-sandbox` (no
//! network, a fresh folder holding only the file, the text read from
//! stdout). When `pdftotext` is missing or fails, the caller names the file
//! without reading it; nothing here is ever an error to the person.

use std::time::Duration;

/// How long one extraction may take.
const EXTRACT_TIMEOUT: Duration = Duration::from_secs(60);

/// The text of the PDF `bytes`; `None` when `pdftotext` is not installed,
/// fails, or finds no text.
pub async fn pdf_text(bytes: &[u8]) -> Option<String> {
    let folder = tempfile::Builder::new()
        .prefix("flybot-pdf-")
        .tempdir()
        .ok()?;
    tokio::fs::write(folder.path().join("file.pdf"), bytes)
        .await
        .ok()?;
    let mut command = tokio::process::Command::new("pdftotext");
    command
        .args(["-q", "-enc", "UTF-8", "file.pdf", "-"])
        .current_dir(folder.path())
        .env_clear()
        .env("PATH", "/usr/bin:/bin")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .kill_on_drop(true);
    let policy = flybot_sandbox::Policy::writing(&[folder.path()]);
    let (child, _sandbox) = match flybot_sandbox::spawn(command, &policy) {
        Ok(started) => started,
        Err(e) => {
            tracing::warn!("pdftotext could not start: {e}");
            return None;
        }
    };
    let output = tokio::time::timeout(EXTRACT_TIMEOUT, child.wait_with_output())
        .await
        .ok()?
        .ok()?;
    if !output.status.success() {
        return None;
    }
    let text = String::from_utf8_lossy(&output.stdout);
    // pdftotext ends each page with a form feed.
    let text = text.replace('\u{c}', "\n");
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_owned())
}
