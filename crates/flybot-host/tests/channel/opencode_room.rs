//! The pilot's collaboration in a running host (#198): a person creates
//! Bot B with the OpenCode runtime through the channel, puts it in a room
//! with Bot A, starts a card and follows the pilot's steps with `send` and
//! `messages`. OpenCode here is the scripted fake (the mock for tests);
//! `opencode_room_bounds` holds the failure rows, and `opencode_room_real`
//! runs the same steps on the real pinned `opencode serve`.

use flybot_agent::model::config::ProviderRegistry;
use flybot_core::rooms::log::LineKind;
use flybot_host::rooms::opencode::launcher::OpenCodeRuntime;
use flybot_interop::opencode::fake::FakeStep;
use flybot_interop::pilot::{fixture, script};
use flybot_testkit::{Kit, Room, scripted_models};
use serde_json::{Value, json};
use std::path::PathBuf;
use std::sync::Arc;

pub(crate) fn bot_a_models() -> Arc<ProviderRegistry> {
    scripted_models(&script::bot_a_scenario())
}

pub(crate) async fn fake_host() -> Kit {
    host_on(OpenCodeRuntime::Fake(script::fake_steps())).await
}

/// A host whose OpenCode Bot asks one question, then echoes what it is
/// sent; set up with its pilot card.
pub(crate) async fn asking_once() -> (Kit, Pilot) {
    let kit = host_on(OpenCodeRuntime::Fake(vec![
        FakeStep::AskQuestion {
            question: "Dashes or underscores?".into(),
        },
        FakeStep::Echo,
    ]))
    .await;
    let p = set_up(&kit, "mock").await;
    (kit, p)
}

/// A host whose OpenCode Bots run on `runtime`, set up with its pilot card,
/// and `text` sent in the room (`@Coder ...`, the card's start).
/// An OpenCode edit whose result fails the fixture's tests: `slugify`
/// returns the title unchanged, and the Coder claims it works.
pub(crate) fn failing_slug_edit() -> FakeStep {
    FakeStep::Edit {
        files: vec![(
            "slug.mjs".into(),
            "export function slugify(title) { return title; }\n".into(),
        )],
        command: fixture::TEST_COMMAND
            .iter()
            .map(|s| (*s).to_owned())
            .collect(),
        text: "DONE @Ada: it works, trust me.".into(),
    }
}

pub(crate) async fn coder_told(runtime: OpenCodeRuntime, text: &str) -> (Kit, Pilot) {
    let kit = host_on(runtime).await;
    let p = set_up(&kit, "mock").await;
    kit.ok("send", json!({"roomId": p.room.id, "text": text}))
        .await;
    (kit, p)
}

/// A host with Bot A on its scenario and OpenCode Bots on `runtime`.
pub(crate) async fn host_on(runtime: OpenCodeRuntime) -> Kit {
    Kit::with_config(|config| {
        config.models = bot_a_models();
        config.opencode = runtime;
    })
    .await
}

/// The card's seat folder: its journal, workspace and evidence.
pub(crate) fn seat_folder(kit: &Kit, p: &Pilot) -> PathBuf {
    kit.home().join("interop").join(&p.coder).join(&p.task)
}

/// The card's execution journal, as text.
pub(crate) fn journal_text(kit: &Kit, p: &Pilot) -> String {
    std::fs::read_to_string(seat_folder(kit, p).join("journal/journal.jsonl")).unwrap()
}

/// OpenCode's messageIDs recorded with the card's turn submissions.
pub(crate) fn submitted_message_ids(kit: &Kit, p: &Pilot) -> Vec<String> {
    let records: Vec<Value> = journal_text(kit, p)
        .lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect();
    let submits: Vec<&Value> = records
        .iter()
        .filter(|r| r["type"] == "send-intent" && r["operation"] == "submit-turn")
        .collect();
    submits
        .iter()
        .filter_map(|intent| {
            records
                .iter()
                .find(|r| r["type"] == "send-outcome" && r["sendId"] == intent["sendId"])
        })
        .filter_map(|outcome| outcome["observed"]["remoteRef"].as_str().map(str::to_owned))
        .collect()
}

