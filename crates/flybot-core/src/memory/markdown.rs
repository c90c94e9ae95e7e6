//! The memory file format: one Markdown file per scope, a heading for the
//! file, then each entry as a `### <id> · by: <author> · at: <ms> · topic:
//! <topic>` line followed by its text. A person can read and edit it in any
//! editor; a text line that would read as an entry heading is escaped with
//! a backslash, so an entry can never split another.

use super::MemoryEntry;

const HEADING: &str = "### mem-";

/// The whole file for `entries`, in order.
pub fn format_file(title: &str, entries: &[MemoryEntry]) -> String {
    let mut out = format!("# {title}\n");
    for entry in entries {
        out.push_str(&format!(
            "\n### {} · by: {} · at: {} · topic: {}\n",
            entry.id, entry.by, entry.at, entry.topic
        ));
        for line in entry.text.lines() {
            if line.trim_start_matches('\\').starts_with(HEADING) {
                out.push('\\');
            }
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// Every entry of a file, in order. Text before the first entry (the title,
/// a person's notes) is not an entry and is left out.
pub fn parse_file(text: &str) -> Vec<MemoryEntry> {
    let mut entries: Vec<MemoryEntry> = Vec::new();
    let mut body: Vec<&str> = Vec::new();
    let mut open: Option<MemoryEntry> = None;
    for line in text.lines() {
        if let Some(entry) = heading(line) {
            close(&mut entries, open.take(), &mut body);
            open = Some(entry);
        } else if open.is_some() {
            body.push(line);
        }
    }
    close(&mut entries, open, &mut body);
    entries
}

fn close(entries: &mut Vec<MemoryEntry>, open: Option<MemoryEntry>, body: &mut Vec<&str>) {
    if let Some(mut entry) = open {
        let lines: Vec<&str> = body
            .drain(..)
            .map(|line| {
                if line.starts_with('\\') && line.trim_start_matches('\\').starts_with(HEADING) {
                    &line[1..]
                } else {
                    line
                }
            })
            .collect();
        entry.text = lines.join("\n").trim().to_owned();
        entries.push(entry);
    }
    body.clear();
}

/// An entry heading line, read into an entry with no text yet.
fn heading(line: &str) -> Option<MemoryEntry> {
    let rest = line.strip_prefix("### ")?;
    if !rest.starts_with("mem-") {
        return None;
    }
    let (id, rest) = rest.split_once(" · by: ")?;
    let (by, rest) = rest.split_once(" · at: ")?;
    let (at, topic) = rest.split_once(" · topic: ")?;
    Some(MemoryEntry {
        id: id.trim().to_owned(),
        topic: topic.trim().to_owned(),
        by: by.trim().to_owned(),
        at: at.trim().parse().ok()?,
        text: String::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: &str, text: &str) -> MemoryEntry {
        MemoryEntry {
            id: id.into(),
            topic: "deploy · prod".into(),
            by: "bot-a".into(),
            at: 42,
            text: text.into(),
        }
    }

    #[test]
    fn a_file_reads_back_what_was_written_even_a_text_that_looks_like_a_heading() {
        let entries = vec![
            entry("mem-1", "Deploys go out on Fridays.\nSee [[release]]."),
            entry("mem-2", "### mem-3 · by: x · at: 1 · topic: y\n\\### mem-4"),
        ];
        let file = format_file("Memory of Ada", &entries);
        assert!(file.starts_with(
            "# Memory of Ada\n\n### mem-1 · by: bot-a · at: 42 · topic: deploy · prod\nDeploys"
        ));
        assert_eq!(parse_file(&file), entries);
    }

    #[test]
    fn a_person_s_notes_before_the_first_entry_are_not_entries() {
        let text = "# Memory\nSome notes a person wrote.\n\n### mem-9 · by: m-1 · at: 7 · topic: t\n  hello  \n\n";
        let parsed = parse_file(text);
        assert_eq!(parsed.len(), 1);
        assert_eq!(parsed[0].text, "hello");
        assert_eq!(parsed[0].by, "m-1");
        assert!(parse_file("### mem-1 · by: a · at: soon · topic: t\nx").is_empty());
    }
}
