//! Workflows through the channel (#1272 step 3, #1299): list and open,
//! save with canonical bytes written only on change, the preset read-only
//! refusal, validation against the roster's roles, Customize, the default,
//! and a file that does not parse skipped.

use flybot_testkit::Kit;
use serde_json::{Value, json};
use std::path::PathBuf;
use std::time::SystemTime;

fn blank_preset_bytes() -> &'static str {
    include_str!("../../../flybot-core/presets/blank.json")
}

fn blank() -> Value {
    serde_json::from_str(blank_preset_bytes()).unwrap()
}

/// Gives the Bot `name` the role `role` (the task model's `role` field).
async fn give_role(kit: &Kit, name: &str, role: &str) -> String {
    let id = kit.bot(name).await.id;
    kit.set_role(&id, role).await;
    id
}

fn path(kit: &Kit, id: &str) -> PathBuf {
    kit.home().join(format!("workflows/{id}.json"))
}

fn file(kit: &Kit, id: &str) -> Option<Vec<u8>> {
    std::fs::read(path(kit, id)).ok()
}

/// When the saved file for `id` was last written.
fn modified(kit: &Kit, id: &str) -> SystemTime {
    std::fs::metadata(path(kit, id))
        .unwrap()
        .modified()
        .unwrap()
}

/// The blank preset under the id `id`, ready to edit and save.
fn blank_as(id: &str) -> Value {
    let mut def = blank();
    def["id"] = json!(id);
    def
}

async fn list_workflows(kit: &Kit) -> Value {
    kit.ok("workflows", json!({})).await
}

async fn open_workflow(kit: &Kit, id: &str) -> Value {
    kit.ok("workflows", json!({"id": id})).await
}

async fn save(kit: &Kit, definition: &Value) -> Value {
    kit.ok("workflow-save", json!({"definition": definition}))
        .await
}

/// Saves `definition`, expecting the refusal `code`; answers the refusal.
async fn save_refused(kit: &Kit, definition: &Value, code: &str) -> Value {
    kit.refused("workflow-save", json!({"definition": definition}), code)
        .await
}

/// Customizes the preset `from` into a copy with `id` and `name`.
async fn customize(kit: &Kit, from: &str, id: &str, name: &str) -> Value {
    kit.ok(
        "workflow-customize",
        json!({"from": from, "id": id, "name": name}),
    )
    .await
}

/// Customizes as [`customize`], expecting the refusal `code`.
async fn customize_refused(kit: &Kit, from: &str, id: &str, name: &str, code: &str) -> Value {
    kit.refused(
        "workflow-customize",
        json!({"from": from, "id": id, "name": name}),
        code,
    )
    .await
}

async fn set_default(kit: &Kit, id: &str) -> Value {
    kit.ok("workflow-set-default", json!({"id": id})).await
}

