//! The face turn rule as a table: each row a line of a face room, the
//! local Bots that answered it already, and who speaks, in what order,
//! routed or not; then whole rounds run with `[PASS]` replies.

#![allow(clippy::unwrap_used)]
use super::*;
use crate::rooms::mentions::Named;
use crate::rooms::round::{Reply, SlotOutcome};

/// This home's Bots in the room: Ada, Bo (the lead, so the admin, #476),
/// Cy, Di, Ed, Flo, Gus.
fn setup(n: usize) -> Setup {
    let names = ["Ada", "Bo", "Cy", "Di", "Ed", "Flo", "Gus"];
    Setup {
        order: (0..n)
            .map(|i| Named::new(&format!("bot-{}", (b'a' + i as u8) as char), names[i]))
            .collect(),
        admin: Some("bot-b".into()),
        last_speaker: None,
    }
}

fn ids(list: &[&str]) -> Vec<String> {
    list.iter().map(|s| s.to_string()).collect()
}

struct Row {
    what: &'static str,
    line: FaceLine<'static>,
    answered: &'static [&'static str],
    speakers: &'static [&'static str],
    routed: bool,
}

const NONE: &[String] = &[];

fn check(bots: usize, rows: &[Row]) {
    let setup = setup(bots);
    for row in rows {
        let answered = ids(row.answered);
        let got = opening_speakers(&setup, row.line, &answered);
        assert_eq!(got.speakers, ids(row.speakers), "{}", row.what);
        assert_eq!(got.routed, row.routed, "{}: routed", row.what);
    }
}

#[test]
/// Rules #124, #167, #287, #295, #456, #475, #476.
fn who_opens_a_face_round_for_each_kind_of_line() {
    let calls_cy: &'static [String] = Box::leak(Box::new(ids(&["bot-c"])));
    let calls_theirs: &'static [String] = Box::leak(Box::new(ids(&["bot-zed"])));
    check(
        3,
        &[
            Row {
                what: "the owner's plain line opens no round here (#124)",
                line: FaceLine::Owner { text: "what next?" },
                answered: &[],
                speakers: &[],
                routed: false,
            },
            Row {
                what: "the owner's line that names a local Bot calls it (#124)",
                line: FaceLine::Owner {
                    text: "@Cy what next?",
                },
                answered: &[],
                speakers: &["bot-c"],
                routed: false,
            },
            Row {
                what: "a friend's attested plain line: the lead first, then the order (#167, #476)",
                line: FaceLine::Friend {
                    text: "what next?",
                    attested: true,
                    calls: NONE,
                },
                answered: &[],
                speakers: &["bot-b", "bot-a", "bot-c"],
                routed: true,
            },
            Row {
                what: "a friend's line the server does not attest stays quiet (#295)",
                line: FaceLine::Friend {
                    text: "what next?",
                    attested: false,
                    calls: NONE,
                },
                answered: &[],
                speakers: &[],
                routed: false,
            },
            Row {
                what: "a friend's line naming my Bot by handle calls only it (#295)",
                line: FaceLine::Friend {
                    text: "@Cy please",
                    attested: true,
                    calls: calls_cy,
                },
                answered: &[],
                speakers: &["bot-c"],
                routed: false,
            },
            Row {
                what: "a friend's bare @Cy naming their own Cy calls nobody here (#295)",
                line: FaceLine::Friend {
                    text: "@Cy please",
                    attested: true,
                    calls: calls_theirs,
                },
                answered: &[],
                speakers: &[],
                routed: false,
            },
            Row {
                what: "a friend's line to everyone is not routed",
                line: FaceLine::Friend {
                    text: "everyone, introduce yourselves",
                    attested: true,
                    calls: NONE,
                },
                answered: &[],
                speakers: &["bot-b", "bot-a", "bot-c"],
                routed: false,
            },
            Row {
                what: "a Bot that answered the line already is left out (#456)",
                line: FaceLine::Friend {
                    text: "what next?",
                    attested: true,
                    calls: NONE,
                },
                answered: &["bot-b"],
                speakers: &["bot-a", "bot-c"],
                routed: true,
            },
            Row {
                what: "my Bot's plain post starts nobody (#475)",
                line: FaceLine::LocalBot {
                    from: "bot-a",
                    text: "done with my part",
                },
                answered: &[],
                speakers: &[],
                routed: false,
            },
            Row {
                what: "my Bot's post starts only the Bots it names",
                line: FaceLine::LocalBot {
                    from: "bot-a",
                    text: "@Cy @Ada your turn",
                },
                answered: &[],
                speakers: &["bot-c"],
                routed: false,
            },
            Row {
                what: "another home's Bot's @all wakes none of mine (#475)",
                line: FaceLine::RemoteBot { calls: NONE },
                answered: &[],
                speakers: &[],
                routed: false,
            },
            Row {
                what: "another home's Bot wakes the local Bots it names",
                line: FaceLine::RemoteBot { calls: calls_cy },
                answered: &[],
                speakers: &["bot-c"],
                routed: false,
            },
        ],
    );
}

