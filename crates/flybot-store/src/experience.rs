//! The experience library's files (#874 Step 2): lessons as JSON files in
//! git under `repos/<owner>/<name>/<id>.json` and `stacks/<techStack>/<id>.json`
//! beneath a root (the repository's `dev/experience/`). `lookup_experience`
//! opens only the folders the caller named (the rules are
//! `flybot_core::harness::experience`); `check_experience` checks the whole
//! tree; `add_experience` writes one new file and never overwrites. A root
//! that does not exist (a packaged install) reads as no lessons.

pub use flybot_core::harness::experience::{ExperienceScope, Lesson};
use flybot_core::harness::experience::{
    LessonKey, clean_segment, lesson_problem, lookup_folders, repo_key, select_lessons,
};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// The library's folder under a repository checkout.
pub const EXPERIENCE_DIR: &str = "dev/experience";

/// Why `add_experience` refused.
#[derive(Debug, thiserror::Error)]
pub enum AddRefused {
    #[error("{0}")]
    Invalid(String),
    #[error("a lesson named {0} exists already; pick another id")]
    Exists(String),
    #[error("the lesson could not be written: {0}")]
    Io(#[from] io::Error),
}

fn folder(root: &Path, key: &LessonKey) -> PathBuf {
    key.segments()
        .iter()
        .fold(root.to_owned(), |p, s| p.join(s))
}

/// Every `<id>.json` in one folder, read; a missing folder is empty, and an
/// unreadable file is a problem with its path.
fn read_folder(root: &Path, key: &LessonKey) -> (Vec<(LessonKey, Lesson)>, Vec<String>) {
    let dir = folder(root, key);
    let mut lessons = Vec::new();
    let mut problems = Vec::new();
    let Ok(entries) = fs::read_dir(&dir) else {
        return (lessons, problems);
    };
    let mut paths: Vec<PathBuf> = entries.flatten().map(|e| e.path()).collect();
    paths.sort();
    for path in paths {
        let shown = path
            .strip_prefix(root)
            .unwrap_or(&path)
            .display()
            .to_string();
        let Some(id) = path
            .file_name()
            .and_then(|n| n.to_str())
            .and_then(|n| n.strip_suffix(".json"))
        else {
            problems.push(format!("{shown}: not a <id>.json lesson file"));
            continue;
        };
        let read = fs::read(&path)
            .map_err(|e| e.to_string())
            .and_then(|bytes| serde_json::from_slice::<Lesson>(&bytes).map_err(|e| e.to_string()));
        match read {
            Ok(lesson) => match lesson_problem(key, id, &lesson) {
                None => lessons.push((key.clone(), lesson)),
                Some(problem) => problems.push(format!("{shown}: {problem}")),
            },
            Err(e) => problems.push(format!("{shown}: {e}")),
        }
    }
    (lessons, problems)
}

/// `lookupExperience({repo, techStack, query, root})`: the lessons of the
/// named folders only, scoped, filtered and ordered by the core's rule. A
/// file that does not agree with its path is left out (`check` names it).
pub fn lookup_experience(root: &Path, scope: &ExperienceScope, query: Option<&str>) -> Vec<Lesson> {
    let found = lookup_folders(scope)
        .iter()
        .flat_map(|key| read_folder(root, key).0)
        .collect();
    select_lessons(scope, query, found)
}

/// Names in one folder, sorted; none when it is missing.
fn names_in(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .map(|entries| {
            entries
                .flatten()
                .filter_map(|e| e.file_name().to_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// `check`: every file of the tree, its path and fields in agreement. The
/// answer is the problems, one sentence each with the file's path.
pub fn check_experience(root: &Path) -> Vec<String> {
    let mut keys = Vec::new();
    let mut problems = Vec::new();
    for top in names_in(root) {
        match top.as_str() {
            "repos" => {
                for owner in names_in(&root.join("repos")) {
                    for name in names_in(&root.join("repos").join(&owner)) {
                        keys.push(LessonKey::Repo {
                            owner: owner.clone(),
                            name,
                        });
                    }
                }
            }
            "stacks" => keys.extend(
                names_in(&root.join("stacks"))
                    .into_iter()
                    .map(LessonKey::Stack),
            ),
            "README.md" => {}
            other => problems.push(format!(
                "{other}: only repos/ and stacks/ belong in the library"
            )),
        }
    }
    for key in keys {
        if !key.segments().iter().all(|s| clean_segment(s)) {
            problems.push(format!(
                "{}: not a clean folder name",
                key.segments().join("/")
            ));
            continue;
        }
        problems.extend(read_folder(root, &key).1);
    }
    problems
}

/// `add`: writes `lesson` as a new file in its folder (a repo lesson under
/// `repos/<owner>/<name>`, a shared one under `stacks/<stack>`), checked
/// first; an existing file is never overwritten. Harness configs are not
/// touched. The answer is the new file's path.
pub fn add_experience(
    root: &Path,
    stack: Option<&str>,
    lesson: &Lesson,
) -> Result<PathBuf, AddRefused> {
    let key = match (&lesson.repo, stack) {
        (Some(repo), _) => repo_key(repo)
            .ok_or_else(|| AddRefused::Invalid(format!("\"{repo}\" is not owner/name")))?,
        (None, Some(stack)) if clean_segment(stack) => LessonKey::Stack(stack.to_owned()),
        (None, _) => {
            return Err(AddRefused::Invalid(
                "A shared lesson needs a tech stack (letters, digits, . _ -).".into(),
            ));
        }
    };
    if let Some(problem) = lesson_problem(&key, &lesson.id, lesson) {
        return Err(AddRefused::Invalid(format!(
            "The lesson is refused: {problem}."
        )));
    }
    let dir = folder(root, &key);
    fs::create_dir_all(&dir)?;
    let path = dir.join(format!("{}.json", lesson.id));
    let mut bytes = serde_json::to_vec_pretty(lesson).map_err(io::Error::other)?;
    bytes.push(b'\n');
    match crate::write_new_file(&path, &bytes) {
        Ok(()) => Ok(path),
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            Err(AddRefused::Exists(path.display().to_string()))
        }
        Err(e) => Err(AddRefused::Io(e)),
    }
}

#[cfg(test)]
#[path = "experience_tests.rs"]
mod tests;
