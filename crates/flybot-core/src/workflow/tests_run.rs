//! The running layer's rules (#1316, #1337), the fact providers'
//! unreadable cases (#1272 acceptance 10, #1298) and the Bot tools' pure
//! halves (#1373, #1445, #1544, #1582).

use super::artifact::{Fact, Facts};
use super::facts::{FactArgs, PROVIDERS, workflow_fact};
use super::plan::{Completion, PlanCard, PlanRequest, completions, job_done, plan_job};
use super::presets::preset;
use super::run_bot::{
    CapSwitch, NOT_A_TEAM_MEMBER, capped_by, connector_refusal, run_bot_may_call, run_bot_tools,
};
use super::tests::{content, stale};
use super::tools::{
    DefineWorkflowArgs, RunWorkflowArgs, check_define_workflow, check_run_workflow,
};
use flybot_protocol::workflow::WorkflowDefinition;
use serde_json::{Value, json};

fn card(id: &str, parent: &str, node: &str, done: bool) -> PlanCard {
    PlanCard {
        id: id.into(),
        parent_id: Some(parent.into()),
        workflow: Some("content".into()),
        node: Some(node.into()),
        done,
    }
}

fn plan(
    def: &WorkflowDefinition,
    cards: &[PlanCard],
    facts: &Facts,
    hold: Option<&str>,
) -> super::plan::Plan {
    plan_job(PlanRequest {
        definition: def,
        job_id: "job-1",
        cards,
        facts,
        hold,
    })
}

fn opened(plan: &super::plan::Plan) -> Vec<&str> {
    plan.open.iter().map(|c| c.node.as_str()).collect()
}

#[test]
/// Rule #1316.
fn plan_opens_what_enter_node_allows_unassigned_for_role() {
    let def = content();
    let mut facts = Facts::new();
    facts.read("text:brief", "b1", json!({}));
    let plan = plan(&def, &[], &facts, None);
    assert_eq!(opened(&plan), ["research"]);
    let open = &plan.open[0];
    assert_eq!(
        (
            open.parent_id.as_str(),
            open.workflow.as_str(),
            open.role.as_str(),
            open.queue_role.as_str()
        ),
        ("job-1", "content", "Researcher", "Researcher")
    );
    assert_eq!(
        open.assignee, None,
        "the hand-off is the queue's claim (#1247)"
    );
    // Every refusal is enter_node's own sentence, unchanged.
    let outline = plan.refused.iter().find(|r| r.node == "outline").unwrap();
    assert_eq!(
        outline.refusal.as_deref(),
        Some(
            super::enter::enter_node(&def, "outline", &facts)
                .unwrap_err()
                .sentence()
                .as_str()
        )
    );
}

#[test]
/// Rule #1316.
fn replayed_tick_opens_nothing_twice() {
    let def = content();
    let mut facts = Facts::new();
    facts.read("text:brief", "b1", json!({}));
    let cards = [card("c1", "job-1", "research", false)];
    let plan = plan(&def, &cards, &facts, None);
    assert!(plan.open.is_empty());
    assert!(
        plan.refused.iter().all(|r| r.node != "research"),
        "in neither list"
    );
    // A card of another job under the same node is not this job's card.
    let other = [card("c9", "job-2", "research", false)];
    let plan2 = plan_job(PlanRequest {
        definition: &def,
        job_id: "job-1",
        cards: &other,
        facts: &facts,
        hold: None,
    });
    assert_eq!(opened(&plan2), ["research"]);
}

#[test]
/// Rule #1316.
fn next_node_opens_when_its_input_is_current_and_refuses_stale() {
    let def = content();
    let mut facts = Facts::new();
    facts.read("text:brief", "b1", json!({}));
    facts.read("text:notes", "n1", json!({}));
    let cards = [card("c1", "job-1", "research", true)];
    assert_eq!(opened(&plan(&def, &cards, &facts, None)), ["outline"]);
    facts.insert(stale("text:notes", "n1", "n2"));
    let refused = plan(&def, &cards, &facts, None);
    assert!(refused.open.is_empty());
    assert_eq!(
        refused.refused[0].refusal.as_deref(),
        Some("outline cannot start: it read text:notes at n1, and the source now holds n2.")
    );
}

#[test]
/// Rule #1337.
fn held_job_refused_in_the_definitions_no_hold_sentence() {
    let def = preset("repo-dev").unwrap();
    let mut facts = Facts::new();
    facts.read("issue", "7", json!({}));
    let plan = plan(&def, &[], &facts, Some("Ada"));
    assert!(plan.open.is_empty());
    assert_eq!(plan.refused.len(), def.nodes.len());
    for refused in &plan.refused {
        assert_eq!(
            refused.refusal.as_deref(),
            Some(
                "The pull request is held by Ada; the merge gate does not merge a held pull request."
            )
        );
    }
}

