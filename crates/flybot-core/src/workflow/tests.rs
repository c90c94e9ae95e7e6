//! The engine's rules, one test per rule, each citing the spec's number.

use super::artifact::Facts;
use super::canonical::{
    copy_of_preset, differing_fields, is_writable_id, parse_definition, workflow_bytes,
};
use super::columns::workflow_columns;
use super::definition::dependency_order;
use super::enter::{enter_node, holder_of, input_states, preview_node};
use super::facts::{FactArgs, github_mergeable, github_verdict_at_tip};
use super::guard::GuardState;
use super::layout::layout_workflow;
use super::merge_gate::{GateInput, judge};
use super::presets::{PRESETS, preset, presets};
use super::validate::{Problem, validate};
use flybot_protocol::workflow::{WorkflowDefinition, WorkflowNode};
use serde_json::{Value, json};
use std::collections::BTreeSet;

/// A five-node content workflow with a declared loop, written in a test and
/// not shipped anywhere: the engine must treat it like the presets.
pub(crate) fn content() -> WorkflowDefinition {
    serde_json::from_value(json!({
        "id": "content",
        "name": "Content",
        "inputs": ["text:brief"],
        "deliverables": ["link:post"],
        "nodes": [
            {"id": "research", "role": "Researcher", "inputs": ["text:brief"], "outputs": ["text:notes"]},
            {"id": "outline", "role": "Writer", "inputs": ["text:notes"], "outputs": ["text:outline"]},
            {"id": "write", "role": "Writer", "inputs": ["text: outline", "text:feedback"], "outputs": ["text:draft"]},
            {"id": "edit", "role": "Editor", "inputs": ["text:draft"], "outputs": ["text:final", "text:feedback"]},
            {"id": "post", "role": "Publisher", "column": false, "inputs": ["text:final"], "outputs": ["link:post"],
             "refusal": "Posting waits: {spec} ({read} read, {current} now)."}
        ],
        "edges": [
            "research.text:notes -> outline.text:notes",
            "outline.text:outline -> write.text: outline",
            "write.text:draft -> edit.text:draft",
            "edit.text:feedback -> write.text:feedback",
            "edit.text:final -> post.text:final"
        ],
        "loops": [{"from": "edit", "to": "write"}]
    }))
    .unwrap()
}

fn blank() -> WorkflowDefinition {
    preset("blank").unwrap()
}

fn repo_dev() -> WorkflowDefinition {
    preset("repo-dev").unwrap()
}

fn node_mut<'a>(def: &'a mut WorkflowDefinition, id: &str) -> &'a mut WorkflowNode {
    def.nodes.iter_mut().find(|n| n.id == id).unwrap()
}

/// One refusal: change `def` with `edit`, validate, expect exactly `want`.
fn check_refusal(edit: impl FnOnce(&mut WorkflowDefinition), want: &str) {
    let mut def = blank();
    edit(&mut def);
    let problems = validate(&def, Some(&roles(&["Writer", "Editor", "Publisher"]))).unwrap_err();
    let sentences: Vec<String> = problems.iter().map(Problem::sentence).collect();
    assert!(
        sentences.iter().any(|s| s == want),
        "wanted {want:?}, got {sentences:#?}"
    );
}

fn roles(names: &[&str]) -> BTreeSet<String> {
    names.iter().map(|s| (*s).to_owned()).collect()
}

#[test]
/// Rule #1272.
fn presets_and_content_validate() {
    validate(&content(), None).unwrap();
    validate(&blank(), Some(&roles(&["Writer", "Editor", "Publisher"]))).unwrap();
    let team = roles(&["Triage", "Dev", "SelfTest", "Reviewer", "Release"]);
    validate(&repo_dev(), Some(&team)).unwrap();
}

#[test]
/// Rule #1272.
fn refusal_input_nothing_produces() {
    check_refusal(
        |d| node_mut(d, "review").inputs = Some(vec!["text:draft".into(), "text:style".into()]),
        "The node review takes in text:style, but no node hands it out and the workflow does not list it as an input.",
    );
}

#[test]
/// Rule #1272.
fn refusal_output_nothing_consumes() {
    check_refusal(
        |d| node_mut(d, "draft").outputs = Some(vec!["text:draft".into(), "text:aside".into()]),
        "The node draft hands out text:aside, but no node takes it in and it is not a deliverable.",
    );
}

