//! Resource bounds (#198) that hold live on an OpenCode card: the message
//! limit, once the turn in flight has no message left for its reply,
//! aborts that turn and pauses new work; a submission the runtime refused
//! is retransmitted on the next line under the same reservation, charged
//! to the turn's retry counter, never as a new turn. OpenCode is the fake.

use crate::opencode_room::{Pilot, card_when, journal_text, set_up, settled};
use flybot_host::rooms::opencode::launcher::OpenCodeRuntime;
use flybot_interop::opencode::fake::{FakeGaps, FakeStep};
use flybot_testkit::Kit;
use serde_json::{Value, json};

/// The journal's records of `type`.
fn records(kit: &Kit, p: &Pilot, kind: &str) -> Vec<Value> {
    journal_text(kit, p)
        .lines()
        .filter_map(|l| serde_json::from_str::<Value>(l).ok())
        .filter(|r| r["type"] == kind)
        .collect()
}

/// What Coder said last in the room.
async fn coder_said_last(kit: &Kit, p: &Pilot) -> String {
    let lines = settled(kit, &p.room).await;
    lines
        .iter()
        .rfind(|(a, kind, _)| *a == p.coder && kind != "claim")
        .unwrap_or_else(|| panic!("{lines:#?}"))
        .2
        .clone()
}

#[tokio::test(flavor = "multi_thread")]
async fn resource_bounds_the_message_limit_aborts_the_turn_in_flight_and_pauses_new_work() {
    // Three content messages: the request, Coder's question, and the
    // answer's turn, which leaves no message for its reply.
    let kit = Kit::with_config(|config| {
        config.models = crate::opencode_room::bot_a_models();
        config.opencode = OpenCodeRuntime::Fake(vec![
            FakeStep::AskQuestion {
                question: "QUESTION: dashes or underscores?".into(),
            },
            FakeStep::Hang,
        ]);
        config.opencode_budget.content_messages = 3;
    })
    .await;
    let p = set_up(&kit, "mock").await;
    let say = |text: &str| json!({"roomId": p.room.id, "text": text});
    kit.ok("send", say("@Coder start on the card")).await;
    assert!(coder_said_last(&kit, &p).await.starts_with("QUESTION"));
    let blocked = card_when(&kit, &p.task, "blocked").await;
    // A person answers on the card (only the requester's own answer
    // counts), then calls Coder's turn that carries the answer.
    let question = blocked["inputRequest"]["id"].as_str().unwrap();
    kit.ok(
        "task-answer-input",
        json!({"id": p.task, "questionId": question, "answer": "dashes"}),
    )
    .await;
    kit.ok("send", say("@Coder dashes, please")).await;
    let said = coder_said_last(&kit, &p).await;
    assert!(
        said.contains("budget: this task has used all the content messages its budget allows")
            && said.contains("the turn in flight was aborted"),
        "{said}"
    );
    let seat = kit
        .host
        .externals()
        .opencode()
        .seat(&p.room.id, &p.coder, &p.task)
        .unwrap();
    assert_eq!(
        seat.runtime_prompts().len(),
        2,
        "the answer's turn reached OpenCode"
    );
    let aborts = records(&kit, &p, "send-intent")
        .into_iter()
        .filter(|r| r["operation"] == "abort")
        .count();
    // One suspended the question's turn, one the turn the budget stopped.
    assert_eq!(aborts, 2, "{}", journal_text(&kit, &p));
    // New work is paused: the next line reaches OpenCode no more.
    kit.ok("send", say("@Coder go on")).await;
    let said = coder_said_last(&kit, &p).await;
    assert!(said.contains("starts no work"), "{said}");
    assert!(
        !said.contains("Refused("),
        "a sentence, not a debug shape: {said}"
    );
    assert_eq!(seat.runtime_prompts().len(), 2);
}

#[tokio::test(flavor = "multi_thread")]
async fn resource_bounds_a_refused_submission_is_retried_under_the_same_reservation() {
    let gaps = FakeGaps {
        refuse_first_prompts: 1,
        ..FakeGaps::default()
    };
    let kit =
        crate::opencode_room::host_on(OpenCodeRuntime::FakeGapped(vec![FakeStep::Echo], gaps))
            .await;
    let p = set_up(&kit, "mock").await;
    let say = |text: &str| json!({"roomId": p.room.id, "text": text});
    kit.ok("send", say("@Coder make slugify pass")).await;
    let said = coder_said_last(&kit, &p).await;
    assert!(
        said.contains("the prompt was refused and not taken"),
        "{said}"
    );
    kit.ok("send", say("@Coder try again")).await;
    let said = coder_said_last(&kit, &p).await;
    assert!(said.starts_with("echo: "), "{said}");
    // The retransmission carries the turn's own words, not the new line.
    let seat = kit
        .host
        .externals()
        .opencode()
        .seat(&p.room.id, &p.coder, &p.task)
        .unwrap();
    let prompts = seat.runtime_prompts();
    assert_eq!(prompts.len(), 1, "the refused prompt was not taken");
    assert!(
        prompts[0].contains("Task: Fixture task: make slugify's tests pass"),
        "{prompts:?}"
    );
    assert!(!prompts[0].contains("try again"), "{prompts:?}");
    // One turn reserved, one retry charged, two submissions of that turn.
    let turns: Vec<Value> = records(&kit, &p, "ingress")
        .into_iter()
        .filter(|r| r["reservation"]["charge"] == "turn")
        .collect();
    assert_eq!(turns.len(), 1, "{}", journal_text(&kit, &p));
    let retried = records(&kit, &p, "retried");
    assert_eq!(retried.len(), 1, "{}", journal_text(&kit, &p));
    assert_eq!(retried[0]["turn"]["turnId"], "t1");
    let submits: Vec<Value> = records(&kit, &p, "send-intent")
        .into_iter()
        .filter(|r| r["operation"] == "submit-turn")
        .collect();
    assert_eq!(submits.len(), 2);
    assert_eq!(submits[0]["turn"], submits[1]["turn"]);
}
