//! What a room's member turn pays to read the team (issue 38): a whole
//! copy of it, as rounds read it before, against the room's view
//! (`round_view`: every record but other rooms' cards), on the bench's
//! team with 20 of its cards in the room.

use super::durable::{bench_team, micros};
use flybot_core::rooms::round_view::round_view;
use flybot_protocol::state::{Room, TeamState};
use std::time::{Duration, Instant};

const READS: usize = 100;
const ROOM_CARDS: usize = 20;
const ROOM: &str = "room-bench";

/// Medians in microseconds: the whole copy, then the room's view.
pub fn round_read(tasks: usize) -> (u64, u64) {
    let team = team_with_room(tasks);
    let mut whole = Vec::with_capacity(READS);
    let mut view = Vec::with_capacity(READS);
    for _ in 0..READS {
        whole.push(timed(|| team.clone()));
        view.push(timed(|| round_view(&team, ROOM)));
    }
    (micros(&mut whole, 50), micros(&mut view, 50))
}

fn timed(read: impl Fn() -> TeamState) -> Duration {
    let started = Instant::now();
    let copy = read();
    let took = started.elapsed();
    drop(std::hint::black_box(copy));
    took
}

fn team_with_room(tasks: usize) -> TeamState {
    let mut team = bench_team(tasks);
    let members: Vec<String> = team.bots.keys().take(6).cloned().collect();
    team.rooms.insert(
        ROOM.to_owned(),
        Room {
            id: ROOM.to_owned(),
            name: "Bench".to_owned(),
            owner_id: "member-0000000000000001".to_owned(),
            members,
            admin: None,
            participants: vec![],
            sessions: Default::default(),
            created_at: 1,
            updated_at: 1,
            extra: Default::default(),
        },
    );
    for task in team.tasks.values_mut().take(ROOM_CARDS) {
        task.room_id = Some(ROOM.to_owned());
    }
    team
}
