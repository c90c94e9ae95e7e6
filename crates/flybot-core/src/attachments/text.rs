//! A text file attached to a line reaches the model as fenced text (#98):
//! the file's words are another person's, never this home's instructions,
//! so they travel inside an `untrusted-file` fence with every marker
//! stripped, cut with a note past the context budget.

use crate::fences::{fence_name, strip_untrusted};

/// The fence a file's text is wrapped in (#98).
pub const FILE: &str = "untrusted-file";

/// `text` of the file `name` fenced, at most `budget` characters of it; a
/// cut file says how much was left out.
pub fn fenced_file(name: &str, text: &str, budget: usize) -> String {
    let clean = strip_untrusted(text);
    let total = clean.chars().count();
    let (body, note) = if total > budget {
        let kept: String = clean.chars().take(budget).collect();
        let note =
            format!("\n[cut: the file has {total} characters; only the first {budget} are shown]");
        (kept, note)
    } else {
        (clean, String::new())
    };
    format!(
        "<{FILE} name=\"{}\">\n{body}\n</{FILE}>{note}",
        fence_name(name)
    )
}