#[test]
/// Rule #1337.
fn held_job_without_no_hold_guard_names_holder_and_no_sentence() {
    let def = content();
    let plan = plan(&def, &[], &Facts::new(), Some("Ada"));
    assert!(plan.open.is_empty());
    assert!(
        plan.refused
            .iter()
            .all(|r| r.refusal.is_none() && r.holder.as_deref() == Some("Ada"))
    );
}

#[test]
/// Rule #1337.
fn blank_hold_plans_like_no_hold() {
    let def = content();
    let mut facts = Facts::new();
    facts.read("text:brief", "b1", json!({}));
    let none = plan(&def, &[], &facts, None);
    for blank in ["", "   "] {
        assert_eq!(plan(&def, &[], &facts, Some(blank)), none);
    }
}

#[test]
/// Rule #1316.
fn job_done_from_terminal_outputs_only() {
    let def = content();
    let mut facts = Facts::new();
    let all_done: Vec<PlanCard> = def
        .nodes
        .iter()
        .map(|n| card(&n.id, "job-1", &n.id, true))
        .collect();
    assert!(!job_done(&def, &facts), "moved cards are not a done job");
    let _ = all_done;
    facts.read("link:post", "p1", json!({}));
    assert!(job_done(&def, &facts));
    facts.insert(stale("link:post", "p1", "p2"));
    assert!(!job_done(&def, &facts));
}

#[test]
/// Rule #1316.
fn completions_are_append_only() {
    let def = content();
    let mut facts = Facts::new();
    facts.read("text:notes", "n1", json!({}));
    let cards = [
        card("c1", "job-1", "research", true),
        card("c2", "job-1", "outline", false),
    ];
    let first = completions(&def, "job-1", &cards, &facts, &[]);
    assert_eq!(
        first,
        [Completion {
            card_id: "c1".into(),
            node: "research".into(),
            outputs: vec![("text:notes".into(), "n1".into())],
        }]
    );
    assert!(completions(&def, "job-1", &cards, &facts, &first).is_empty());
}

fn args() -> FactArgs {
    FactArgs {
        token: true,
        spec: None,
    }
}

fn unreadable_why(reading: Option<Fact>) -> String {
    match reading {
        Some(Fact::Unreadable { why, .. }) => why,
        other => panic!("expected unreadable, got {other:?}"),
    }
}

#[test]
/// Rule #1272.
fn facts_unreadable_without_answer_token_or_field() {
    for name in PROVIDERS {
        let reading = workflow_fact(name, &args(), None).unwrap();
        assert!(!unreadable_why(reading).is_empty(), "{name} with no answer");
    }
    for name in PROVIDERS.iter().filter(|n| n.starts_with("github.")) {
        let no_token = FactArgs::default();
        let why = unreadable_why(workflow_fact(name, &no_token, Some(&json!({}))).unwrap());
        assert_eq!(why, "no GitHub token is set", "{name}");
    }
    let missing = workflow_fact("github.mergeable", &args(), Some(&json!({"number": 3}))).unwrap();
    assert_eq!(unreadable_why(missing), "the answer has no headRefOid");
    let err = workflow_fact("github.stars", &args(), None).unwrap_err();
    assert!(err.contains("github.stars"));
}

#[test]
/// Rule #1298.
fn check_without_conclusion_is_unreadable() {
    let answer = json!({"sha": "a1", "headSha": "a1", "conclusion": null});
    let why = unreadable_why(workflow_fact("github.checkAtSha", &args(), Some(&answer)).unwrap());
    assert_eq!(
        why,
        "the check check:tests-ok at a1 reported no conclusion yet"
    );
    let passed = json!({"sha": "a1", "headSha": "b2", "conclusion": "success"});
    let fact = workflow_fact("github.checkAtSha", &args(), Some(&passed))
        .unwrap()
        .unwrap();
    assert!(matches!(
        super::artifact::freshness(Some(&fact)),
        super::artifact::Freshness::Stale { .. }
    ));
    let failed = json!({"sha": "a1", "conclusion": "failure"});
    assert_eq!(
        workflow_fact("github.checkAtSha", &args(), Some(&failed)).unwrap(),
        None
    );
}

#[test]
/// Rule #1272.
fn facts_read_into_one_artifact_each() {
    let labels = json!({"number": 7, "labels": [{"name": "ready"}]});
    let fact = workflow_fact("github.labels", &args(), Some(&labels))
        .unwrap()
        .unwrap();
    assert_eq!(fact.spec().key(), "issue.ready");
    let body = json!({"headRefOid": "c3", "body": "Small fix.\n\nrisk:T1"});
    let Some(Fact::Read { artifact, .. }) =
        workflow_fact("github.prBodyTip", &args(), Some(&body)).unwrap()
    else {
        panic!("risk tier");
    };
    assert_eq!(
        (artifact.spec.key().as_str(), &artifact.value["tier"]),
        ("risk:tier", &json!("T1"))
    );
    let tick_args = FactArgs {
        token: false,
        spec: Some("tick:approved".into()),
    };
    let tick = workflow_fact(
        "manual.tick",
        &tick_args,
        Some(&json!({"at": 1000, "by": "Ada"})),
    )
    .unwrap()
    .unwrap();
    assert_eq!(tick.spec().key(), "tick:approved");
    let progress = FactArgs {
        token: false,
        spec: Some("text:draft".into()),
    };
    let working = json!({"status": "working", "revision": "d1"});
    assert_eq!(
        workflow_fact("task.progress", &progress, Some(&working)).unwrap(),
        None
    );
}

