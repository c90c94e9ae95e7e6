//! What the pilot's scripted peers say: the fake OpenCode's steps for Bot B
//! and the mock model's scenario for Bot A. The fake's edit is the fixture's
//! fix, written and tested in Bot B's own workspace.

/// Bot B's question, in the room (it names Bot A so the room calls it).
pub const QUESTION: &str = "QUESTION @Ada: the requirement leaves accented letters open. Should `é` become `e` (transliterate) or be dropped?";

/// Bot A's answer to it.
pub const ANSWER: &str = "@Coder Transliterate them: `é` becomes `e`, `ç` becomes `c`.";

/// Bot A's delegation line (its `{task}` is the card's id).
pub const DELEGATION: &str = "@Coder Please take the fixture task: make `node --test` pass in slug.mjs as REQUIREMENT.md says. Ask me in this room if anything is unclear.";

/// The fixed `slug.mjs` Bot B writes.
pub const FIXED_SLUG: &str = r#"// slugify: lowercase, accents transliterated, single dashes, none at the ends.
export function slugify(title) {
  return title
    .normalize("NFD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
}
"#;

/// Bot B's closing line.
pub const DONE: &str = "DONE @Ada: slug.mjs transliterates accents and collapses separators; `node --test` passes in my workspace.";

/// Bot A's scenario (mock model rules): delegate, answer, verify.
pub fn bot_a_scenario() -> String {
    serde_json::json!([
        {"when": {"userContains": "DONE @Ada"}, "reply": {"text": "[PASS]"}},
        {"when": {"userContains": "QUESTION @Ada"}, "reply": {"text": ANSWER}},
        {"when": {"userContains": "delegate the fixture task"},
         "reply": {"text": DELEGATION}},
        {"reply": {"text": "[PASS]"}}
    ])
    .to_string()
}

#[cfg(feature = "testing")]
/// The fake OpenCode's steps for Bot B: ask through the question tool, then
/// edit and test.
pub fn fake_steps() -> Vec<crate::opencode::fake::FakeStep> {
    use crate::opencode::fake::FakeStep;
    vec![
        FakeStep::AskQuestion {
            question: QUESTION.to_owned(),
        },
        FakeStep::Edit {
            files: vec![("slug.mjs".to_owned(), FIXED_SLUG.to_owned())],
            command: super::fixture::TEST_COMMAND
                .iter()
                .map(|s| (*s).to_owned())
                .collect(),
            text: DONE.to_owned(),
        },
    ]
}
