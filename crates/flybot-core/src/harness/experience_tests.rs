//! The experience library's rules, one per test (#874 Step 2).

use super::*;

fn lesson(id: &str, repo: Option<&str>, stacks: &[&str], date: &str) -> Lesson {
    Lesson {
        id: id.into(),
        repo: repo.map(Into::into),
        tech_stacks: stacks.iter().map(|s| s.to_string()).collect(),
        trigger: format!("trigger of {id}"),
        wrong: "wrong".into(),
        right: "right".into(),
        date: date.into(),
    }
}

fn repo(owner: &str, name: &str) -> LessonKey {
    LessonKey::Repo {
        owner: owner.into(),
        name: name.into(),
    }
}

fn stack(s: &str) -> LessonKey {
    LessonKey::Stack(s.into())
}

/// The library as the store would read every folder.
fn library() -> Vec<(LessonKey, Lesson)> {
    vec![
        (
            repo("acme", "app"),
            lesson("a-old", Some("acme/app"), &["rust"], "2026-01-01"),
        ),
        (
            repo("acme", "app"),
            lesson("a-new", Some("acme/app"), &[], "2026-03-01"),
        ),
        (
            repo("other", "lib"),
            lesson("o-1", Some("other/lib"), &["rust"], "2026-05-01"),
        ),
        (stack("rust"), lesson("s-b", None, &[], "2026-02-01")),
        (stack("rust"), lesson("s-a", None, &[], "2026-02-01")),
        (stack("go"), lesson("g-1", None, &[], "2026-04-01")),
    ]
}

fn ids(scope: ExperienceScope, query: Option<&str>) -> Vec<String> {
    select_lessons(&scope, query, library())
        .into_iter()
        .map(|l| l.id)
        .collect()
}

fn scope(repo: Option<&str>, stack: Option<&str>) -> ExperienceScope {
    ExperienceScope {
        repo: repo.map(Into::into),
        tech_stack: stack.map(Into::into),
    }
}

#[test]
/// Rule #874.
fn a_lookup_without_a_key_returns_nothing() {
    assert!(lookup_folders(&scope(None, None)).is_empty());
    assert!(ids(scope(None, None), None).is_empty());
}

#[test]
/// Rule #874.
fn a_repo_lookup_opens_that_repos_folder_only() {
    assert_eq!(
        lookup_folders(&scope(Some("acme/app"), None)),
        vec![repo("acme", "app")]
    );
    // Another repo's lesson tagged `rust` is not published to acme/app.
    assert_eq!(ids(scope(Some("acme/app"), None), None), ["a-new", "a-old"]);
}

#[test]
/// Rule #874.
fn a_stack_lookup_returns_the_shared_entries_of_that_stack() {
    assert_eq!(
        lookup_folders(&scope(None, Some("rust"))),
        vec![stack("rust")]
    );
    assert_eq!(ids(scope(None, Some("rust")), None), ["s-a", "s-b"]);
}

#[test]
/// Rule #874.
fn both_keys_return_the_repos_tagged_entries_and_the_shared_stack_ones() {
    assert_eq!(
        ids(scope(Some("acme/app"), Some("rust")), None),
        ["s-a", "s-b", "a-old"]
    );
}

#[test]
/// Rule #874.
fn query_filters_id_trigger_wrong_and_right_after_the_scope() {
    assert_eq!(ids(scope(Some("acme/app"), None), Some("A-NEW")), ["a-new"]);
    assert_eq!(
        ids(scope(None, Some("rust")), Some("trigger of s-b")),
        ["s-b"]
    );
    // The query never widens the scope: g-1 matches but go was not named.
    assert!(ids(scope(None, Some("rust")), Some("g-1")).is_empty());
    assert_eq!(ids(scope(None, Some("rust")), Some("  ")).len(), 2);
}

#[test]
/// Rule #874.
fn order_is_date_descending_then_id_ascending() {
    let all = select_lessons(&scope(Some("acme/app"), Some("rust")), None, library());
    let keys: Vec<(&str, &str)> = all
        .iter()
        .map(|l| (l.date.as_str(), l.id.as_str()))
        .collect();
    assert_eq!(
        keys,
        [
            ("2026-02-01", "s-a"),
            ("2026-02-01", "s-b"),
            ("2026-01-01", "a-old")
        ]
    );
}

#[test]
/// Rule #874.
fn names_that_could_leave_the_library_open_nothing() {
    for bad in ["../x", "acme/..", "a/b/c", "acme", "/etc", "acme/ap p"] {
        assert!(lookup_folders(&scope(Some(bad), None)).is_empty(), "{bad}");
    }
    for bad in ["..", ".", "ru/st", "", "rust\n"] {
        assert!(
            lookup_folders(&scope(None, Some(bad))).is_empty(),
            "{bad:?}"
        );
    }
}

#[test]
/// Rule #874.
fn a_lesson_must_agree_with_its_path() {
    let ok = lesson("x", Some("acme/app"), &[], "2026-01-01");
    assert_eq!(lesson_problem(&repo("acme", "app"), "x", &ok), None);
    assert!(lesson_problem(&repo("acme", "app"), "y", &ok).is_some());
    assert!(lesson_problem(&repo("acme", "other"), "x", &ok).is_some());
    assert!(lesson_problem(&stack("rust"), "x", &ok).is_some());
    let shared = lesson("s", None, &[], "2026-01-01");
    assert_eq!(lesson_problem(&stack("rust"), "s", &shared), None);
    assert!(lesson_problem(&repo("acme", "app"), "s", &shared).is_some());
    let undated = lesson("s", None, &[], "yesterday");
    assert!(lesson_problem(&stack("rust"), "s", &undated).is_some());
    let mut empty = lesson("s", None, &[], "2026-01-01");
    empty.right = " ".into();
    assert!(lesson_problem(&stack("rust"), "s", &empty).is_some());
}

#[test]
/// Rule #874.
fn a_stack_folder_never_gives_a_repo_lesson() {
    let mut found = library();
    found.push((
        stack("rust"),
        lesson("stray", Some("acme/app"), &[], "2026-09-09"),
    ));
    let got = select_lessons(&scope(None, Some("rust")), None, found);
    assert!(got.iter().all(|l| l.repo.is_none()));
}
