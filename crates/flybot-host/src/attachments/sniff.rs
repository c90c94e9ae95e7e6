//! The type of an upload, read from its bytes with `infer` and never from
//! its name (issue 32): a file named `.png` that holds HTML is text. Only
//! the four image formats the host decodes count as images; UTF-8 without
//! NUL bytes is text; anything else is stored and served as a download.

use flybot_protocol::attachment::AttachmentKind;

/// The media type and kind of `bytes`.
pub fn sniff(bytes: &[u8]) -> (String, AttachmentKind) {
    if let Some(found) = infer::get(bytes) {
        let mime = found.mime_type();
        let kind = match mime {
            "image/png" | "image/jpeg" | "image/gif" | "image/webp" => AttachmentKind::Image,
            "application/pdf" => AttachmentKind::Pdf,
            _ => AttachmentKind::Other,
        };
        if kind != AttachmentKind::Other || !is_text(bytes) {
            return (mime.to_owned(), kind);
        }
    }
    if is_text(bytes) {
        // Served as plain text whatever it holds: HTML is never text/html.
        ("text/plain; charset=utf-8".to_owned(), AttachmentKind::Text)
    } else {
        ("application/octet-stream".to_owned(), AttachmentKind::Other)
    }
}

fn is_text(bytes: &[u8]) -> bool {
    !bytes.contains(&0) && std::str::from_utf8(bytes).is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn html_named_png_is_text_and_a_png_is_an_image() {
        let (mime, kind) = sniff(b"<html><script>alert(1)</script></html>");
        assert_eq!(
            (mime.as_str(), kind),
            ("text/plain; charset=utf-8", AttachmentKind::Text)
        );
        let png = [0x89, b'P', b'N', b'G', 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13];
        assert_eq!(sniff(&png), ("image/png".to_owned(), AttachmentKind::Image));
        assert_eq!(sniff(b"%PDF-1.7\n").1, AttachmentKind::Pdf);
        assert_eq!(sniff(&[0, 1, 2, 255]).1, AttachmentKind::Other);
    }
}
