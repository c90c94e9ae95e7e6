//! The experience library on real files (#874 Step 2).

use super::*;

fn lesson(id: &str, repo: Option<&str>, stacks: &[&str], date: &str) -> Lesson {
    Lesson {
        id: id.into(),
        repo: repo.map(Into::into),
        tech_stacks: stacks.iter().map(|s| s.to_string()).collect(),
        trigger: format!("when {id}"),
        wrong: "did the wrong thing".into(),
        right: "do the right thing".into(),
        date: date.into(),
    }
}

fn scope(repo: Option<&str>, stack: Option<&str>) -> ExperienceScope {
    ExperienceScope {
        repo: repo.map(Into::into),
        tech_stack: stack.map(Into::into),
    }
}

fn ids(lessons: Vec<Lesson>) -> Vec<String> {
    lessons.into_iter().map(|l| l.id).collect()
}

#[test]
/// Rule #874.
fn add_then_lookup_reads_only_the_named_folders() {
    let root = tempfile::tempdir().unwrap();
    let root = root.path();
    add_experience(
        root,
        None,
        &lesson("r1", Some("acme/app"), &["rust"], "2026-01-02"),
    )
    .unwrap();
    add_experience(
        root,
        None,
        &lesson("r2", Some("acme/app"), &[], "2026-01-03"),
    )
    .unwrap();
    add_experience(
        root,
        None,
        &lesson("x1", Some("other/lib"), &["rust"], "2026-01-09"),
    )
    .unwrap();
    add_experience(root, Some("rust"), &lesson("s1", None, &[], "2026-01-01")).unwrap();
    assert!(root.join("repos/acme/app/r1.json").is_file());
    assert!(root.join("stacks/rust/s1.json").is_file());
    assert!(lookup_experience(root, &scope(None, None), None).is_empty());
    assert_eq!(
        ids(lookup_experience(
            root,
            &scope(Some("acme/app"), None),
            None
        )),
        ["r2", "r1"]
    );
    assert_eq!(
        ids(lookup_experience(root, &scope(None, Some("rust")), None)),
        ["s1"]
    );
    assert_eq!(
        ids(lookup_experience(
            root,
            &scope(Some("acme/app"), Some("rust")),
            None
        )),
        ["r1", "s1"]
    );
    assert_eq!(
        ids(lookup_experience(
            root,
            &scope(Some("acme/app"), None),
            Some("WHEN R1")
        )),
        ["r1"]
    );
    assert_eq!(check_experience(root), Vec::<String>::new());
}

#[test]
/// Rule #874.
fn add_refuses_to_overwrite_and_leaves_the_file_as_it_was() {
    let root = tempfile::tempdir().unwrap();
    let first = lesson("r1", Some("acme/app"), &[], "2026-01-02");
    let path = add_experience(root.path(), None, &first).unwrap();
    let before = fs::read(&path).unwrap();
    let mut second = first.clone();
    second.right = "something else".into();
    let refused = add_experience(root.path(), None, &second).unwrap_err();
    assert!(matches!(refused, AddRefused::Exists(_)), "{refused}");
    assert_eq!(fs::read(&path).unwrap(), before);
}

#[test]
/// Rule #874.
fn add_refuses_a_lesson_that_would_not_pass_check() {
    let root = tempfile::tempdir().unwrap();
    let bad = [
        (None, lesson("s", None, &[], "2026-01-01")),
        (Some("../etc"), lesson("s", None, &[], "2026-01-01")),
        (None, lesson("r", Some("acme/../x"), &[], "2026-01-01")),
        (None, lesson("../r", Some("acme/app"), &[], "2026-01-01")),
        (None, lesson("r", Some("acme/app"), &[], "01/01/2026")),
    ];
    for (stack, lesson) in bad {
        assert!(
            matches!(
                add_experience(root.path(), stack, &lesson),
                Err(AddRefused::Invalid(_))
            ),
            "{lesson:?}"
        );
    }
    assert!(
        fs::read_dir(root.path()).unwrap().next().is_none(),
        "nothing written"
    );
}

#[test]
/// Rule #874.
fn check_names_each_file_that_disagrees_with_its_path() {
    let root = tempfile::tempdir().unwrap();
    let root = root.path();
    add_experience(
        root,
        None,
        &lesson("ok", Some("acme/app"), &[], "2026-01-02"),
    )
    .unwrap();
    let write = |rel: &str, body: &str| {
        let path = root.join(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, body).unwrap();
    };
    let moved =
        serde_json::to_string(&lesson("moved", Some("other/lib"), &[], "2026-01-02")).unwrap();
    write("repos/acme/app/moved.json", &moved);
    let renamed = serde_json::to_string(&lesson("inner", None, &[], "2026-01-02")).unwrap();
    write("stacks/rust/outer.json", &renamed);
    write("stacks/rust/broken.json", "{not json");
    write("stacks/rust/notes.txt", "x");
    write("misc/x.json", "{}");
    let problems = check_experience(root);
    assert_eq!(problems.len(), 5, "{problems:#?}");
    for needle in [
        "moved.json",
        "outer.json",
        "broken.json",
        "notes.txt",
        "misc",
    ] {
        assert!(
            problems.iter().any(|p| p.contains(needle)),
            "{needle}: {problems:#?}"
        );
    }
    // A lookup leaves the disagreeing files out.
    assert_eq!(
        ids(lookup_experience(
            root,
            &scope(Some("acme/app"), None),
            None
        )),
        ["ok"]
    );
}

#[test]
/// Rule #874.
fn a_missing_root_reads_as_no_lessons() {
    let root = tempfile::tempdir().unwrap();
    let gone = root.path().join("not-there");
    assert!(lookup_experience(&gone, &scope(Some("acme/app"), Some("rust")), None).is_empty());
    assert!(check_experience(&gone).is_empty());
}