#[test]
/// Rule #1291.
fn refusal_two_producers_keyed_on_parsed_spec() {
    check_refusal(
        |d| node_mut(d, "review").outputs = Some(vec!["text:edited".into(), "text: draft".into()]),
        "Both draft and review hand out text:draft; one fact has one producer.",
    );
}

#[test]
/// Rule #1272.
fn refusal_undeclared_cycle() {
    check_refusal(
        |d| {
            node_mut(d, "draft").inputs = Some(vec!["text:topic".into(), "text:notes".into()]);
            node_mut(d, "review").outputs = Some(vec!["text:edited".into(), "text:notes".into()]);
            d.edges.push("review.text:notes -> draft.text:notes".into());
        },
        "The nodes draft → review → draft form a cycle that no loop declares; declare it in loops or remove an edge.",
    );
}

#[test]
/// Rule #1272.
fn declared_loop_is_no_cycle() {
    let def = content();
    assert_eq!(
        dependency_order(&def),
        ["research", "outline", "write", "edit", "post"]
    );
    let mut undeclared = content();
    undeclared.loops = None;
    let problems = validate(&undeclared, None).unwrap_err();
    assert!(
        matches!(problems[0], Problem::UndeclaredCycle { .. }),
        "{problems:?}"
    );
}

#[test]
/// Rule #1291.
fn refusal_node_with_no_role() {
    check_refusal(
        |d| node_mut(d, "review").role = " ".into(),
        "The node review has no role; every node names the role that holds it.",
    );
}

#[test]
/// Rule #1272.
fn refusal_role_not_on_team() {
    check_refusal(
        |d| node_mut(d, "publish").role = "Printer".into(),
        "The node publish is held by the role Printer, which no Bot on the team has.",
    );
    // An empty roster is no team to check.
    validate(&blank(), None).unwrap();
}

#[test]
/// Rule #1272.
fn refusal_unknown_artifact_kind() {
    check_refusal(
        |d| node_mut(d, "draft").inputs = Some(vec!["tweet:topic".into()]),
        "The artifact tweet:topic has the kind tweet, which the vocabulary does not have; use one of text, link, file, issue, pr, check, verdict, risk, merge-commit, release, tick, task.",
    );
}

#[test]
/// Rule #1272.
fn refusal_misaligned_edge() {
    check_refusal(
        |d| d.edges[0] = "draft.text:draft -> review.text:edited".into(),
        "The edge \"draft.text:draft -> review.text:edited\" (row 1) does not line up: it leaves as text:draft and arrives as text:edited; an edge carries one artifact.",
    );
    check_refusal(
        |d| d.edges[1] = "review.text:edited -> print.text:edited".into(),
        "The edge \"review.text:edited -> print.text:edited\" (row 2) does not line up: there is no node print.",
    );
    check_refusal(
        |d| d.edges[0] = "review.text:draft -> draft.text:draft".into(),
        "The edge \"review.text:draft -> draft.text:draft\" (row 1) does not line up: review does not hand out text:draft.",
    );
}

#[test]
/// Rule #1291.
fn refusal_unknown_guard_is() {
    check_refusal(
        |d| {
            node_mut(d, "publish").guards = Some(vec![
                serde_json::from_value(json!({"fact": "text:edited", "is": "approved"})).unwrap(),
            ])
        },
        "The node publish guards text:edited with is: \"approved\", which is not one of present, fresh or equals.",
    );
}

#[test]
/// Rule #1291.
fn unknown_guard_refuses_at_run_time_instead_of_passing() {
    let mut def = blank();
    node_mut(&mut def, "publish").guards = Some(vec![
        serde_json::from_value(json!({"fact": "text:edited", "is": "approved"})).unwrap(),
    ]);
    let mut facts = Facts::new();
    facts.read("text:edited", "r1", json!({"revision": "r1"}));
    let refusal = enter_node(&def, "publish", &facts).unwrap_err();
    assert_eq!(
        refusal.sentence(),
        "publish cannot start: its guard on text:edited says is: \"approved\", which no reader checks."
    );
}

#[test]
/// Rule #1265.
fn refusal_column_board_lacks() {
    check_refusal(
        |d| {
            node_mut(d, "draft").column =
                Some(flybot_protocol::workflow::NodeColumn::Named("doing".into()))
        },
        "The node draft sits in the column doing, which the board does not have (not-started, in-progress, done).",
    );
}

