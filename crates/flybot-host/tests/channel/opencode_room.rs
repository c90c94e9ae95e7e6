//! The pilot's collaboration in a running host (#198): a person creates
//! Bot B with the OpenCode runtime through the channel, puts it in a room
//! with Bot A, starts a card and follows the pilot's steps with `send` and
//! `messages`. OpenCode here is the scripted fake (the mock for tests);
//! `opencode_room_bounds` holds the failure rows, and `opencode_room_real`
//! runs the same steps on the real pinned `opencode serve`.

use crate::support::TestHost;
use flybot_agent::model::config::ProviderRegistry;
use flybot_agent::model::mock::{MockModel, Scenario};
use flybot_host::rooms::opencode::launcher::OpenCodeRuntime;
use flybot_interop::pilot::{fixture, script};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

pub(crate) fn bot_a_models() -> Arc<ProviderRegistry> {
    Arc::new(ProviderRegistry::with_mock(MockModel::with_scenario(
        Scenario::from_json(&script::bot_a_scenario()).unwrap(),
    )))
}

pub(crate) fn fake_host() -> TestHost {
    host_on(OpenCodeRuntime::Fake(script::fake_steps()))
}

/// A host with Bot A on its scenario and OpenCode Bots on `runtime`.
pub(crate) fn host_on(runtime: OpenCodeRuntime) -> TestHost {
    TestHost::with_config(|config| {
        config.models = bot_a_models();
        config.opencode = runtime;
    })
}

/// The card's seat folder: its journal, workspace and evidence.
pub(crate) fn seat_folder(t: &TestHost, p: &Pilot) -> PathBuf {
    t.dir.path().join("interop").join(&p.coder).join(&p.task)
}

/// The card's execution journal, as text.
pub(crate) fn journal_text(t: &TestHost, p: &Pilot) -> String {
    std::fs::read_to_string(seat_folder(t, p).join("journal/journal.jsonl")).unwrap()
}

/// The card's evidence record.
pub(crate) fn evidence_record(t: &TestHost, p: &Pilot) -> Value {
    serde_json::from_slice(&std::fs::read(seat_folder(t, p).join("evidence.json")).unwrap())
        .unwrap()
}

/// The fixture project, as a seed folder inside the test's home.
pub(crate) fn seed(t: &TestHost) -> PathBuf {
    let seed = t.dir.path().join("seed");
    fixture::materialize(&seed).unwrap();
    seed
}

pub(crate) struct Pilot {
    pub ada: String,
    pub coder: String,
    pub room: String,
    pub task: String,
}

/// Bot A, Bot B on OpenCode (model `coder_model`), their room and a
/// started card, all through the channel.
pub(crate) async fn set_up(t: &TestHost, coder_model: &str) -> Pilot {
    let ada = t
        .ok(None, "create-bot", json!({"name": "Ada", "model": "mock"}))
        .await;
    let ada = ada["bot"]["id"].as_str().unwrap().to_owned();
    let coder = t
        .ok(
            None,
            "create-bot",
            json!({"name": "Coder", "model": coder_model,
                "external": {"driver": "opencode", "seed": seed(t), "testCommand": ["node", "--test"]}}),
        )
        .await;
    assert_eq!(coder["bot"]["external"]["driver"], "opencode");
    let coder = coder["bot"]["id"].as_str().unwrap().to_owned();
    let room = t
        .ok(
            None,
            "create-room",
            json!({"name": "Pilot", "members": [ada, coder], "admin": ada}),
        )
        .await;
    let room = room["room"]["id"].as_str().unwrap().to_owned();
    let task = t
        .ok(
            None,
            "task-create",
            json!({"botId": ada, "roomId": room, "title": "Fixture task: make slugify's tests pass"}),
        )
        .await;
    let task = task["task"]["id"].as_str().unwrap().to_owned();
    for endpoint in ["task-accept", "task-start"] {
        t.ok(None, endpoint, json!({"id": task})).await;
    }
    Pilot {
        ada,
        coder,
        room,
        task,
    }
}