#[test]
/// Rules #167, #287.
fn a_plain_line_asks_at_most_six_local_bots() {
    let got = opening_speakers(
        &setup(7),
        FaceLine::Friend {
            text: "hello",
            attested: true,
            calls: NONE,
        },
        &[],
    );
    assert_eq!(got.speakers.len(), FACE_PLAIN_SPEAKERS);
    assert_eq!(got.speakers[0], "bot-b", "the lead first");
    assert!(!got.speakers.contains(&"bot-g".to_owned()));
}

/// Runs `round`, answering with `reply(bot)`; the turns taken, in order.
fn run(round: &mut Round, reply: impl Fn(&str) -> &'static str) -> Vec<String> {
    let mut seen = Vec::new();
    while let Some(call) = round.next_turn() {
        round.record(&call.bot_id, Reply::Line(reply(&call.bot_id)));
        seen.push(call.bot_id);
    }
    seen
}

fn outcomes(round: &Round) -> Vec<(String, SlotOutcome)> {
    round
        .slots
        .iter()
        .map(|s| (s.bot_id.clone(), s.outcome.unwrap()))
        .collect()
}

#[test]
/// Rules #299, #167.
fn a_routed_round_ends_at_the_first_answer_and_the_rest_pass_without_a_turn() {
    let line = FaceLine::Friend {
        text: "who can fix the build?",
        attested: true,
        calls: NONE,
    };
    let mut round = open_face_round(setup(3), line, &[]);
    let seen = run(&mut round, |bot| match bot {
        "bot-b" => "[PASS]",
        _ => "I can.",
    });
    assert_eq!(seen, ids(&["bot-b", "bot-a"]), "Cy gets no model call");
    assert_eq!(
        outcomes(&round),
        vec![
            ("bot-b".to_owned(), SlotOutcome::Passed),
            ("bot-a".to_owned(), SlotOutcome::Answered),
            ("bot-c".to_owned(), SlotOutcome::Skipped),
        ]
    );
    assert!(
        !round.fallback_due(),
        "a friend's line: their home answers it"
    );
}

#[test]
/// Rule #475.
fn another_homes_answer_ends_a_routed_round_here_too() {
    let line = FaceLine::Friend {
        text: "who can fix the build?",
        attested: true,
        calls: NONE,
    };
    let mut round = open_face_round(setup(3), line, &[]);
    let first = round.next_turn().unwrap();
    assert_eq!(first.bot_id, "bot-b");
    round.record("bot-b", Reply::Line("[PASS]"));
    // Carol's Bot answered on Carol's home while Bo was thinking.
    let named_mine = round.call_from_post("@carol:x/bot-z", "I fixed it.");
    assert!(!named_mine);
    assert_eq!(round.next_turn(), None, "Ada and Cy are not asked");
    let skipped = outcomes(&round)
        .into_iter()
        .filter(|(_, o)| *o == SlotOutcome::Skipped)
        .count();
    assert_eq!(skipped, 2);
}

#[test]
/// Rule #475.
fn a_line_to_everyone_is_not_cut_by_another_homes_answer() {
    let line = FaceLine::Friend {
        text: "everyone, introduce yourselves",
        attested: true,
        calls: NONE,
    };
    let mut round = open_face_round(setup(2), line, &[]);
    round.call_from_post("@carol:x/bot-z", "Hi, I am Zed.");
    let seen = run(&mut round, |_| "Hello.");
    assert_eq!(seen, ids(&["bot-b", "bot-a"]));
}