#[tokio::test]
/// Rule #1299.
async fn lists_presets_and_opens_one_with_bytes_layout_preview() {
    let kit = Kit::new().await;
    let list = list_workflows(&kit).await;
    let ids: Vec<&str> = list["workflows"]
        .as_array()
        .unwrap()
        .iter()
        .map(|w| w["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, ["blank", "repo-dev"]);
    assert_eq!(list["workflows"][0]["preset"], true);

    let open = open_workflow(&kit, "repo-dev").await;
    let w = &open["workflow"];
    assert_eq!(
        w["bytes"].as_str().unwrap(),
        include_str!("../../../flybot-core/presets/repo-dev.json")
    );
    assert_eq!(w["layout"]["boxes"].as_array().unwrap().len(), 7);
    assert_eq!(w["layout"]["edges"].as_array().unwrap().len(), 7);
    assert_eq!(
        w["columns"].as_array().unwrap().len(),
        6,
        "review draws no column (#1265)"
    );
    // No job holds a fact yet: each row says what enter_node would say.
    assert_eq!(w["preview"]["node"], "gate");
    let rows = w["preview"]["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 3);
    assert_eq!(rows[0]["state"], "refuse");
    assert_eq!(
        rows[0]["sentence"],
        "gate cannot start: pr is not there yet."
    );

    kit.refused("workflows", json!({"id": "nope"}), "bot/not-found")
        .await;
    kit.refused(
        "workflows",
        json!({"id": "blank", "node": "x"}),
        "bot/not-found",
    )
    .await;
}

#[tokio::test]
/// Rule #1299.
async fn saving_a_preset_id_is_read_only() {
    let kit = Kit::new().await;
    let answer = save_refused(&kit, &blank(), "workflow/preset-read-only").await;
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("Customize")
    );
    assert!(file(&kit, "blank").is_none());
    save_refused(&kit, &blank_as("project"), "bot/invalid").await;
}

#[tokio::test]
/// Rule #1299.
async fn save_writes_canonical_bytes_only_when_changed() {
    let kit = Kit::new().await;
    let mut def = blank_as("ours");
    def["name"] = json!("Ours");
    let first = save(&kit, &def).await;
    assert_eq!(
        (first["id"].as_str(), first["changed"].as_bool()),
        (Some("ours"), Some(true))
    );
    let bytes = file(&kit, "ours").unwrap();
    let expected = blank_preset_bytes()
        .replacen("\"id\": \"blank\"", "\"id\": \"ours\"", 1)
        .replacen("\"name\": \"Blank\"", "\"name\": \"Ours\"", 1);
    assert_eq!(String::from_utf8(bytes.clone()).unwrap(), expected);
    let written = modified(&kit, "ours");

    let again = save(&kit, &def).await;
    assert_eq!(again["changed"], false);
    assert_eq!(file(&kit, "ours").unwrap(), bytes);
    let after = modified(&kit, "ours");
    assert_eq!(written, after, "an unedited save writes nothing");

    // Opening it answers the file's own bytes.
    let open = open_workflow(&kit, "ours").await;
    assert_eq!(
        open["workflow"]["bytes"].as_str().unwrap().as_bytes(),
        bytes
    );
    assert_eq!(open["workflow"]["preset"], false);
}

#[tokio::test]
/// Rule #1272.
async fn save_refuses_each_invalid_definition_with_its_sentence() {
    let kit = Kit::new().await;
    let mut def = blank_as("ours");
    def["nodes"][1]["role"] = json!("");
    let answer = save_refused(&kit, &def, "bot/invalid").await;
    assert_eq!(
        answer["error"]["message"],
        "The node review has no role; every node names the role that holds it."
    );
    assert!(file(&kit, "ours").is_none());

    let mut bad_edge = blank_as("ours");
    bad_edge["edges"][0] = json!("draft.text:draft -> nowhere.text:draft");
    let answer = save_refused(&kit, &bad_edge, "bot/invalid").await;
    assert!(
        !answer["error"]["details"]["problems"]
            .as_array()
            .unwrap()
            .is_empty()
    );

    // One word for one thing: a node's `bot` is an unknown field (#1291).
    let mut two_words = blank_as("ours");
    two_words["nodes"][0]["bot"] = json!("Ada");
    let answer = save_refused(&kit, &two_words, "bot/invalid").await;
    assert_eq!(
        answer["error"]["details"]["field"],
        "definition.nodes[0].bot"
    );
    save_refused(&kit, &blank_as("Our Flow"), "bot/invalid").await;
}

#[tokio::test]
/// Rule #1272.
async fn save_validates_against_the_rosters_roles() {
    let kit = Kit::new().await;
    give_role(&kit, "Wren", "Writer").await;
    give_role(&kit, "Eddie", "Editor").await;
    let def = blank_as("ours");
    let answer = save_refused(&kit, &def, "bot/invalid").await;
    assert_eq!(
        answer["error"]["message"],
        "The node publish is held by the role Publisher, which no Bot on the team has."
    );
    give_role(&kit, "Pat", "Publisher").await;
    save(&kit, &def).await;
}

#[tokio::test]
/// Rule #1299.
async fn customize_copies_a_preset_differing_only_in_id_and_name() {
    let kit = Kit::new().await;
    let answer = customize(&kit, "repo-dev", "our-repo", "Our repository").await;
    assert_eq!(answer["changed"], true);
    let mut preset: Value =
        serde_json::from_str(include_str!("../../../flybot-core/presets/repo-dev.json")).unwrap();
    preset["id"] = json!("our-repo");
    preset["name"] = json!("Our repository");
    assert_eq!(answer["definition"], preset);
    // Saving the copy unedited changes nothing.
    let again = save(&kit, &answer["definition"]).await;
    assert_eq!(again["changed"], false);
    customize_refused(&kit, "repo-dev", "our-repo", "Again", "bot/invalid").await;
    customize_refused(&kit, "repo-dev", "blank", "X", "workflow/preset-read-only").await;
    customize_refused(&kit, "missing", "x", "X", "bot/not-found").await;
}

#[tokio::test]
/// Rule #1299.
async fn a_file_that_does_not_parse_is_skipped_and_default_is_set() {
    let kit = Kit::new().await;
    let folder = kit.home().join("workflows");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("broken.json"), b"{\"id\": ").unwrap();
    let list = list_workflows(&kit).await;
    assert_eq!(list["workflows"].as_array().unwrap().len(), 2);
    kit.refused("workflows", json!({"id": "broken"}), "bot/invalid")
        .await;

    let set = set_default(&kit, "repo-dev").await;
    assert_eq!(
        (set["default"].as_str(), set["changed"].as_bool()),
        (Some("repo-dev"), Some(true))
    );
    let again = set_default(&kit, "repo-dev").await;
    assert_eq!(again["changed"], false);
    let list = list_workflows(&kit).await;
    assert_eq!(list["default"], "repo-dev");
    assert_eq!(list["workflows"][1]["default"], true);
    kit.refused(
        "workflow-set-default",
        json!({"id": "nope"}),
        "bot/not-found",
    )
    .await;
}

/// A room whose lead is `Lead` and whose members carry the blank preset's
/// roles; answers (room id, lead id).
pub(crate) async fn desk(kit: &Kit) -> (String, String) {
    let lead = kit.bot("Lead").await.id;
    for (name, role) in [
        ("Wren", "Writer"),
        ("Eddie", "Editor"),
        ("Pat", "Publisher"),
    ] {
        give_role(kit, name, role).await;
    }
    let ids: Vec<String> = kit.host.store().read(|s| {
        s.bots
            .values()
            .filter(|b| b.name != "Lead")
            .map(|b| b.id.clone())
            .collect()
    });
    let mut members = vec![lead.clone()];
    members.extend(ids);
    let room = kit
        .ok(
            "create-room",
            json!({"name": "Desk", "members": members, "admin": lead}),
        )
        .await;
    (room["room"]["id"].as_str().unwrap().to_owned(), lead)
}

fn nodes(list: &Value) -> Vec<&str> {
    list.as_array()
        .unwrap()
        .iter()
        .map(|c| c["node"].as_str().unwrap())
        .collect()
}

/// Records the fact `spec` at `revision` on `job` (with the source's
/// `current` revision when it differs); answers the reply.
pub(crate) async fn fact(
    kit: &Kit,
    job: &str,
    spec: &str,
    revision: &str,
    current: Option<&str>,
) -> Value {
    let mut body = json!({"jobId": job, "spec": spec, "revision": revision});
    if let Some(current) = current {
        body["current"] = json!(current);
    }
    kit.ok("workflow-fact", body).await
}

/// Sets (or, with a blank `holder`, lifts) the hold on `job`.
async fn hold(kit: &Kit, job: &str, holder: &str) -> Value {
    kit.ok("workflow-hold", json!({"jobId": job, "holder": holder}))
        .await
}

#[tokio::test]
/// Rule #1316.
async fn scenario_customized_workflow_opens_nodes_as_facts_arrive() {
    let kit = Kit::new().await;
    let (room, lead) = desk(&kit).await;
    let copy = customize(&kit, "blank", "desk-flow", "Desk flow").await;
    let mut def = copy["definition"].clone();
    def["description"] = json!("Our desk's own flow.");
    let saved = save(&kit, &def).await;
    assert_eq!(saved["changed"], true);

    let (started, job) = run_job(
        &kit,
        json!({"workflow": "desk-flow", "roomId": room, "botId": lead,
               "title": "Launch post", "inputs": {"text: topic": {"revision": "t1"}}}),
    )
    .await;
    assert_eq!(nodes(&started["open"]), ["draft"]);
    assert_eq!(nodes(&started["refused"]), ["review", "publish"]);
    assert_eq!(
        started["refused"][0]["refusal"],
        "review cannot start: text:draft is not there yet."
    );
    // The opened card is a queue item for the node's role, unassigned,
    // under the job: the hand-off is the queue's claim (#1247).
    let cards = cards_under(&kit, &job);
    assert_eq!(cards.len(), 1);
    assert_eq!(cards[0]["queueRole"], "Writer");
    assert_eq!(cards[0]["node"], "draft");
    assert_eq!(cards[0]["workflow"], "desk-flow");
    assert_eq!(cards[0]["status"], "open");
    assert!(cards[0].get("claimedBy").is_none());

    // A replayed fact opens nothing twice.
    let replay = fact(&kit, &job, "text:topic", "t1", None).await;
    assert!(replay["open"].as_array().unwrap().is_empty());
    assert_eq!(nodes(&replay["refused"]), ["review", "publish"]);

    let drafted = fact(&kit, &job, "text:draft", "d1", None).await;
    assert_eq!(nodes(&drafted["open"]), ["review"]);

    // A stale input refuses with both revisions, then opens once current.
    let stale = fact(&kit, &job, "text:edited", "e1", Some("e2")).await;
    assert!(stale["open"].as_array().unwrap().is_empty());
    assert_eq!(
        stale["refused"][0]["refusal"],
        "publish cannot start: it read text:edited at e1, and the source now holds e2."
    );
    let current = fact(&kit, &job, "text:edited", "e2", None).await;
    assert_eq!(nodes(&current["open"]), ["publish"]);
    assert_eq!(current["done"], false);
    let published = fact(&kit, &job, "link:published", "p1", None).await;
    assert_eq!(
        published["done"], true,
        "done from the terminal node's outputs"
    );
    assert_eq!(cards_under(&kit, &job).len(), 3);
}

#[tokio::test]
/// Rule #1337.
async fn held_job_opens_nothing_and_blank_hold_is_no_hold() {
    let kit = Kit::new().await;
    let (room, lead) = desk(&kit).await;
    let (started, job) = run_job(
        &kit,
        json!({"workflow": "blank", "roomId": room, "botId": lead, "title": "Post"}),
    )
    .await;
    assert!(
        started["open"].as_array().unwrap().is_empty(),
        "no topic yet"
    );
    let held = hold(&kit, &job, "Ada").await;
    // Blank guards no held pull request: the holder's name and no sentence.
    for refused in held["refused"].as_array().unwrap() {
        assert_eq!(refused["refusal"], Value::Null);
        assert_eq!(refused["holder"], "Ada");
    }
    let topic = fact(&kit, &job, "text:topic", "t1", None).await;
    assert!(
        topic["open"].as_array().unwrap().is_empty(),
        "held: nothing opens"
    );
    let lifted = hold(&kit, &job, "  ").await;
    assert_eq!(nodes(&lifted["open"]), ["draft"]);
}

#[tokio::test]
/// Rule #1316.
async fn workflow_run_refusals_change_nothing() {
    let kit = Kit::new().await;
    let (room, lead) = desk(&kit).await;
    run_refused(
        &kit,
        json!({"workflow": "nope", "roomId": room, "botId": lead, "title": "x"}),
        "bot/invalid",
    )
    .await;
    run_refused(
        &kit,
        json!({"workflow": "blank", "roomId": "room-x", "botId": lead, "title": "x"}),
        "bot/not-found",
    )
    .await;
    run_refused(
        &kit,
        json!({"workflow": "blank", "roomId": room, "botId": lead, "title": "x",
               "inputs": {"text:other": {"revision": "1"}}}),
        "bot/invalid",
    )
    .await;
    kit.refused(
        "workflow-fact",
        json!({"jobId": "task-x", "spec": "text:topic", "revision": "1"}),
        "bot/not-found",
    )
    .await;
}

/// Starts the workflow run `body` asks for; answers the reply and the job's id.
pub(crate) async fn run_job(kit: &Kit, body: Value) -> (Value, String) {
    let started = kit.ok("workflow-run", body).await;
    let job = started["jobId"].as_str().unwrap().to_owned();
    (started, job)
}

/// Asks for the workflow run `body`, expecting the refusal `code`.
async fn run_refused(kit: &Kit, body: Value, code: &str) -> Value {
    kit.refused("workflow-run", body, code).await
}

/// The cards whose parent is `job`, as records.
pub(crate) fn cards_under(kit: &Kit, job: &str) -> Vec<Value> {
    kit.host.store().read(|s| {
        s.tasks
            .values()
            .filter(|c| c.extra.get("parentId").and_then(Value::as_str) == Some(job))
            .map(|c| serde_json::to_value(c).unwrap())
            .collect()
    })
}

#[tokio::test]
/// Rule #1272.
async fn the_guard_preview_reads_the_jobs_facts_as_enter_node_does() {
    let kit = Kit::new().await;
    let (room, lead) = desk(&kit).await;
    let mut def =
        kit.ok("workflows", json!({"id": "blank"})).await["workflow"]["definition"].clone();
    def["id"] = json!("guarded");
    def["name"] = json!("Guarded");
    def["nodes"][1]["guards"] = json!([{"fact": "text:draft", "is": "present"}]);
    kit.ok("workflow-save", json!({"definition": def})).await;
    assert_eq!(guard_row(&kit).await["state"], "refuse");
    let (_, job) = run_job(
        &kit,
        json!({"workflow": "guarded", "roomId": room, "botId": lead,
               "title": "Post", "inputs": {"text:topic": {"revision": "t1"}}}),
    )
    .await;
    fact(&kit, &job, "text:draft", "d1", None).await;
    // The job's recorded fact passes the guard, in the preview as in the planner.
    assert_eq!(guard_row(&kit).await["state"], "holds");
    let with_job = kit
        .ok(
            "workflows",
            json!({"id": "guarded", "node": "review", "jobId": job}),
        )
        .await;
    assert_eq!(with_job["workflow"]["preview"]["rows"][0]["state"], "holds");
}

/// The first guard row of the "guarded" workflow's review node.
async fn guard_row(kit: &Kit) -> Value {
    kit.ok("workflows", json!({"id": "guarded", "node": "review"}))
        .await["workflow"]["preview"]["rows"][0]
        .clone()
}