/// The room's lines once no round runs, as (author id, kind, visible text).
pub(crate) async fn settled(
    t: &TestHost,
    room: &str,
    polls: usize,
) -> Vec<(String, String, String)> {
    for _ in 0..polls {
        let answer = t.ok(None, "messages", json!({"roomId": room})).await;
        if answer["running"] == json!(false) {
            return answer["messages"]
                .as_array()
                .unwrap()
                .iter()
                .map(|m| {
                    let text = m["text"].as_str().unwrap_or_default();
                    let visible = flybot_core::fences::readable_body(text);
                    (
                        m["authorId"].as_str().unwrap_or_default().to_owned(),
                        m["kind"].as_str().unwrap_or_default().to_owned(),
                        visible,
                    )
                })
                .collect();
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let answer = t.ok(None, "messages", json!({"roomId": room})).await;
    panic!("the room never settled: {answer:#}");
}

pub(crate) async fn card(t: &TestHost, task: &str) -> Value {
    let state = t.ok(None, "tasks", json!({"archive": true})).await;
    state["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == task)
        .cloned()
        .unwrap_or_else(|| panic!("no card {task} in {state}"))
}

/// The card once its status is `status` (its moves follow the room's lines).
pub(crate) async fn card_when(t: &TestHost, task: &str, status: &str, polls: usize) -> Value {
    for _ in 0..polls {
        let card = card(t, task).await;
        if card["status"] == status {
            return card;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the card never became {status}: {}", card(t, task).await);
}

/// The person's steps with `send` and `messages`: a line to Bot A that
/// starts the delegation (Bot B asks its question), then a line asking
/// Bot A to answer it (Bot B works, tests and returns its result).
pub(crate) async fn follow_the_pilot(
    t: &TestHost,
    p: &Pilot,
    polls: usize,
) -> Vec<(String, String, String)> {
    walk_the_pilot(t, p, polls, false).await
}

/// `follow_the_pilot`, with the seats dropped after the question when
/// `restart_between` (a host restart mid-card).
pub(crate) async fn walk_the_pilot(
    t: &TestHost,
    p: &Pilot,
    polls: usize,
    restart_between: bool,
) -> Vec<(String, String, String)> {
    let say = |text: String| json!({"roomId": p.room, "text": text});
    t.ok(
        None,
        "send",
        say(format!(
            "@Ada please delegate the fixture task {} to @Coder and verify the result.",
            p.task
        )),
    )
    .await;
    let lines = settled(t, &p.room, polls).await;
    if !lines
        .iter()
        .any(|(a, _, text)| *a == p.coder && text.starts_with("QUESTION"))
    {
        return lines;
    }
    let blocked = card_when(t, &p.task, "blocked", polls).await;
    assert_eq!(blocked["waitingFor"], "input", "{blocked}");
    if restart_between {
        // The seats go as they would with the host: the OpenCode process
        // ends, the card's journal closes.
        t.host.externals().opencode().stop_all();
    }
    t.ok(
        None,
        "send",
        say("@Ada Coder asked you a question here; please answer it.".to_owned()),
    )
    .await;
    settled(t, &p.room, polls).await;
    card_when(t, &p.task, "result-ready", polls).await;
    // The check's line follows the move that made the card result-ready.
    for _ in 0..polls {
        let lines = settled(t, &p.room, polls).await;
        if lines.iter().any(|(_, kind, _)| kind == "event") {
            return lines;
        }
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    panic!("the verification was never said in the room");
}

pub(crate) fn position(lines: &[(String, String, String)], who: &str, start: &str) -> usize {
    lines
        .iter()
        .position(|(a, _, text)| a == who && text.starts_with(start))
        .unwrap_or_else(|| panic!("no line by {who} starting {start:?}: {lines:#?}"))
}

pub(crate) fn check_the_collaboration(t: &TestHost, p: &Pilot, lines: &[(String, String, String)]) {
    let delegated = position(lines, &p.ada, "@Coder Please take");
    let asked = position(lines, &p.coder, "QUESTION @Ada");
    let answered = position(lines, &p.ada, "@Coder Transliterate");
    let done = position(lines, &p.coder, "DONE @Ada");
    let verified = position(lines, &p.ada, "Verified for Ada in a fresh copy");
    assert!(
        delegated < asked && asked < answered && answered < done && done < verified,
        "{lines:#?}"
    );
    // Bot B's question is in the room once: #550 does not say it again.
    assert!(
        !lines
            .iter()
            .any(|(_, _, text)| text.starts_with("Question on")),
        "{lines:#?}"
    );
    assert_eq!(lines[verified].1, "event", "the check calls nobody");
    // The evidence record: the diff, the digests, both test runs.
    let record = evidence_record(t, p);
    assert_eq!(record["verification"]["verified"], true, "{record}");
    assert_eq!(record["verification"]["by"], "Ada");
    assert_eq!(record["evidence"]["tests"]["passed"], true);
    assert!(
        record["evidence"]["diff"]
            .as_str()
            .unwrap()
            .contains("+++ b/slug.mjs")
    );
    let digest = record["evidence"]["canonicalSha256"].as_str().unwrap();
    assert!(lines[verified].2.contains(digest), "{}", lines[verified].2);
    // Bot B's edit stayed in its own workspace: the seed is untouched.
    assert_eq!(
        std::fs::read_to_string(t.dir.path().join("seed/slug.mjs")).unwrap(),
        fixture::FILES[1].1
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn complete_collaboration_a_running_host_walks_the_pilot_with_send_and_messages() {
    let t = fake_host();
    let p = set_up(&t, "mock").await;
    let lines = follow_the_pilot(&t, &p, 400).await;
    check_the_collaboration(&t, &p, &lines);
    // The card went blocked for the question and back to working through
    // the projection table, then result-ready; only a person ends it.
    let ready = card(&t, &p.task).await;
    assert_eq!(ready["status"], "result-ready", "{ready}");
    assert!(
        ready["inputRequest"]["question"]
            .as_str()
            .unwrap()
            .starts_with("QUESTION @Ada"),
        "{ready}"
    );
    assert!(
        ready["inputAnswer"]["answer"]
            .as_str()
            .unwrap()
            .starts_with("@Coder Transliterate"),
        "{ready}"
    );
    let accepted = t
        .ok(None, "task-accept-result", json!({"id": p.task}))
        .await;
    assert_eq!(accepted["task"]["status"], "accepted");
    // The finished card's seat (its OpenCode, its session) is let go.
    let seats = t.host.externals().opencode();
    for _ in 0..60 {
        if seats.seat(&p.room, &p.coder, &p.task).is_none() {
            return;
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    panic!("the accepted card's seat was kept");
}

#[tokio::test(flavor = "multi_thread")]
async fn private_data_and_injection_nothing_private_to_bot_a_reaches_opencode() {
    let t = fake_host();
    let p = set_up(&t, "mock").await;
    let markers = [
        "MARKER-INSTRUCTIONS-7f3a",
        "MARKER-DM-19c2",
        "MARKER-ROOM-88d1",
    ];
    t.ok(
        None,
        "update-bot",
        json!({"id": p.ada, "instructions": format!("Keep {} to yourself.", markers[0])}),
    )
    .await;
    t.ok(
        None,
        "send",
        json!({"botId": p.ada, "text": format!("Private: {}", markers[1])}),
    )
    .await;
    let other = t
        .ok(
            None,
            "create-room",
            json!({"name": "Private", "members": [p.ada], "admin": p.ada}),
        )
        .await;
    let other = other["room"]["id"].as_str().unwrap().to_owned();
    t.ok(
        None,
        "send",
        json!({"roomId": other, "text": format!("@Ada note {}", markers[2])}),
    )
    .await;
    settled(&t, &other, 200).await;
    let lines = follow_the_pilot(&t, &p, 400).await;
    check_the_collaboration(&t, &p, &lines);
    let seat = t
        .host
        .externals()
        .opencode()
        .seat(&p.room, &p.coder, &p.task)
        .unwrap();
    let prompts = seat.runtime_prompts();
    assert_eq!(
        prompts.len(),
        2,
        "the delegation and the answer: {prompts:#?}"
    );
    assert!(prompts[1].contains("Transliterate them"), "{prompts:#?}");
    for marker in markers {
        assert!(
            prompts.iter().all(|p| !p.contains(marker)),
            "{marker} reached OpenCode: {prompts:#?}"
        );
    }
}