#[test]
/// Rule #1265.
fn columns_in_dependency_order() {
    let cols = workflow_columns(&repo_dev());
    let pairs: Vec<(&str, &str)> = cols
        .iter()
        .map(|c| (c.node.as_str(), c.column.as_str()))
        .collect();
    assert_eq!(
        pairs,
        [
            ("triage", "not-started"),
            ("build", "in-progress"),
            ("verify", "in-progress"),
            ("gate", "in-progress"),
            ("merge", "in-progress"),
            ("release", "done"),
        ]
    );
    // No column stated keeps the node id; `column: false` draws none.
    let content_cols: Vec<String> = workflow_columns(&content())
        .into_iter()
        .map(|c| c.column)
        .collect();
    assert_eq!(content_cols, ["research", "outline", "write", "edit"]);
}

#[test]
/// Rule #1272.
fn layout_one_box_per_node_one_edge_per_row() {
    let layout = layout_workflow(&content());
    let boxes: Vec<(&str, &str, u32, u32)> = layout
        .boxes
        .iter()
        .map(|b| (b.id.as_str(), b.role.as_str(), b.rank, b.row))
        .collect();
    assert_eq!(
        boxes,
        [
            ("research", "Researcher", 0, 0),
            ("outline", "Writer", 1, 0),
            ("write", "Writer", 2, 0),
            ("edit", "Editor", 3, 0),
            ("post", "Publisher", 4, 0),
        ]
    );
    assert_eq!(layout.edges.len(), content().edges.len());
    assert_eq!(layout.edges[1].artifact, "text:outline");
    assert!(layout.edges[3].is_loop && !layout.edges[2].is_loop);
    assert_eq!(layout.boxes[2].inputs, ["text:outline", "text:feedback"]);
    // Repo-dev: build fans out to verify and review, review joins them.
    let repo = layout_workflow(&repo_dev());
    let rank = |id: &str| repo.boxes.iter().find(|b| b.id == id).unwrap().rank;
    assert_eq!((rank("verify"), rank("review"), rank("gate")), (2, 3, 4));
}

#[test]
/// Rule #1298.
fn spaced_input_reads_the_fact_that_is_there() {
    let def = content();
    let mut facts = Facts::new();
    facts.read("text:outline", "o1", json!({"revision": "o1"}));
    // `write` spells its input `text: outline`; the loop input may be absent.
    enter_node(&def, "write", &facts).unwrap();
    let states = input_states(&def, &def.nodes[2], &facts);
    assert!(states[0].freshness.is_current());
    assert!(states[1].loop_feedback);
}

#[test]
/// Rule #1298.
fn refusal_names_both_revisions_in_node_wording() {
    let def = content();
    let mut facts = Facts::new();
    facts.insert(stale("text:final", "f1", "f2"));
    assert_eq!(
        enter_node(&def, "post", &facts).unwrap_err().sentence(),
        "Posting waits: text:final (f1 read, f2 now)."
    );
    // Default wording where the node has none.
    facts.insert(stale("text:draft", "d1", "d2"));
    assert_eq!(
        enter_node(&def, "edit", &facts).unwrap_err().sentence(),
        "edit cannot start: it read text:draft at d1, and the source now holds d2."
    );
    assert_eq!(
        enter_node(&def, "outline", &facts).unwrap_err().sentence(),
        "outline cannot start: text:notes is not there yet."
    );
}

#[test]
/// Rule #1298.
fn unreadable_fact_never_a_match() {
    let def = content();
    let mut facts = Facts::new();
    facts.insert(super::artifact::Fact::Unreadable {
        spec: super::artifact::parse_spec("text:notes").unwrap(),
        why: "the board gave no answer".into(),
    });
    assert_eq!(
        enter_node(&def, "outline", &facts).unwrap_err().sentence(),
        "outline cannot start: text:notes could not be read (the board gave no answer)."
    );
}

pub(crate) fn stale(spec: &str, read: &str, current: &str) -> super::artifact::Fact {
    super::artifact::Fact::Read {
        artifact: super::artifact::Artifact {
            spec: super::artifact::parse_spec(spec).unwrap(),
            revision: read.into(),
            value: json!({}),
        },
        current: Some(current.into()),
    }
}

