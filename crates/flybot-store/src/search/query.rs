//! A person's query as an FTS5 match expression, and a snippet's marked
//! text as parts. The query is hostile text: only its words reach FTS5,
//! each quoted, so no operator, column filter or syntax error can be typed.

use super::SnippetPart;

/// At most this many words of a query are searched for.
pub const MAX_WORDS: usize = 8;

/// What marks the start and the end of a matched word in a snippet: two
/// private-use characters, removed from every indexed line so a line
/// cannot forge a mark.
pub(crate) const OPEN: char = '\u{E000}';
pub(crate) const CLOSE: char = '\u{E001}';

/// The FTS5 expression for `query`: each word quoted, all of them needed,
/// the last one also matching as a prefix (the person may still be typing
/// it). `None` when the query has no word.
pub fn match_expression(query: &str) -> Option<String> {
    let words: Vec<&str> = query
        .split(|c: char| !c.is_alphanumeric())
        .filter(|word| !word.is_empty())
        .take(MAX_WORDS)
        .collect();
    let (last, rest) = words.split_last()?;
    let mut expression: Vec<String> = rest.iter().map(|word| format!("\"{word}\"")).collect();
    expression.push(format!("\"{last}\"*"));
    Some(expression.join(" "))
}

/// A line's text as the index keeps it: the snippet marks taken out.
pub(crate) fn unmarked(text: &str) -> String {
    text.chars().filter(|c| *c != OPEN && *c != CLOSE).collect()
}

/// FTS5's `snippet()` text split at its marks.
pub(crate) fn parts(snippet: &str) -> Vec<SnippetPart> {
    let mut parts = Vec::new();
    let mut current = String::new();
    let mut hit = false;
    for c in snippet.chars() {
        if c == OPEN || c == CLOSE {
            if !current.is_empty() {
                parts.push(SnippetPart {
                    text: std::mem::take(&mut current),
                    hit,
                });
            }
            hit = c == OPEN;
        } else {
            current.push(c);
        }
    }
    if !current.is_empty() {
        parts.push(SnippetPart { text: current, hit });
    }
    parts
}