/// The card's evidence record.
pub(crate) fn evidence_record(kit: &Kit, p: &Pilot) -> Value {
    serde_json::from_slice(&std::fs::read(seat_folder(kit, p).join("evidence.json")).unwrap())
        .unwrap()
}

/// The fixture project, as a seed folder inside the test's home.
pub(crate) fn seed(kit: &Kit) -> PathBuf {
    let seed = kit.home().join("seed");
    fixture::materialize(&seed).unwrap();
    seed
}

pub(crate) struct Pilot {
    pub ada: String,
    pub coder: String,
    pub room: Room,
    pub task: String,
}

/// Bot A, Bot B on OpenCode (model `coder_model`), their room and a
/// started card, all through the channel.
pub(crate) async fn set_up(kit: &Kit, coder_model: &str) -> Pilot {
    let ada = kit
        .anyone()
        .bot_from(json!({"name": "Ada", "model": "mock"}))
        .await
        .id;
    let coder = kit
        .ok(
            "create-bot",
            json!({"name": "Coder", "model": coder_model,
                "external": {"driver": "opencode", "seed": seed(kit), "testCommand": ["node", "--test"]}}),
        )
        .await;
    assert_eq!(coder["bot"]["external"]["driver"], "opencode");
    let coder = coder["bot"]["id"].as_str().unwrap().to_owned();
    let room = kit
        .room_from(json!({"name": "Pilot", "members": [ada, coder], "admin": ada}))
        .await;
    let task = kit
        .card_from(json!({"botId": ada, "roomId": room.id, "title": "Fixture task: make slugify's tests pass"}))
        .await;
    for endpoint in ["task-accept", "task-start"] {
        kit.ok(endpoint, json!({"id": task})).await;
    }
    Pilot {
        ada,
        coder,
        room,
        task,
    }
}

/// The room's lines once no round runs, as (author id, kind, visible text).
pub(crate) async fn settled(kit: &Kit, room: &Room) -> Vec<(String, String, String)> {
    kit.round_ended(room).await;
    let answer = kit.ok("messages", json!({"roomId": room.id})).await;
    answer["messages"]
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
        .collect()
}

