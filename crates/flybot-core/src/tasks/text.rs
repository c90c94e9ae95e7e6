//! The text a card carries: titles, notes, questions, answers and summaries,
//! each checked once here with the spec's limits (#207: 2,000 characters).

use flybot_protocol::ApiError;

/// Questions, answers, notes and send-back notes (#207).
pub const TEXT_MAX: usize = 2_000;
/// A title is one line.
pub const TITLE_MAX: usize = 200;
/// A returned result summary.
pub const SUMMARY_MAX: usize = 8_000;

/// A nonblank string of at most `max` characters, trimmed.
pub fn nonblank(field: &str, raw: &str, max: usize) -> Result<String, ApiError> {
    let text = raw.trim();
    if text.is_empty() {
        return Err(ApiError::invalid(
            field,
            format!("Give a {field}; it cannot be blank."),
        ));
    }
    if text.chars().count() > max {
        return Err(ApiError::invalid(
            field,
            format!("A {field} is at most {max} characters; shorten it."),
        ));
    }
    Ok(text.to_owned())
}

/// A one-line title.
pub fn title(raw: &str) -> Result<String, ApiError> {
    let title = nonblank("title", raw, TITLE_MAX)?;
    if title.chars().any(char::is_control) {
        return Err(ApiError::invalid(
            "title",
            "A title is one line of text without control characters.",
        ));
    }
    Ok(title)
}

/// Folds any text to one line: control characters and runs of whitespace
/// become one space, then the result is cut to `max` characters.
pub fn one_line(raw: &str, max: usize) -> String {
    let mut out = String::with_capacity(raw.len().min(max));
    let mut space = false;
    for c in raw.chars() {
        if c.is_whitespace() || c.is_control() {
            space = !out.is_empty();
        } else {
            if space {
                out.push(' ');
                space = false;
            }
            out.push(c);
        }
    }
    out.chars().take(max).collect()
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used)]
    use super::*;

    #[test]
    /// Rule #207.
    fn text_is_nonblank_and_at_most_2000_characters() {
        assert!(nonblank("question", "  ", TEXT_MAX).is_err());
        assert!(nonblank("question", &"x".repeat(2_000), TEXT_MAX).is_ok());
        let err = nonblank("question", &"x".repeat(2_001), TEXT_MAX).unwrap_err();
        assert_eq!(err.details["field"], "question");
    }

    #[test]
    fn one_line_folds_newlines_and_runs() {
        assert_eq!(one_line(" a \n\n b\tc ", 100), "a b c");
        assert_eq!(one_line("abcdef", 3), "abc");
    }
}
