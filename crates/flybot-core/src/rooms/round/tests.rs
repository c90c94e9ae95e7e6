//! Round planning tests: speaking order, routed and broadcast rounds, the
//! caps on calls inside a round, the fallback turn and the post guards.

#![allow(clippy::unwrap_used)]
use super::super::mentions::Named;
use super::super::{MAX_HOPS, ROOM_ADMIN_TURNS_EACH, ROOM_LATE_ROUNDS, ROOM_TURNS_EACH};
use super::*;

pub fn setup(n: usize) -> Setup {
    let names = ["Ada", "Bo", "Cy", "Di", "Ed", "Flo"];
    Setup {
        order: (0..n)
            .map(|i| Named::new(&format!("bot-{}", (b'a' + i as u8) as char), names[i]))
            .collect(),
        admin: Some("bot-b".into()),
        last_speaker: None,
    }
}

fn person(text: &str) -> Opener<'_> {
    Opener::Person {
        text,
        owner_line: true,
    }
}

/// Runs the round, answering with `reply(bot_id)`; returns the turns.
fn run(round: &mut Round, reply: impl Fn(&str, bool) -> String) -> Vec<String> {
    let mut seen = Vec::new();
    while let Some(call) = round.next_turn() {
        let text = reply(&call.bot_id, call.forced);
        round.record(&call.bot_id, Reply::Line(&text));
        seen.push(call.bot_id);
    }
    seen
}

#[test]
fn the_admin_speaks_first_then_the_room_order_and_a_routed_round_ends_after_the_first_answer() {
    let mut round = Round::open(setup(3), person("what do we build?"), 0);
    assert!(round.routed);
    let seen = run(&mut round, |id, _| {
        if id == "bot-b" {
            "[PASS]".into()
        } else {
            "we build X".into()
        }
    });
    assert_eq!(seen, vec!["bot-b", "bot-a"]);
    let skipped: Vec<_> = round
        .slots
        .iter()
        .filter(|s| s.outcome == Some(SlotOutcome::Skipped))
        .map(|s| s.bot_id.as_str())
        .collect();
    assert_eq!(skipped, vec!["bot-c"]);
}

#[test]
fn the_bot_that_spoke_last_is_asked_first_on_a_line_that_names_nobody() {
    let mut with_last = setup(3);
    with_last.last_speaker = Some("bot-c".into());
    let mut round = Round::open(with_last.clone(), person("and the tests?"), 0);
    // Cy passes; Bo, the admin, answers next and ends the routed round.
    let seen = run(&mut round, |id, _| {
        if id == "bot-c" {
            "[PASS]".into()
        } else {
            "on it".into()
        }
    });
    assert_eq!(seen, vec!["bot-c", "bot-b"]);
    // A line that names someone, or one to everyone, keeps its own order.
    let mut named = Round::open(with_last.clone(), person("@Ada and @Bo?"), 0);
    assert_eq!(run(&mut named, |_, _| "ok".into()), vec!["bot-b", "bot-a"]);
    let mut all = Round::open(with_last, person("@all status"), 0);
    assert_eq!(
        run(&mut all, |_, _| "ok".into()),
        vec!["bot-b", "bot-a", "bot-c"]
    );
}

#[test]
fn at_all_and_a_line_to_everyone_are_not_cut() {
    for text in ["@all status?", "everyone, introduce yourselves"] {
        let mut round = Round::open(setup(3), person(text), 0);
        assert!(round.broadcast);
        assert_eq!(
            run(&mut round, |_, _| "here".into()),
            vec!["bot-b", "bot-a", "bot-c"]
        );
    }
}

#[test]
fn at_name_calls_only_the_named_in_speaking_order() {
    let mut round = Round::open(setup(3), person("@Cy and @Ada please"), 0);
    assert_eq!(run(&mut round, |_, _| "ok".into()), vec!["bot-a", "bot-c"]);
    assert!(round.slots.iter().all(|s| s.addressed));
}

#[test]
fn fallback_due_forces_one_answer_when_everyone_passed_on_the_owners_line() {
    let mut round = Round::open(setup(3), person("hmm"), 0);
    let seen = run(&mut round, |_, forced| {
        if forced {
            "fine, here".into()
        } else {
            "[PASS]".into()
        }
    });
    assert_eq!(seen, vec!["bot-b", "bot-a", "bot-c", "bot-b"]);
    // A friend's attested line gets no fallback: their home answers it.
    let mut friend = Round::open(
        setup(3),
        Opener::Person {
            text: "hmm",
            owner_line: false,
        },
        0,
    );
    assert_eq!(run(&mut friend, |_, _| "[PASS]".into()).len(), 3);
}

