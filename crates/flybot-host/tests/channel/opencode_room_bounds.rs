//! An OpenCode Bot's bounds and failures in a running host (#198), one
//! test per contract matrix row: a person's stop, a record that could
//! widen its policy, no card or no runtime, a seat lost mid-card, an
//! unexpected permission, the concurrent-card budget, a result whose tests
//! fail. OpenCode is the scripted fake.

use crate::opencode_room::{
    card, card_when, coder_told, evidence_record, failing_slug_edit, fake_host, host_on,
    journal_text, seed, set_up, settled,
};
use flybot_core::rooms::log::LineKind;
use flybot_host::rooms::opencode::launcher::OpenCodeRuntime;
use flybot_interop::opencode::fake::FakeStep;
use flybot_interop::opencode::locate::README_PATH;
use flybot_testkit::{Kit, Room};
use serde_json::{Value, json};

#[tokio::test(flavor = "multi_thread")]
async fn stop_and_late_result_a_person_stops_an_opencode_turn_and_the_abort_is_journaled() {
    let (kit, p) = coder_told(
        OpenCodeRuntime::Fake(vec![
            flybot_interop::opencode::fake::FakeStep::Hang,
            flybot_interop::opencode::fake::FakeStep::Reply {
                text: "Back at it.".into(),
            },
        ]),
        "@Coder start on the card",
    )
    .await;
    // Stop once OpenCode holds the prompt (a stop while the seat starts
    // ends the turn before anything is sent).
    kit.until("Coder's prompt reaches OpenCode", || {
        let seat = kit
            .host
            .externals()
            .opencode()
            .seat(&p.room.id, &p.coder, &p.task);
        seat.is_some_and(|s| s.runtime_prompts().len() == 1)
    })
    .await;
    let stop = kit
        .ok("send", json!({"roomId": p.room.id, "text": "stop"}))
        .await;
    assert_eq!(stop["queued"], "stop");
    let lines = settled(&kit, &p.room).await;
    // The stopped turn said nothing and is not a failure; the next line
    // that calls Coder hears that the stopped card takes no more work, and
    // the card did not move.
    let coder_said: Vec<&str> = lines
        .iter()
        .filter(|(a, _, _)| a == &p.coder)
        .map(|(_, _, text)| text.as_str())
        .collect();
    assert_eq!(coder_said.len(), 1, "{lines:#?}");
    assert!(
        coder_said[0].starts_with("My work on this card was stopped"),
        "{lines:#?}"
    );
    assert_eq!(card(&kit, &p.task).await["status"], "working");
    let journal = journal_text(&kit, &p);
    assert!(journal.contains("\"abort\""), "{journal}");
    assert!(journal.contains("cancel"), "{journal}");
}

