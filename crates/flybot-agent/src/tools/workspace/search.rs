//! `search_files`: lines that hold a text or a simple wildcard pattern, in
//! the text files under a folder of the working folder. Binary files (a NUL
//! byte near the start) and files over 2 MiB are skipped; results are capped.

use super::error::{Refusal, Result, WorkspaceError};
use super::files::BINARY_SNIFF_BYTES;
use super::path::WorkingFolder;
use super::walk::{EntryKind, walk};
use schemars::JsonSchema;
use serde::Deserialize;

/// Matching lines answered unless asked for fewer.
pub const SEARCH_DEFAULT_RESULTS: u32 = 100;
/// The most matching lines one call answers.
pub const SEARCH_MAX_RESULTS: u32 = 1_000;
/// Files larger than this are not searched.
pub const SEARCH_MAX_FILE_BYTES: u64 = 2 * 1024 * 1024;
/// A matching line is shown up to this many characters.
const SHOWN_LINE_CHARS: usize = 200;

/// How `query` is matched against a line.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum SearchMode {
    /// The line contains the query exactly.
    #[default]
    Text,
    /// The query is a pattern where `*` matches any run of characters and `?` one character, found anywhere in the line.
    Wildcard,
}

/// Search the text files under a folder of the working folder.
#[derive(Debug, Clone, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SearchFilesArgs {
    /// The text or pattern to look for.
    pub query: String,
    /// How the query is matched (default: text).
    #[serde(default)]
    pub mode: SearchMode,
    /// The folder to search, relative to the working folder (default: the working folder itself).
    #[serde(default)]
    pub path: Option<String>,
    /// Only files whose name matches this wildcard pattern, e.g. `*.rs`.
    #[serde(default)]
    pub file_pattern: Option<String>,
    /// Ignore the difference between upper and lower case.
    #[serde(default)]
    pub ignore_case: bool,
    /// At most this many matching lines (default 100, at most 1000).
    #[serde(default)]
    pub max_results: Option<u32>,
}

/// One matching line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchHit {
    /// Relative to the working folder.
    pub path: String,
    /// 1-based.
    pub line: u64,
    pub text: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SearchResults {
    pub hits: Vec<SearchHit>,
    pub truncated: bool,
    /// Files skipped as binary or too large.
    pub skipped_files: usize,
}

impl SearchResults {
    pub fn to_model_text(&self) -> String {
        let mut lines: Vec<String> = self
            .hits
            .iter()
            .map(|hit| format!("{}:{}: {}", hit.path, hit.line, hit.text))
            .collect();
        if lines.is_empty() {
            lines.push("No matches.".to_owned());
        }
        if self.truncated {
            lines.push(format!(
                "[stopped at {} matches; narrow the path, file_pattern or query]",
                self.hits.len()
            ));
        }
        if self.skipped_files > 0 {
            lines.push(format!(
                "[{} binary or over-2-MiB files not searched]",
                self.skipped_files
            ));
        }
        lines.join("\n")
    }
}

/// Whether `pattern` (`*` any run, `?` one character) matches all of `text`.
/// Greedy with one backtrack point, so linear-ish and never exponential.
pub(crate) fn wildcard_matches(pattern: &[char], text: &[char]) -> bool {
    let (mut p, mut t) = (0, 0);
    let mut star: Option<(usize, usize)> = None;
    while t < text.len() {
        if p < pattern.len() && (pattern[p] == '?' || pattern[p] == text[t]) {
            p += 1;
            t += 1;
        } else if p < pattern.len() && pattern[p] == '*' {
            star = Some((p, t));
            p += 1;
        } else if let Some((star_p, star_t)) = star {
            p = star_p + 1;
            t = star_t + 1;
            star = Some((star_p, star_t + 1));
        } else {
            return false;
        }
    }
    pattern[p..].iter().all(|c| *c == '*')
}

struct LineMatcher {
    mode: SearchMode,
    ignore_case: bool,
    query: String,
    /// `*query*` for the wildcard mode: found anywhere in the line.
    pattern: Vec<char>,
}

impl LineMatcher {
    fn new(args: &SearchFilesArgs) -> LineMatcher {
        let query = if args.ignore_case {
            args.query.to_lowercase()
        } else {
            args.query.clone()
        };
        let pattern = format!("*{query}*").chars().collect();
        LineMatcher {
            mode: args.mode,
            ignore_case: args.ignore_case,
            query,
            pattern,
        }
    }

    fn matches(&self, line: &str) -> bool {
        let folded;
        let line = if self.ignore_case {
            folded = line.to_lowercase();
            folded.as_str()
        } else {
            line
        };
        match self.mode {
            SearchMode::Text => line.contains(&self.query),
            SearchMode::Wildcard => {
                wildcard_matches(&self.pattern, &line.chars().collect::<Vec<_>>())
            }
        }
    }
}

