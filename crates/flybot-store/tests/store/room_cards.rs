//! A room's cards read through the store's room index (issue 38:
//! `Store::read_room`, what a round's member turn reads) are the cards a
//! scan of the whole board finds: after cards are added, moved between
//! rooms and removed, after a change its caller refused, after a reopen,
//! and on a standby that follows the leader.

use crate::engines::{Place, wait_until};
use crate::support::{OWNER, member};
use flybot_protocol::state::{Task, TaskStatus, TeamState};
use flybot_protocol::{ApiError, ErrorCode};
use flybot_store::Store;

const ROOMS: [&str; 3] = ["room-a", "room-b", "room-c"];

fn card(id: &str, room: Option<&str>) -> Task {
    Task {
        id: id.to_owned(),
        bot_id: "bot-a".to_owned(),
        title: format!("card {id}"),
        status: TaskStatus::Open,
        requester_id: Some(OWNER.to_owned()),
        room_id: room.map(str::to_owned),
        created_at: 1,
        updated_at: 1,
        extra: Default::default(),
    }
}

fn scanned(team: &TeamState, room: &str) -> Vec<String> {
    let mut ids: Vec<String> = team
        .tasks
        .values()
        .filter(|task| task.room_id.as_deref() == Some(room))
        .map(|task| task.id.clone())
        .collect();
    ids.sort();
    ids
}

/// Each room's cards by the index, and by a scan, with what was expected.
fn assert_rooms(store: &Store, expected: [&[&str]; 3]) {
    for (room, expected) in ROOMS.into_iter().zip(expected) {
        let indexed = store.read_room(room, |_, ids| ids.to_vec());
        assert_eq!(indexed, expected, "{room} by the index");
        assert_eq!(
            store.read(|team| scanned(team, room)),
            expected,
            "{room} by a scan"
        );
    }
}

async fn put(store: &Store, cards: &[Task]) {
    store
        .mutate("host", |change| {
            if !change.state().members.contains_key(OWNER) {
                change.put_member(&member(OWNER));
            }
            for card in cards {
                change.put_task(card);
            }
            Ok(())
        })
        .await
        .unwrap();
}

both_engines!(a_rooms_cards_by_the_index_are_the_cards_a_scan_finds);
async fn a_rooms_cards_by_the_index_are_the_cards_a_scan_finds(place: Place) {
    let store = place.open();
    assert_rooms(&store, [&[], &[], &[]]);
    put(
        &store,
        &[
            card("t1", Some("room-a")),
            card("t2", Some("room-a")),
            card("t3", Some("room-b")),
            card("t4", None),
        ],
    )
    .await;
    assert_rooms(&store, [&["t1", "t2"], &["t3"], &[]]);

    // A card moves to another room, one joins a room, one is removed.
    put(
        &store,
        &[card("t2", Some("room-b")), card("t4", Some("room-c"))],
    )
    .await;
    store
        .mutate("host", |change| {
            change.remove_task("t1");
            Ok(())
        })
        .await
        .unwrap();
    assert_rooms(&store, [&[], &["t2", "t3"], &["t4"]]);

    // A change refused part-way moves no card.
    let refused = store
        .mutate("host", |change| {
            change.put_task(&card("t3", Some("room-a")));
            Err::<(), _>(ApiError::new(ErrorCode::Invalid, "refused on purpose"))
        })
        .await;
    assert_eq!(refused.unwrap_err().code, ErrorCode::Invalid);
    assert_rooms(&store, [&[], &["t2", "t3"], &["t4"]]);

    // A standby (PostgreSQL) or a reader of the same home follows.
    let other = tempfile::tempdir().unwrap();
    let second = place.open_second(other.path());
    put(&store, &[card("t5", Some("room-a"))]).await;
    wait_until(|| second.read(|team| team.tasks.contains_key("t5"))).await;
    assert_rooms(&second, [&["t5"], &["t2", "t3"], &["t4"]]);
    second.close().await.unwrap();

    store.close().await.unwrap();
    let again = place.open();
    assert_rooms(&again, [&["t5"], &["t2", "t3"], &["t4"]]);
    again.close().await.unwrap();
}
