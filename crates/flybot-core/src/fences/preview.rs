//! What a stored line may show a person (#130, #1347): `visible_text`
//! unwraps a complete fence, removes leftover marker fragments (and the
//! `from="…">` residue of an opener that was already cut) until nothing
//! changes, then folds the text to one line.

use super::{strip_untrusted, unwrap_fence};

/// The `from="…">` residue at the start of a line whose opener was cut.
fn strip_from_residue(text: &str) -> String {
    let t = text.trim_start();
    if let Some(rest) = t.strip_prefix("from=\"")
        && let Some(q) = rest.find('"')
    {
        let after = rest[q + 1..].trim_start();
        if let Some(body) = after.strip_prefix('>') {
            return body.to_string();
        }
    }
    text.to_string()
}

/// `visibleText` (#130, #1347).
pub fn visible_text(text: &str) -> String {
    let mut cur = match unwrap_fence(text) {
        Some((_, body)) => body,
        None => text.to_string(),
    };
    loop {
        let next = strip_from_residue(&strip_untrusted(&cur));
        if next == cur {
            break;
        }
        cur = next;
    }
    cur.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::super::fence;
    use super::*;

    #[test]
    /// Rule #130.
    fn visible_text_unwraps_a_fence_and_folds_to_one_line() {
        assert_eq!(visible_text(&fence("Bob", "hello\n  world")), "hello world");
    }

    #[test]
    /// Rule #1347.
    fn a_cut_opener_leaks_no_from_residue() {
        assert_eq!(
            visible_text("from=\"User\"> hi there</untrusted-message>"),
            "hi there"
        );
        assert_eq!(
            visible_text("ssage from=\"User\">x"),
            "ssage from=\"User\">x"
        );
        assert_eq!(visible_text("< untrusted-message from=\"U\">ok"), "ok");
    }
}
