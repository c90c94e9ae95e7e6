//! The workflow library is the host owner's to change (issue 29): a second
//! member's `workflow-save`, `workflow-customize` and `workflow-set-default`
//! are refused `bot/forbidden`, the owner's default stays, and no file of
//! the library changes. The member still lists and opens workflows.

use flybot_testkit::Kit;
use serde_json::{Value, json};
use std::collections::BTreeMap;

/// Every file of the home's `workflows/` folder with its bytes.
fn library_files(kit: &Kit) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(kit.home().join("workflows"))
        .unwrap()
        .map(|entry| {
            let entry = entry.unwrap();
            let name = entry.file_name().to_string_lossy().into_owned();
            (name, std::fs::read(entry.path()).unwrap())
        })
        .collect()
}

#[tokio::test]
async fn workflow_library_29_a_second_member_cannot_change_the_owners_default() {
    let kit = Kit::new().await;
    let [ann, bob] = kit.members(["Ann", "Bob"]).await;
    let (owner, second) = (kit.as_member(&ann), kit.as_member(&bob));
    let copy = owner
        .ok(
            "workflow-customize",
            json!({"from": "blank", "id": "ours", "name": "Ours"}),
        )
        .await;
    owner
        .ok("workflow-set-default", json!({"id": "ours"}))
        .await;
    let files = library_files(&kit);
    let mut definition: Value = copy["definition"].clone();
    definition["name"] = "Bob's".into();
    let writes = [
        ("workflow-set-default", json!({"id": "blank"})),
        ("workflow-save", json!({"definition": definition})),
        (
            "workflow-customize",
            json!({"from": "blank", "id": "bobs", "name": "Bob's"}),
        ),
    ];
    for (endpoint, body) in writes {
        let refused = second.refused(endpoint, body, "bot/forbidden").await;
        assert_eq!(
            refused["error"]["message"],
            "The workflow library is the host owner's: only the host owner saves workflows or changes the default."
        );
    }
    assert_eq!(library_files(&kit), files);
    let list = second.ok("workflows", json!({})).await;
    assert_eq!(list["default"], "ours");
}