/// The gate's facts for one fixture case, through the fact providers.
fn gate_facts(case: &Value) -> Facts {
    let args = FactArgs {
        token: true,
        spec: None,
    };
    let mut facts = Facts::new();
    facts.insert(github_mergeable(&args, Some(&case["pr"])).unwrap());
    let mut verdict = case["verdict"].clone();
    verdict["headSha"] = case["pr"]["headRefOid"].clone();
    facts.insert(github_verdict_at_tip(&args, Some(&verdict)).unwrap());
    facts
}

fn fixture_cases() -> Vec<Value> {
    let text = include_str!("../../presets/fixtures/workflow-cases.json");
    let fixture: Value = serde_json::from_str(text).unwrap();
    fixture["cases"].as_array().unwrap().clone()
}

#[test]
/// Rule #1272.
fn merge_gate_judge_matches_fixture_byte_for_byte() {
    for case in fixture_cases() {
        let input = GateInput {
            hold: case["pr"]["hold"].as_str().map(str::to_owned),
            head: case["pr"]["headRefOid"].as_str().unwrap().into(),
            verdict_sha: case["verdict"]["sha"].as_str().unwrap().into(),
            conclusion: case["verdict"]["conclusion"].as_str().unwrap().into(),
        };
        let want: Vec<String> = serde_json::from_value(case["reasons"].clone()).unwrap();
        assert_eq!(judge(&input), want, "case {}", case["name"]);
    }
}

#[test]
/// Rule #1272.
fn repo_dev_gate_guards_match_fixture_byte_for_byte() {
    let def = repo_dev();
    for case in fixture_cases() {
        let facts = gate_facts(&case);
        let want: Vec<String> = serde_json::from_value(case["reasons"].clone()).unwrap();
        match enter_node(&def, "gate", &facts) {
            Ok(()) => assert!(want.is_empty(), "case {}", case["name"]),
            Err(refusal) => assert_eq!(refusal.reasons, want, "case {}", case["name"]),
        }
    }
}

#[test]
/// Rule #1272.
fn gate_holder_is_the_reviewer_from_the_verdict() {
    let def = repo_dev();
    let facts = gate_facts(&fixture_cases()[0]);
    let gate = def.nodes.iter().find(|n| n.id == "gate").unwrap();
    let holder = holder_of(gate, &facts);
    assert_eq!(
        (holder.role.as_str(), holder.name.as_deref()),
        ("Reviewer", Some("Rita"))
    );
    let review = def.nodes.iter().find(|n| n.id == "review").unwrap();
    assert_eq!(holder_of(review, &facts).name, None);
}

#[test]
/// Rule #1272.
fn preview_rows_holds_refuse_unreadable() {
    let def = repo_dev();
    let cases = fixture_cases();
    let held = cases.iter().find(|c| c["name"] == "held").unwrap();
    let rows = preview_node(&def, "gate", Ok(&gate_facts(held)));
    assert_eq!(rows.len(), 3);
    assert!(
        matches!(&rows[0].state, GuardState::Refuse { sentence } if sentence.contains("held by Ada"))
    );
    assert_eq!(rows[1].state, GuardState::Holds);
    assert_eq!(rows[2].state, GuardState::Holds);
    // A reader that answered nothing: every row unreadable, with the reason.
    let rows = preview_node(&def, "gate", Err("no GitHub token is set"));
    assert_eq!(rows.len(), 3);
    for row in &rows {
        assert_eq!(
            row.state,
            GuardState::Unreadable {
                why: "no GitHub token is set".into()
            }
        );
    }
    // A missing field is unreadable, not a pass.
    let mut facts = gate_facts(held);
    facts.read("pr", "12@b2c3", json!({"number": 12}));
    let rows = preview_node(&def, "gate", Ok(&facts));
    assert!(matches!(rows[0].state, GuardState::Unreadable { .. }));
}

#[test]
/// Rule #1272.
fn no_node_id_is_special_same_code_for_all_three() {
    // The same functions answer for a test-only workflow and both presets,
    // and renaming every node changes nothing but the names.
    for def in [content(), blank(), repo_dev()] {
        let renamed = rename_nodes(&def);
        validate(&def, None).unwrap();
        validate(&renamed, None).unwrap();
        let cols = |d: &WorkflowDefinition| workflow_columns(d).len();
        assert_eq!(cols(&def), cols(&renamed));
        let ranks = |d: &WorkflowDefinition| {
            layout_workflow(d)
                .boxes
                .iter()
                .map(|b| (b.rank, b.row))
                .collect::<Vec<_>>()
        };
        assert_eq!(ranks(&def), ranks(&renamed));
        let first = &def.nodes[0].id;
        let facts = Facts::new();
        let a = enter_node(&def, first, &facts).is_ok();
        let b = enter_node(&renamed, &format!("n-{first}"), &facts).is_ok();
        assert_eq!(a, b);
    }
}