#[test]
/// Rule #557.
fn room_turns_each_caps_calls_inside_the_round() {
    // Ada and Cy keep calling each other: each gets ROOM_TURNS_EACH.
    let mut round = Round::open(setup(3), person("@Ada start"), 0);
    let seen = run(&mut round, |id, _| match id {
        "bot-a" => "@Cy your turn".into(),
        _ => "@Ada back to you".into(),
    });
    assert_eq!(
        seen.iter().filter(|b| *b == "bot-a").count() as u32,
        ROOM_TURNS_EACH
    );
    assert_eq!(
        seen.iter().filter(|b| *b == "bot-c").count() as u32,
        ROOM_TURNS_EACH
    );
    assert!(round.dropped.iter().any(|(_, d)| *d == Dropped::Cap));
}

#[test]
/// Rule #804.
fn a_members_at_admin_is_never_dropped_by_the_cap() {
    // The admin (Bo) hands out parts; each member reports back with @Bo.
    let n = std::cell::Cell::new(0);
    let mut round = Round::open(setup(3), person("@Bo lead this"), 0);
    let seen = run(&mut round, |id, _| {
        if id == "bot-b" {
            n.set(n.get() + 1);
            if n.get() % 2 == 1 {
                "@Ada your part".into()
            } else {
                "@Cy your part".into()
            }
        } else {
            "@Bo done".into()
        }
    });
    let admin = seen.iter().filter(|b| *b == "bot-b").count() as u32;
    assert!(admin > ROOM_ADMIN_TURNS_EACH, "{seen:?}");
    assert_eq!(
        seen.iter().filter(|b| *b == "bot-a").count() as u32,
        ROOM_TURNS_EACH
    );
    assert!(
        round
            .dropped
            .iter()
            .any(|(id, d)| id == "bot-a" && *d == Dropped::Cap)
    );
}

#[test]
/// Rule #557.
fn the_admins_own_turns_are_capped_when_no_member_names_it() {
    // Bo is named by the person's line only: a member call of someone
    // else never raises Bo past its cap.
    let mut round = Round::open(setup(3), person("@Ada @Cy go"), 0);
    let seen = run(&mut round, |id, _| {
        if id == "bot-a" {
            "@Cy go on".into()
        } else {
            "@Ada go on".into()
        }
    });
    assert!(seen.iter().filter(|b| *b == "bot-b").count() == 0);
    assert!(seen.len() as u32 <= 2 * ROOM_TURNS_EACH);
}

#[test]
/// Rule #932.
fn a_bots_post_calls_the_members_it_names_inside_the_running_round() {
    let mut round = Round::open(setup(3), person("@Ada do it"), 0);
    let first = round.next_turn().unwrap();
    assert_eq!(first.bot_id, "bot-a");
    round.call_from_post("bot-a", "@Cy please check this, @Ada is me");
    round.record("bot-a", Reply::Line("[PASS]"));
    let next = round.next_turn().unwrap();
    assert_eq!(
        (next.bot_id.as_str(), next.by.as_deref()),
        ("bot-c", Some("bot-a"))
    );
    round.record("bot-c", Reply::Line("checked"));
    assert!(round.next_turn().is_none());
}

#[test]
/// Rule #932.
fn a_late_line_past_room_late_rounds_is_quiet_but_a_name_still_calls() {
    let quiet = Round::open(
        setup(3),
        Opener::Bot {
            from: "bot-a",
            text: "done here",
        },
        ROOM_LATE_ROUNDS,
    );
    assert!(quiet.queued().is_empty());
    let named = Round::open(
        setup(3),
        Opener::Bot {
            from: "bot-a",
            text: "@Cy over to you",
        },
        ROOM_LATE_ROUNDS,
    );
    assert_eq!(named.queued(), vec!["bot-c"]);
    let early = Round::open(
        setup(3),
        Opener::Bot {
            from: "bot-a",
            text: "done",
        },
        2,
    );
    assert_eq!(early.queued(), vec!["bot-b", "bot-c"]);
    assert!(Round::open(setup(3), Opener::Event, 0).queued().is_empty());
    assert_eq!(
        next_late_rounds(
            9,
            &Opener::Bot {
                from: "x",
                text: ""
            }
        ),
        10
    );
    assert_eq!(next_late_rounds(9, &person("hi")), 0);
}

