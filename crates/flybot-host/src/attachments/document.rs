//! A PDF's text (issue 32): Debian's `pdftotext` (poppler-utils) extracts
//! it, run like the Tesseract reading through `flybot-sandbox` (no
//! network, a fresh folder holding only the file, the text read from
//! stdout). When `pdftotext` is missing or fails, the caller names the file
//! without reading it; nothing here is ever an error to the person.

use super::extract::{Tool, stdout_of};

/// The text of the PDF `bytes`; `None` when `pdftotext` is not installed,
/// fails, or finds no text.
pub async fn pdf_text(bytes: &[u8]) -> Option<String> {
    let tool = Tool {
        program: "pdftotext",
        args: &["-q", "-enc", "UTF-8", "file.pdf", "-"],
        file_name: "file.pdf",
        env: &[],
    };
    let text = stdout_of(tool, bytes).await?;
    // pdftotext ends each page with a form feed.
    let text = text.replace('\u{c}', "\n");
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_owned())
}