fn rename_nodes(def: &WorkflowDefinition) -> WorkflowDefinition {
    let mut text = serde_json::to_string(def).unwrap();
    for n in &def.nodes {
        text = text.replace(
            &format!("\"id\":\"{}\"", n.id),
            &format!("\"id\":\"n-{}\"", n.id),
        );
        text = text.replace(&format!("\"{}.", n.id), &format!("\"n-{}.", n.id));
        text = text.replace(&format!("> {}.", n.id), &format!("> n-{}.", n.id));
        text = text.replace(
            &format!("\"from\":\"{}\"", n.id),
            &format!("\"from\":\"n-{}\"", n.id),
        );
        text = text.replace(
            &format!("\"to\":\"{}\"", n.id),
            &format!("\"to\":\"n-{}\"", n.id),
        );
    }
    let mut renamed: WorkflowDefinition = serde_json::from_str(&text).unwrap();
    renamed.id = def.id.clone();
    renamed
}

#[test]
/// Rule #1299.
fn preset_files_are_canonical_bytes() {
    for (id, text) in PRESETS {
        let def = parse_definition(text.as_bytes()).unwrap();
        assert_eq!(def.id, id);
        assert_eq!(
            String::from_utf8(workflow_bytes(&def)).unwrap(),
            text,
            "{id}"
        );
    }
    assert_eq!(presets().len(), 2);
}

#[test]
/// Rule #1299.
fn canonical_round_trip_is_byte_identical() {
    let bytes = workflow_bytes(&content());
    let again = workflow_bytes(&parse_definition(&bytes).unwrap());
    assert_eq!(bytes, again);
    let text = String::from_utf8(bytes).unwrap();
    assert!(text.ends_with("}\n") && !text.ends_with("\n\n"));
    assert!(
        text.contains("\n  \"name\": \"Content\""),
        "two-space indent"
    );
    // `column: false` is written; an absent column is not (#1265).
    assert!(text.contains("\"column\": false"));
    assert_eq!(text.matches("\"column\"").count(), 1);
    // Absent fields are left out.
    assert!(!text.contains("description") && !text.contains("null"));
    // Key order is fixed whatever order the file was written in.
    let shuffled = br#"{"nodes":[{"outputs":["text:draft"],"role":"Writer","id":"a","inputs":["text:x"]}],"name":"S","id":"s","inputs":["text:x"],"deliverables":["text:draft"]}"#;
    let text = String::from_utf8(workflow_bytes(&parse_definition(shuffled).unwrap())).unwrap();
    let at = |k: &str| text.find(k).unwrap();
    assert!(
        at("\"id\"") < at("\"name\"")
            && at("\"name\"") < at("\"inputs\"")
            && at("\"deliverables\"") < at("\"nodes\"")
    );
}

#[test]
/// Rule #1299.
fn id_rule_and_reserved_presets() {
    assert!(is_writable_id("my-flow-2"));
    for bad in [
        "Blank", "my_flow", "", "a b", "blank", "repo-dev", "project",
    ] {
        assert!(!is_writable_id(bad), "{bad}");
    }
}

#[test]
/// Rule #1299.
fn customize_differs_only_in_id_and_name() {
    let preset = repo_dev();
    let copy = copy_of_preset(&preset, "our-repo", "Our repository");
    assert_eq!(differing_fields(&preset, &copy), ["id", "name"]);
    validate(&copy, None).unwrap();
}

#[test]
/// Rule #1291.
fn unknown_definition_field_refused_one_word() {
    let text =
        br#"{"id":"x","name":"X","nodes":[{"id":"a","role":"Writer","bot":"Ada"}],"edges":[]}"#;
    assert!(parse_definition(text).unwrap_err().contains("bot"));
    let column_true = br#"{"id":"x","name":"X","nodes":[{"id":"a","role":"W","column":true}]}"#;
    assert!(parse_definition(column_true).is_err());
}