#[test]
/// Rule #557.
fn a_bot_never_posts_into_the_room_it_speaks_in_and_max_hops_ends_a_chain() {
    assert_eq!(
        may_post(Some("room-1"), Some("room-1"), 0),
        Err(PostRefused::OwnRoom)
    );
    assert_eq!(may_post(Some("room-1"), Some("room-2"), 0), Ok(()));
    assert_eq!(may_post(None, None, MAX_HOPS), Err(PostRefused::Hops));
    assert_eq!(may_post(None, None, MAX_HOPS - 1), Ok(()));
}

#[test]
fn model_calls_per_line_in_a_six_bot_room_routed_is_one_all_is_six() {
    let mut routed = Round::open(setup(6), person("who can fix the build?"), 0);
    let calls = run(&mut routed, |_, _| "me".into()).len();
    assert_eq!(calls, 1);
    let mut all = Round::open(setup(6), person("@all status"), 0);
    assert_eq!(run(&mut all, |_, _| "ok".into()).len(), 6);
}

#[test]
/// Rule #557.
fn a_round_noted_mid_turn_comes_back_with_its_speaker_order_and_caps() {
    // Ada and Cy call each other until the per-member cap (#557) ends it;
    // the round is noted while Cy's first turn runs.
    let reply = |id: &str, _: bool| if id == "bot-a" { "@Cy you" } else { "@Ada you" }.to_string();
    let mut round = Round::open(setup(3), person("@Ada go"), 0);
    let first = round.next_turn().unwrap();
    round.record(&first.bot_id, Reply::Line(&reply(&first.bot_id, false)));
    let second = round.next_turn().unwrap();
    assert_eq!(second.bot_id, "bot-c");
    let noted = serde_json::to_string(&round).unwrap();
    let mut back: Round = serde_json::from_str(&noted).unwrap();
    assert_eq!(back, round);
    // The cut turn is the one that was running, and nothing else moved.
    assert_eq!(back.running_call(), Some(second.clone()));
    let said = reply(&second.bot_id, false);
    back.record(&second.bot_id, Reply::Line(&said));
    round.record(&second.bot_id, Reply::Line(&said));
    assert_eq!(run(&mut back, reply), run(&mut round, reply));
    assert_eq!(back, round);
    for id in ["bot-a", "bot-c"] {
        let turns = back.slots.iter().filter(|s| s.bot_id == id).count() as u32;
        assert_eq!(turns, ROOM_TURNS_EACH, "{id}");
    }
}

fn line_at(seq: u64, hop: u32) -> super::super::log::RoomLine {
    use super::super::log::{AuthorKind, LineKind, RoomLine};
    RoomLine {
        seq,
        author_id: "bot-1".to_owned(),
        author_kind: if hop == 0 {
            AuthorKind::Human
        } else {
            AuthorKind::LocalBot
        },
        kind: LineKind::Chat,
        text: format!("line {seq}"),
        at: seq,
        hop,
        attachments: Vec::new(),
    }
}

/// Rule #557: a member called mid-round by a Bot's post answers at that
/// post's hop, so a ping-pong between two rooms posts once per hop; lines
/// from before the round (a first look's window) do not count.
#[test]
fn a_member_turn_carries_the_deepest_hop_of_the_round_it_answers() {
    let opener = line_at(10, 0);
    // (the lines the turn shows, the hop it carries)
    let cases: [(Vec<_>, u32); 4] = [
        (vec![line_at(10, 0)], 0),
        (vec![line_at(10, 0), line_at(11, 1), line_at(12, 4)], 4),
        // An old chain at hop 6 before this round's opener.
        (vec![line_at(3, 6), line_at(10, 0), line_at(11, 2)], 2),
        // Only lines after the opener shown: the opener's hop still counts.
        (vec![line_at(11, 0)], 0),
    ];
    for (shown, hop) in cases {
        assert_eq!(turn_hop(&opener, &shown), hop, "{shown:?}");
    }
    let deep = line_at(10, 3);
    assert_eq!(
        turn_hop(&deep, &[line_at(11, 0)]),
        3,
        "the opener's own hop"
    );
}
