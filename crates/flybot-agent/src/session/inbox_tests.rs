//! The inbox's turn rule (issue 33, #420, #1266): a turn takes one
//! audience's lines, and a running turn admits its own audience's steers.

use super::*;

fn item(id: &str, source: Source, kind: ItemKind) -> InboxItem {
    InboxItem {
        id: id.to_owned(),
        text: format!("{id} says"),
        source,
        kind,
        attachments: Vec::new(),
    }
}

fn owner() -> Source {
    Source::User { member_id: None }
}

fn friend(home: &str, room: &str) -> Source {
    Source::Friend {
        home: home.to_owned(),
        room: room.to_owned(),
        event: format!("$event-{home}"),
        typed: true,
        first_contact: false,
    }
}

/// A request another Bot handed from `room` (#553).
fn handed(room: &str) -> Source {
    Source::Bot {
        bot_id: "sender".to_owned(),
        hops: 1,
        room_id: Some(room.to_owned()),
        origin: None,
    }
}

fn connector(chat: &str) -> Source {
    Source::Connector {
        connector: "feishu".to_owned(),
        chat: chat.to_owned(),
    }
}

fn ids(items: &[InboxItem]) -> Vec<&str> {
    items.iter().map(|i| i.id.as_str()).collect()
}

/// A case: its name, what is queued, and the ids each turn takes.
type Case = (&'static str, Vec<InboxItem>, Vec<Vec<&'static str>>);

/// Queues `queued` and opens turns until the inbox is empty: the ids each
/// turn took, in order.
fn turns(queued: Vec<InboxItem>) -> Vec<Vec<String>> {
    let mut inbox = Inbox::default();
    queued.into_iter().for_each(|i| inbox.push(i));
    let mut turns = Vec::new();
    while !inbox.is_empty() {
        let taken = inbox.take_turn();
        turns.push(ids(&taken).into_iter().map(str::to_owned).collect());
    }
    turns
}

#[test]
fn a_turn_takes_one_audiences_lines_and_the_next_turn_the_rest_33() {
    use ItemKind::NextTurn as N;
    let bob = || friend("@bob:hs", "!bob");
    let carol = || friend("@carol:hs", "!carol");
    let cases: Vec<Case> = vec![
        (
            "two friends in one sync",
            vec![item("b1", bob(), N), item("c1", carol(), N)],
            vec![vec!["b1"], vec!["c1"]],
        ),
        (
            "one friend's two lines",
            vec![
                item("b1", bob(), N),
                item("b2", bob(), N),
                item("c1", carol(), N),
            ],
            vec![vec!["b1", "b2"], vec!["c1"]],
        ),
        (
            "one friend in two rooms",
            vec![
                item("b1", bob(), N),
                item("b2", friend("@bob:hs", "!other"), N),
            ],
            vec![vec!["b1"], vec!["b2"]],
        ),
        (
            "the owner, then a friend",
            vec![
                item("o1", owner(), N),
                item("o2", Source::Host, N),
                item("b1", bob(), N),
            ],
            vec![vec!["o1", "o2"], vec!["b1"]],
        ),
        (
            "a friend, then the owner",
            vec![item("b1", bob(), N), item("o1", owner(), N)],
            vec![vec!["b1"], vec!["o1"]],
        ),
        (
            "two connector chats",
            vec![item("x1", connector("a"), N), item("x2", connector("b"), N)],
            vec![vec!["x1"], vec!["x2"]],
        ),
        (
            "work handed from two rooms, then the owner",
            vec![
                item("r1", handed("room-a"), N),
                item("r2", handed("room-b"), N),
                item("o1", owner(), N),
            ],
            vec![vec!["r1"], vec!["r2"], vec!["o1"]],
        ),
        (
            "the home's own lines stay one turn",
            vec![
                item("o1", owner(), N),
                item(
                    "s1",
                    Source::Schedule {
                        task_id: "t".into(),
                    },
                    N,
                ),
                item("o2", owner(), ItemKind::Steer),
            ],
            vec![vec!["o1", "s1", "o2"]],
        ),
    ];
    for (name, queued, want) in cases {
        let want: Vec<Vec<String>> = want
            .into_iter()
            .map(|t| t.into_iter().map(str::to_owned).collect())
            .collect();
        assert_eq!(turns(queued), want, "{name}");
    }
}

#[test]
fn a_running_turn_admits_only_its_own_audiences_steers_33() {
    let mut inbox = Inbox::default();
    inbox.push(item("o1", owner(), ItemKind::Steer));
    inbox.push(item("b1", friend("@bob:hs", "!bob"), ItemKind::Steer));
    inbox.push(item("o2", owner(), ItemKind::NextTurn));
    inbox.push(item("o3", owner(), ItemKind::Steer));

    let for_friend = inbox.take_steers(&friend("@bob:hs", "!bob"));
    assert_eq!(ids(&for_friend), ["b1"]);
    let for_carol = inbox.take_steers(&friend("@carol:hs", "!carol"));
    assert!(for_carol.is_empty());
    let for_owner = inbox.take_steers(&owner());
    assert_eq!(ids(&for_owner), ["o1", "o3"]);
    assert_eq!(ids(&inbox.take_turn()), ["o2"]);
    assert!(inbox.is_empty());
}
