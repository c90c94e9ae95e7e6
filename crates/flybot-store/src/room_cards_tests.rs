use super::*;
use flybot_protocol::state::{Task, TaskStatus};

fn card(id: &str, room: Option<&str>) -> Task {
    Task {
        id: id.to_owned(),
        bot_id: "bot-a".to_owned(),
        title: id.to_owned(),
        status: TaskStatus::Open,
        requester_id: None,
        room_id: room.map(str::to_owned),
        created_at: 1,
        updated_at: 1,
        extra: Default::default(),
    }
}

fn team_at(seq: u64, cards: &[Task]) -> TeamState {
    let mut team = TeamState {
        journal_seq: seq,
        journal_digest: Some(format!("digest-{seq}")),
        ..TeamState::default()
    };
    for card in cards {
        team.tasks.insert(card.id.clone(), card.clone());
    }
    team
}

fn set(id: &str) -> Op<()> {
    Op::Set {
        key: vec!["tasks".to_owned(), id.to_owned()],
        next: (),
    }
}

#[test]
fn a_change_it_follows_moves_the_card_and_one_it_missed_builds_it_again() {
    let mut cards = RoomCards::default();
    let team = team_at(1, &[card("t1", Some("a")), card("t2", None)]);
    assert_eq!(cards.of(&team, "a"), ["t1"]);

    // Followed: t1 moves to b, t2 joins a.
    let moved = team_at(2, &[card("t1", Some("b")), card("t2", Some("a"))]);
    cards.follow(&moved, cards.stands_for(&team), &[set("t1"), set("t2")]);
    assert_eq!(cards.stamp, Some(stamp_of(&moved)));
    assert_eq!(cards.of(&moved, "a"), ["t2"]);
    assert_eq!(cards.of(&moved, "b"), ["t1"]);

    // A change made while the index stood elsewhere leaves it behind; the
    // next read builds it from the team.
    let removed = team_at(4, &[card("t2", Some("a"))]);
    cards.follow(&removed, cards.stands_for(&team), &[set("t1")]);
    assert_eq!(cards.stamp, Some(stamp_of(&moved)), "not followed");
    assert_eq!(cards.of(&removed, "b"), Vec::<String>::new());
    assert_eq!(cards.of(&removed, "a"), ["t2"]);
    assert_eq!(cards.stamp, Some(stamp_of(&removed)));
}

#[test]
fn the_whole_board_set_at_once_is_built_again() {
    let mut cards = RoomCards::default();
    let team = team_at(1, &[card("t1", Some("a"))]);
    assert_eq!(cards.of(&team, "a"), ["t1"]);
    let replaced = team_at(2, &[card("t9", Some("a"))]);
    let whole = Op::Set {
        key: vec!["tasks".to_owned()],
        next: (),
    };
    cards.follow(&replaced, cards.stands_for(&team), &[whole]);
    assert_eq!(cards.stamp, None);
    assert_eq!(cards.of(&replaced, "a"), ["t9"]);
}