pub(crate) async fn card(kit: &Kit, task: &str) -> Value {
    let state = kit.ok("tasks", json!({"archive": true})).await;
    state["tasks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["id"] == task)
        .cloned()
        .unwrap_or_else(|| panic!("no card {task} in {state}"))
}

/// The card once its status is `status` (its moves follow the room's
/// lines), as the channel shows it.
pub(crate) async fn card_when(kit: &Kit, task: &str, status: &str) -> Value {
    kit.card_when(task, status).await;
    card(kit, task).await
}

/// The person's steps with `send` and `messages`: a line to Bot A that
/// starts the delegation (Bot B asks its question), then a line asking
/// Bot A to answer it (Bot B works, tests and returns its result).
pub(crate) async fn follow_the_pilot(kit: &Kit, p: &Pilot) -> Vec<(String, String, String)> {
    walk_the_pilot(kit, p, false).await
}

/// `follow_the_pilot`, with the seats dropped after the question when
/// `restart_between` (a host restart mid-card).
pub(crate) async fn walk_the_pilot(
    kit: &Kit,
    p: &Pilot,
    restart_between: bool,
) -> Vec<(String, String, String)> {
    let say = |text: String| json!({"roomId": p.room.id, "text": text});
    kit.ok(
        "send",
        say(format!(
            "@Ada please delegate the fixture task {} to @Coder and verify the result.",
            p.task
        )),
    )
    .await;
    let lines = settled(kit, &p.room).await;
    if !lines
        .iter()
        .any(|(a, _, text)| *a == p.coder && text.starts_with("QUESTION"))
    {
        return lines;
    }
    let blocked = card_when(kit, &p.task, "blocked").await;
    assert_eq!(blocked["waitingFor"], "input", "{blocked}");
    if restart_between {
        // The seats go as they would with the host: the OpenCode process
        // ends, the card's journal closes.
        kit.host.externals().opencode().stop_all();
    }
    kit.ok(
        "send",
        say("@Ada Coder asked you a question here; please answer it.".to_owned()),
    )
    .await;
    settled(kit, &p.room).await;
    card_when(kit, &p.task, "result-ready").await;
    // The check's line follows the move that made the card result-ready.
    kit.until("the verification is said in the room", || {
        kit.room_lines(&p.room)
            .iter()
            .any(|line| line.kind == LineKind::Event)
    })
    .await;
    settled(kit, &p.room).await
}

pub(crate) fn position(lines: &[(String, String, String)], who: &str, start: &str) -> usize {
    lines
        .iter()
        .position(|(a, _, text)| a == who && text.starts_with(start))
        .unwrap_or_else(|| panic!("no line by {who} starting {start:?}: {lines:#?}"))
}

pub(crate) fn check_the_collaboration(kit: &Kit, p: &Pilot, lines: &[(String, String, String)]) {
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
    let record = evidence_record(kit, p);
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
        std::fs::read_to_string(kit.home().join("seed/slug.mjs")).unwrap(),
        fixture::FILES[1].1
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn complete_collaboration_a_running_host_walks_the_pilot_with_send_and_messages() {
    let kit = fake_host().await;
    let p = set_up(&kit, "mock").await;
    let lines = follow_the_pilot(&kit, &p).await;
    check_the_collaboration(&kit, &p, &lines);
    // The card went blocked for the question and back to working through
    // the projection table, then result-ready; only a person ends it.
    let ready = card(&kit, &p.task).await;
    assert_eq!(ready["status"], "result-ready", "{ready}");
    // The live collaboration records its evidence level on the card: the
    // fake OpenCode is level 1; a person's acceptance makes it level 4.
    assert_eq!(ready["evidenceLevel"], "offline-mock", "{ready}");
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
    // OpenCode's messageID of each prompt is recorded with its submit.
    let ids = submitted_message_ids(&kit, &p);
    assert_eq!(ids.len(), 2, "{}", journal_text(&kit, &p));
    assert!(ids.iter().all(|id| id.starts_with("msg")), "{ids:?}");
    assert_ne!(ids[0], ids[1]);
    let accepted = kit.ok("task-accept-result", json!({"id": p.task})).await;
    assert_eq!(accepted["task"]["status"], "accepted");
    assert_eq!(accepted["task"]["evidenceLevel"], "human-acceptance");
    // The finished card's seat (its OpenCode, its session) is let go.
    let seats = kit.host.externals().opencode();
    kit.until("the accepted card's seat is let go", || {
        seats.seat(&p.room.id, &p.coder, &p.task).is_none()
    })
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn private_data_and_injection_nothing_private_to_bot_a_reaches_opencode() {
    let kit = fake_host().await;
    let p = set_up(&kit, "mock").await;
    let markers = [
        "MARKER-INSTRUCTIONS-7f3a",
        "MARKER-DM-19c2",
        "MARKER-ROOM-88d1",
    ];
    kit.ok(
        "update-bot",
        json!({"id": p.ada, "instructions": format!("Keep {} to yourself.", markers[0])}),
    )
    .await;
    kit.ok(
        "send",
        json!({"botId": p.ada, "text": format!("Private: {}", markers[1])}),
    )
    .await;
    let other = kit
        .room_from(json!({"name": "Private", "members": [p.ada], "admin": p.ada}))
        .await;
    kit.ok(
        "send",
        json!({"roomId": other.id, "text": format!("@Ada note {}", markers[2])}),
    )
    .await;
    settled(&kit, &other).await;
    let lines = follow_the_pilot(&kit, &p).await;
    check_the_collaboration(&kit, &p, &lines);
    let seat = kit
        .host
        .externals()
        .opencode()
        .seat(&p.room.id, &p.coder, &p.task)
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