#[tokio::test(flavor = "multi_thread")]
async fn identity_and_scope_an_opencode_record_that_could_widen_its_policy_is_refused() {
    let kit = fake_host().await;
    let seed = seed(&kit);
    for (external, field) in [
        (
            json!({"driver": "opencode", "testCommand": ["node", "--test", "*"]}),
            "external.testCommand",
        ),
        (
            json!({"driver": "opencode", "testCommand": "node --test; curl x"}),
            "external.testCommand",
        ),
        (
            json!({"driver": "opencode", "seed": "relative/folder"}),
            "external.seed",
        ),
        (
            json!({"driver": "opencode", "seed": seed, "command": ["opencode"]}),
            "external.command",
        ),
        (json!({"driver": "claude"}), "external.driver"),
    ] {
        let refused = kit
            .refused(
                "create-bot",
                json!({"name": "Coder", "external": external}),
                "bot/invalid",
            )
            .await;
        assert_eq!(refused["error"]["details"]["field"], field, "{refused}");
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn capability_failure_an_opencode_bot_without_a_card_or_a_runtime_says_so() {
    // No card in the room: the Bot says how to give it one.
    let kit = fake_host().await;
    let coder = kit
        .ok(
            "create-bot",
            json!({"name": "Coder", "external": {"driver": "opencode"}}),
        )
        .await;
    let coder = coder["bot"]["id"].as_str().unwrap().to_owned();
    let room = kit
        .room_from(json!({"name": "Solo", "members": [coder], "admin": coder}))
        .await;
    kit.ok("send", json!({"roomId": room.id, "text": "@Coder fix it"}))
        .await;
    let lines = settled(&kit, &room).await;
    let said = &lines.last().unwrap().2;
    assert!(said.contains("I work on a card"), "{lines:#?}");

    // No OpenCode installed: the turn says how to install it, nothing runs.
    let kit = host_on(OpenCodeRuntime::Missing).await;
    let p = set_up(&kit, "mock").await;
    let text = format!(
        "@Ada please delegate the fixture task {} to @Coder.",
        p.task
    );
    kit.ok("send", json!({"roomId": p.room.id, "text": text}))
        .await;
    let lines = settled(&kit, &p.room).await;
    let failure = lines
        .iter()
        .find(|(a, _, _)| *a == p.coder)
        .unwrap_or_else(|| panic!("{lines:#?}"));
    assert!(failure.2.contains("is not installed"), "{failure:?}");
    assert!(failure.2.contains(README_PATH), "{failure:?}");
    assert_eq!(card(&kit, &p.task).await["status"], "working");
}

#[tokio::test(flavor = "multi_thread")]
async fn delivery_and_crash_a_restarted_seat_on_the_fake_is_uncertain_and_resubmits_nothing() {
    // This fake keeps its sessions in memory: after the seat is dropped,
    // the card's session is gone and the re-bound journal says so.
    let gaps = flybot_interop::opencode::fake::FakeGaps {
        forgets_sessions_on_restart: true,
        ..Default::default()
    };
    let kit = host_on(OpenCodeRuntime::FakeGapped(
        flybot_interop::pilot::script::fake_steps(),
        gaps,
    ))
    .await;
    let p = set_up(&kit, "mock").await;
    kit.ok(
        "send",
        json!({"roomId": p.room.id, "text": format!(
            "@Ada please delegate the fixture task {} to @Coder and verify the result.", p.task)}),
    )
    .await;
    settled(&kit, &p.room).await;
    card_when(&kit, &p.task, "blocked").await;
    kit.host.externals().opencode().stop_all();
    let text = "@Ada Coder asked you a question here; please answer it.";
    kit.ok("send", json!({"roomId": p.room.id, "text": text}))
        .await;
    let lines = settled(&kit, &p.room).await;
    let last = lines.last().unwrap();
    assert_eq!(last.0, p.coder, "{lines:#?}");
    assert!(last.2.contains("recovery: uncertain"), "{lines:#?}");
    let seat = kit
        .host
        .externals()
        .opencode()
        .seat(&p.room.id, &p.coder, &p.task)
        .unwrap();
    assert!(seat.runtime_prompts().is_empty(), "nothing was resubmitted");
}

#[tokio::test(flavor = "multi_thread")]
async fn capability_failure_an_unexpected_permission_is_denied_said_and_journaled() {
    let (kit, p) = coder_told(
        OpenCodeRuntime::Fake(vec![
            flybot_interop::opencode::fake::FakeStep::AskPermission {
                permission: "webfetch".into(),
                text: "fetched".into(),
            },
        ]),
        "@Coder look it up on the web",
    )
    .await;
    let lines = settled(&kit, &p.room).await;
    let said = lines
        .iter()
        .find(|(a, _, _)| *a == p.coder)
        .unwrap_or_else(|| panic!("{lines:#?}"));
    assert!(
        said.2
            .starts_with("I asked for webfetch, which this room's policy does not allow"),
        "{said:?}"
    );
    assert_eq!(card(&kit, &p.task).await["status"], "working");
    let journal = journal_text(&kit, &p);
    assert!(journal.contains("\"deny-request\""), "{journal}");
    assert!(journal.contains("\"abort\""), "{journal}");
}

/// A host whose OpenCode Bot Coder answers "On it.", and `n` rooms, each
/// with a card for Coder accepted and started.
async fn coder_with_started_cards(n: usize) -> (Kit, String, Vec<(Room, String)>) {
    let kit = host_on(OpenCodeRuntime::Fake(vec![FakeStep::Reply {
        text: "On it.".into(),
    }]))
    .await;
    let coder = kit
        .ok(
            "create-bot",
            json!({"name": "Coder", "external": {"driver": "opencode"}}),
        )
        .await;
    let coder = coder["bot"]["id"].as_str().unwrap().to_owned();
    let mut cards = Vec::new();
    for n in 0..n {
        let room = kit
            .room_from(json!({"name": format!("Room {n}"), "members": [coder], "admin": coder}))
            .await;
        let task = kit
            .card_from(json!({"botId": coder, "roomId": room.id, "title": format!("Card {n}")}))
            .await;
        for endpoint in ["task-accept", "task-start"] {
            kit.ok(endpoint, json!({"id": task})).await;
        }
        cards.push((room, task));
    }
    (kit, coder, cards)
}

#[tokio::test(flavor = "multi_thread")]
async fn resource_bounds_an_opencode_bot_works_two_cards_at_once_and_says_so_for_a_third() {
    let (kit, coder, cards) = coder_with_started_cards(3).await;
    let mut said = Vec::new();
    for (room, _) in &cards {
        kit.ok("send", json!({"roomId": room.id, "text": "@Coder go"}))
            .await;
        let lines = settled(&kit, room).await;
        // The person's accept and start post the claim line (#1253) in the
        // Bot's voice first; the turn's answer (or refusal) comes after it.
        let first = lines
            .iter()
            .find(|(a, kind, _)| *a == coder && kind != "claim")
            .unwrap_or_else(|| panic!("{lines:#?}"));
        said.push(first.2.clone());
    }
    assert_eq!(said[0], "On it.");
    assert_eq!(said[1], "On it.");
    assert!(said[2].starts_with("I already work 2 cards"), "{said:?}");
}

/// The budget holds when the three cards are asked for at once: seats
/// open one at a time per Bot, so two turns cannot both count one card
/// before either seat made its journal.
#[tokio::test(flavor = "multi_thread")]
async fn resource_bounds_three_cards_asked_for_at_once_open_two_seats_and_refuse_the_third() {
    let (kit, coder, cards) = coder_with_started_cards(3).await;
    let sends = cards
        .iter()
        .map(|(room, _)| kit.ok("send", json!({"roomId": room.id, "text": "@Coder go"})));
    futures_util::future::join_all(sends).await;
    let mut said = Vec::new();
    for (room, _) in &cards {
        let lines = settled(&kit, room).await;
        let last = lines
            .iter()
            .rfind(|(a, kind, _)| *a == coder && kind != "claim");
        said.push(last.unwrap_or_else(|| panic!("{lines:#?}")).2.clone());
    }
    said.sort();
    assert_eq!(said[1..], ["On it.", "On it."], "{said:?}");
    assert!(said[0].starts_with("I already work 2 cards"), "{said:?}");
    let opencode = kit.host.externals().opencode();
    let seats = cards
        .iter()
        .filter(|(room, task)| opencode.seat(&room.id, &coder, task).is_some())
        .count();
    assert_eq!(seats, 2, "two seats are open, one per card worked");
}

#[tokio::test(flavor = "multi_thread")]
async fn resource_bounds_the_two_card_limit_is_durable_across_dropped_seats() {
    let (kit, coder, cards) = coder_with_started_cards(3).await;
    let mut said = Vec::new();
    for (n, (room, _)) in cards.iter().enumerate() {
        if n == 2 {
            // The seats go as with a host restart: no process, no
            // in-memory count; the two cards' journals stay.
            kit.host.externals().opencode().stop_all();
        }
        kit.ok("send", json!({"roomId": room.id, "text": "@Coder go"}))
            .await;
        let lines = settled(&kit, room).await;
        let last = lines
            .iter()
            .rfind(|(a, kind, _)| *a == coder && kind != "claim");
        said.push(last.unwrap_or_else(|| panic!("{lines:#?}")).2.clone());
    }
    assert_eq!(said[..2], ["On it.", "On it."]);
    assert!(said[2].starts_with("I already work 2 cards"), "{said:?}");
    // A finished card frees its slot: the third card is worked then.
    kit.ok("task-cancel", json!({"id": cards[0].1})).await;
    kit.ok(
        "send",
        json!({"roomId": cards[2].0.id, "text": "@Coder go"}),
    )
    .await;
    let lines = settled(&kit, &cards[2].0).await;
    let last = lines.iter().rfind(|(a, _, _)| *a == coder).unwrap();
    assert_eq!(last.2, "On it.", "{lines:#?}");
}

#[tokio::test(flavor = "multi_thread")]
async fn completion_evidence_a_result_whose_tests_fail_is_said_and_the_card_stays_working() {
    let (kit, p) = coder_told(
        OpenCodeRuntime::Fake(vec![failing_slug_edit()]),
        "@Coder please fix slug.mjs",
    )
    .await;
    kit.until("the check is said", || {
        kit.room_lines(&p.room)
            .iter()
            .any(|line| line.kind == LineKind::Event)
    })
    .await;
    let lines = settled(&kit, &p.room).await;
    let said = lines.into_iter().find(|(_, kind, _)| kind == "event");
    let said = said.expect("the check was never said");
    assert_eq!(said.0, p.ada, "the card's own Bot checks: {said:?}");
    assert!(
        said.2.starts_with("The result did not verify for Ada"),
        "{said:?}"
    );
    assert_eq!(card(&kit, &p.task).await["status"], "working");
    let record: Value = evidence_record(&kit, &p);
    assert_eq!(record["verification"]["verified"], false, "{record}");
    assert_eq!(record["evidence"]["tests"]["passed"], false, "{record}");
}