pub fn search_files(folder: &WorkingFolder, args: &SearchFilesArgs) -> Result<SearchResults> {
    if args.query.is_empty() {
        return Err(Refusal::EmptyQuery.into());
    }
    let shown = args.path.as_deref().unwrap_or(".");
    let start = folder.resolve(shown)?;
    if !start.is_dir() {
        return Err(Refusal::NotAFolder {
            path: shown.to_owned(),
        }
        .into());
    }
    let cap = args
        .max_results
        .unwrap_or(SEARCH_DEFAULT_RESULTS)
        .clamp(1, SEARCH_MAX_RESULTS) as usize;
    let matcher = LineMatcher::new(args);
    let name_pattern: Option<Vec<char>> = args.file_pattern.as_ref().map(|p| p.chars().collect());
    let mut results = SearchResults {
        hits: Vec::new(),
        truncated: false,
        skipped_files: 0,
    };
    walk(&start, true, &mut |entry| {
        if entry.kind != EntryKind::File {
            return true;
        }
        if let Some(pattern) = &name_pattern {
            let name: Vec<char> = entry
                .path
                .file_name()
                .map(|n| n.to_string_lossy().chars().collect())
                .unwrap_or_default();
            if !wildcard_matches(pattern, &name) {
                return true;
            }
        }
        let too_large = std::fs::metadata(&entry.path)
            .map(|meta| meta.len() > SEARCH_MAX_FILE_BYTES)
            .unwrap_or(true);
        // An unreadable file is skipped like a binary one: the search is a
        // best effort over what can be read.
        let bytes = match too_large {
            true => None,
            false => std::fs::read(&entry.path).ok(),
        };
        let Some(bytes) = bytes.filter(|b| !b.iter().take(BINARY_SNIFF_BYTES).any(|c| *c == 0))
        else {
            results.skipped_files += 1;
            return true;
        };
        let text = String::from_utf8_lossy(&bytes);
        for (index, line) in text.lines().enumerate() {
            if !matcher.matches(line) {
                continue;
            }
            if results.hits.len() == cap {
                results.truncated = true;
                return false;
            }
            results.hits.push(SearchHit {
                path: folder.shown(&entry.path),
                line: index as u64 + 1,
                text: line.chars().take(SHOWN_LINE_CHARS).collect(),
            });
        }
        true
    })
    .map_err(|e| WorkspaceError::io("search", start.clone(), shown, e))?;
    Ok(results)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tree() -> (tempfile::TempDir, WorkingFolder) {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("src")).unwrap();
        std::fs::write(
            root.join("src/lib.rs"),
            "fn new() {}\nfn old() {}\nFN NEW\n",
        )
        .unwrap();
        std::fs::write(root.join("notes.md"), "call new_thing here\n").unwrap();
        std::fs::write(root.join("blob.bin"), b"new\x00\x01").unwrap();
        let folder = WorkingFolder::open(root).unwrap();
        (dir, folder)
    }

    fn args(query: &str) -> SearchFilesArgs {
        SearchFilesArgs {
            query: query.into(),
            mode: SearchMode::Text,
            path: None,
            file_pattern: None,
            ignore_case: false,
            max_results: None,
        }
    }

    fn found(results: &SearchResults) -> Vec<String> {
        results
            .hits
            .iter()
            .map(|h| format!("{}:{}", h.path, h.line))
            .collect()
    }

    #[test]
    fn workspace_search_text_skips_binary() {
        let (_dir, folder) = tree();
        let results = search_files(&folder, &args("new")).unwrap();
        assert_eq!(found(&results), ["notes.md:1", "src/lib.rs:1"]);
        assert_eq!(results.skipped_files, 1, "blob.bin is binary");
        assert_eq!(results.hits[1].text, "fn new() {}");
        let text = results.to_model_text();
        assert!(
            text.starts_with("notes.md:1: call new_thing here\nsrc/lib.rs:1: fn new() {}"),
            "{text}"
        );
    }

    #[test]
    fn workspace_search_wildcard_case_and_file_pattern() {
        let (_dir, folder) = tree();
        let mut wild = args("fn ?e*()");
        wild.mode = SearchMode::Wildcard;
        assert_eq!(
            found(&search_files(&folder, &wild).unwrap()),
            ["src/lib.rs:1"]
        );
        let mut loud = args("fn new");
        loud.ignore_case = true;
        assert_eq!(
            found(&search_files(&folder, &loud).unwrap()),
            ["src/lib.rs:1", "src/lib.rs:3"]
        );
        let mut only_md = args("new");
        only_md.file_pattern = Some("*.md".into());
        assert_eq!(
            found(&search_files(&folder, &only_md).unwrap()),
            ["notes.md:1"]
        );
    }

    #[test]
    fn workspace_search_cap() {
        let (_dir, folder) = tree();
        let mut capped = args("fn");
        capped.max_results = Some(1);
        let results = search_files(&folder, &capped).unwrap();
        assert_eq!(found(&results), ["src/lib.rs:1"]);
        assert!(results.truncated);
    }

    #[test]
    fn workspace_search_refusals() {
        let (_dir, folder) = tree();
        assert!(matches!(
            search_files(&folder, &args("")),
            Err(WorkspaceError::Refused(Refusal::EmptyQuery))
        ));
        let mut outside = args("x");
        outside.path = Some("../".into());
        assert!(matches!(
            search_files(&folder, &outside),
            Err(WorkspaceError::Refused(Refusal::ParentDir { .. }))
        ));
        outside.path = Some("/etc".into());
        assert!(matches!(
            search_files(&folder, &outside),
            Err(WorkspaceError::Refused(Refusal::AbsoluteOutside { .. }))
        ));
    }

    #[test]
    fn workspace_wildcard_matcher() {
        let cases = [
            ("*.rs", "main.rs", true),
            ("*.rs", "main.rsx", false),
            ("a?c", "abc", true),
            ("a?c", "ac", false),
            ("*", "", true),
            ("a*b*c", "aXXbYYc", true),
            ("a*b*c", "aXXbYY", false),
        ];
        for (pattern, text, expected) in cases {
            let p: Vec<char> = pattern.chars().collect();
            let t: Vec<char> = text.chars().collect();
            assert_eq!(wildcard_matches(&p, &t), expected, "{pattern} vs {text}");
        }
    }
}