#[test]
/// Rule #1316.
fn run_workflow_args_checked() {
    let defs = [content()];
    let call: RunWorkflowArgs = serde_json::from_value(json!({
        "workflow": "content", "title": " Launch post ", "inputs": {"text: brief": {"revision": "b1"}}
    }))
    .unwrap();
    let checked = check_run_workflow(&call, &defs).unwrap();
    assert_eq!(checked.title, "Launch post");
    assert!(checked.facts.get("text:brief").is_some());
    let refuse =
        |v: Value| check_run_workflow(&serde_json::from_value(v).unwrap(), &defs).unwrap_err();
    assert!(refuse(json!({"workflow": "nope", "title": "x"})).contains("no workflow named"));
    assert!(refuse(json!({"workflow": "content", "title": " "})).contains("title"));
    assert!(refuse(json!({"workflow": "content", "title": "x", "inputs": {"text:other": {"revision": "1"}}})).contains("takes no input text:other"));
    assert!(
        refuse(json!({"workflow": "content", "title": "x", "inputs": {"text:brief": {}}}))
            .contains("no revision")
    );
    assert!(
        serde_json::from_value::<RunWorkflowArgs>(json!({"workflow": "a", "title": "b", "bot": 1}))
            .is_err()
    );
}

#[test]
/// Rule #1299.
fn define_workflow_refuses_preset_and_invalid() {
    let preset_def = DefineWorkflowArgs {
        definition: preset("blank").unwrap(),
    };
    let refusal = check_define_workflow(&preset_def, None).unwrap_err();
    assert!(refusal[0].contains("is a preset"));
    let mut broken = content();
    broken.nodes[0].role = String::new();
    let refusal =
        check_define_workflow(&DefineWorkflowArgs { definition: broken }, None).unwrap_err();
    assert!(refusal[0].contains("has no role"));
    check_define_workflow(
        &DefineWorkflowArgs {
            definition: content(),
        },
        None,
    )
    .unwrap();
}

#[test]
/// Rule #1445.
fn run_bot_is_not_a_team_member() {
    let node_tools = vec!["github".to_owned()];
    assert_eq!(
        run_bot_may_call("message_bot", &node_tools).unwrap_err(),
        NOT_A_TEAM_MEMBER
    );
    assert_eq!(
        run_bot_may_call("run_workflow", &node_tools).unwrap_err(),
        NOT_A_TEAM_MEMBER
    );
    run_bot_may_call("github", &node_tools).unwrap();
    run_bot_may_call("remember", &node_tools).unwrap();
    assert!(run_bot_may_call("shell", &node_tools).is_err());
    let offered = ["list_bots", "message_bot", "github", "shell", "recall"];
    assert_eq!(
        run_bot_tools(&offered, &node_tools),
        ["list_bots", "github"]
    );
}

#[test]
/// Rule #1445.
fn a_run_bot_never_posts_to_a_group_even_when_its_node_names_it() {
    // The spec's `post_group` is this build's `post_to_group`: a node that
    // names it grants nothing, and reading a group stays allowed.
    let node_tools = vec!["post_to_group".to_owned()];
    assert_eq!(
        run_bot_may_call("post_to_group", &node_tools).unwrap_err(),
        NOT_A_TEAM_MEMBER
    );
    run_bot_may_call("read_group_chat", &[]).unwrap();
}

#[test]
/// Rules #1544, #1582.
fn run_bot_capped_by_caller_and_saver() {
    assert_eq!(capped_by(Some("bot-a"), Some("bot-b")), ["bot-a", "bot-b"]);
    assert_eq!(capped_by(Some("bot-a"), Some("bot-a")), ["bot-a"]);
    assert!(
        capped_by(None, None).is_empty(),
        "the owner's own edit lifts the ceiling"
    );
    let tools = vec!["github".to_owned()];
    let off = [CapSwitch::Team {
        name: "Chief".into(),
        on: false,
    }];
    assert_eq!(
        connector_refusal("github", &tools, &off).unwrap(),
        "The github connector is turned off for Chief."
    );
    let remote = [CapSwitch::Remote {
        name: "Friend".into(),
    }];
    assert!(
        connector_refusal("github", &tools, &remote)
            .unwrap()
            .contains("friend's Bot")
    );
    assert_eq!(
        connector_refusal(
            "github",
            &tools,
            &[
                CapSwitch::Gone,
                CapSwitch::Team {
                    name: "A".into(),
                    on: true
                }
            ]
        ),
        None
    );
    assert!(
        connector_refusal("github", &[], &[]).is_some(),
        "the node must name it"
    );
}
