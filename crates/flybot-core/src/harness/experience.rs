//! The experience library's rules (#874 Step 2): lessons keyed by
//! repository (`repos/<owner>/<name>/<id>.json`) and tech stack
//! (`stacks/<techStack>/<id>.json`), kept off the harness tiers. Which
//! folders a lookup may open, whether a file agrees with its path, and how
//! the found entries are scoped, filtered by `query` and ordered (date
//! descending, then id) are decided here; `flybot-store` reads the files.

use serde::{Deserialize, Serialize};

/// One lesson: what triggered it, what was wrong, what is right, and when.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Lesson {
    pub id: String,
    /// `owner/name` for a repo lesson; `null` for a shared stack lesson.
    pub repo: Option<String>,
    /// Tags on a repo lesson; they do not publish it to other repos.
    #[serde(default)]
    pub tech_stacks: Vec<String>,
    pub trigger: String,
    pub wrong: String,
    pub right: String,
    /// `YYYY-MM-DD`.
    pub date: String,
}

/// The folder a lesson file lives in.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum LessonKey {
    /// `repos/<owner>/<name>`.
    Repo { owner: String, name: String },
    /// `stacks/<techStack>`.
    Stack(String),
}

impl LessonKey {
    /// The folder's path segments under the library's root.
    pub fn segments(&self) -> Vec<&str> {
        match self {
            LessonKey::Repo { owner, name } => vec!["repos", owner, name],
            LessonKey::Stack(stack) => vec!["stacks", stack],
        }
    }
}

/// What a lookup names: a repo `owner/name`, a tech stack, or both.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExperienceScope {
    pub repo: Option<String>,
    pub tech_stack: Option<String>,
}

/// A path segment the library accepts: letters, digits, `.`, `_`, `-`,
/// never `.` or `..` alone, at most 100 characters. Anything else could
/// leave the library's folder.
pub fn clean_segment(segment: &str) -> bool {
    !segment.is_empty()
        && segment.len() <= 100
        && segment != "."
        && segment != ".."
        && segment
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-'))
}

/// `owner/name` as a key, or `None` when it is not two clean segments.
pub fn repo_key(repo: &str) -> Option<LessonKey> {
    let (owner, name) = repo.split_once('/')?;
    (clean_segment(owner) && clean_segment(name)).then(|| LessonKey::Repo {
        owner: owner.to_owned(),
        name: name.to_owned(),
    })
}

/// The folders a lookup opens (#874 Step 2): only those the caller named;
/// none when it named neither or a name that is not a clean key.
pub fn lookup_folders(scope: &ExperienceScope) -> Vec<LessonKey> {
    let mut folders = Vec::new();
    if let Some(key) = scope.repo.as_deref().and_then(repo_key) {
        folders.push(key);
    }
    if let Some(stack) = scope.tech_stack.as_deref().filter(|s| clean_segment(s)) {
        folders.push(LessonKey::Stack(stack.to_owned()));
    }
    folders
}

/// Why a lesson file does not agree with its path, or `None`.
pub fn lesson_problem(key: &LessonKey, file_id: &str, lesson: &Lesson) -> Option<String> {
    if lesson.id != file_id || !clean_segment(&lesson.id) {
        return Some(format!("its id \"{}\" is not its file name", lesson.id));
    }
    if !is_date(&lesson.date) {
        return Some("its date is not YYYY-MM-DD".to_owned());
    }
    if [&lesson.trigger, &lesson.wrong, &lesson.right]
        .iter()
        .any(|text| text.trim().is_empty())
    {
        return Some("trigger, wrong and right must each say something".to_owned());
    }
    match key {
        LessonKey::Repo { owner, name } => {
            let here = format!("{owner}/{name}");
            (lesson.repo.as_deref() != Some(here.as_str()))
                .then(|| format!("a lesson under repos/{here} must name repo \"{here}\""))
        }
        LessonKey::Stack(_) => lesson
            .repo
            .is_some()
            .then(|| "a shared stack lesson has repo: null".to_owned()),
    }
}

fn is_date(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() == 10
        && bytes.iter().enumerate().all(|(i, b)| match i {
            4 | 7 => *b == b'-',
            _ => b.is_ascii_digit(),
        })
}

/// `lookupExperience`'s selection over what the named folders held: a repo
/// folder gives that repo's lessons (only those tagged with the stack when
/// a stack is named too); a stack folder gives its `repo: null` lessons;
/// `query` then filters id, trigger, wrong and right (without case); the
/// order is date descending, then id ascending.
pub fn select_lessons(
    scope: &ExperienceScope,
    query: Option<&str>,
    found: Vec<(LessonKey, Lesson)>,
) -> Vec<Lesson> {
    let named = lookup_folders(scope);
    let needle = query
        .map(str::to_lowercase)
        .filter(|q| !q.trim().is_empty());
    let mut out: Vec<Lesson> = found
        .into_iter()
        .filter(|(key, lesson)| {
            named.contains(key) && lesson_problem(key, &lesson.id, lesson).is_none()
        })
        .filter(|(key, lesson)| match key {
            LessonKey::Repo { .. } => match &scope.tech_stack {
                Some(stack) => lesson.tech_stacks.contains(stack),
                None => true,
            },
            LessonKey::Stack(_) => lesson.repo.is_none(),
        })
        .map(|(_, lesson)| lesson)
        .filter(|lesson| match &needle {
            None => true,
            Some(q) => [&lesson.id, &lesson.trigger, &lesson.wrong, &lesson.right]
                .iter()
                .any(|text| text.to_lowercase().contains(q.as_str())),
        })
        .collect();
    out.sort_by(|a, b| b.date.cmp(&a.date).then_with(|| a.id.cmp(&b.id)));
    out
}

#[cfg(test)]
#[path = "experience_tests.rs"]
mod tests;
