//! What a room's member turn pays to read the team (issue 38), through
//! the store, on the bench's team with 20 of its cards in the room: a
//! whole copy of it, as rounds read it first; the room's view found by a
//! scan of every card (`round_view`), as they read it next; and the view
//! through the store's room index (`Store::read_room`), as they read it now.

use super::durable::{bench_team, micros};
use anyhow::Context;
use flybot_core::rooms::round_view::{round_view, round_view_of};
use flybot_protocol::state::{Room, TeamState};
use flybot_store::{Store, StoreOptions, atomic_write};
use std::path::Path;
use std::time::{Duration, Instant};

const READS: usize = 100;
const ROOM_CARDS: usize = 20;
const ROOM: &str = "room-bench";

/// Medians in microseconds, each read made in turn with the others.
pub struct RoundRead {
    pub whole_copy: u64,
    pub scanned_view: u64,
    pub indexed_view: u64,
}

/// Measures the three reads on a store opened in a new folder under `dir`.
pub async fn round_read(dir: &Path, tasks: usize) -> anyhow::Result<RoundRead> {
    let home = dir.join(format!("round-read-{tasks}"));
    std::fs::create_dir_all(&home)?;
    atomic_write(
        &home.join("state.json"),
        &serde_json::to_vec(&team_with_room(tasks))?,
    )?;
    let store = Store::open(&home, StoreOptions::default()).context("the bench's store")?;
    let (mut whole, mut scanned, mut indexed) = (vec![], vec![], vec![]);
    for _ in 0..READS {
        whole.push(timed(|| store.read(TeamState::clone)));
        scanned.push(timed(|| store.read(|team| round_view(team, ROOM))));
        indexed.push(timed(|| store.read_room(ROOM, round_view_of)));
    }
    anyhow::ensure!(
        store.read_room(ROOM, round_view_of) == store.read(|team| round_view(team, ROOM)),
        "the indexed view differs from the scanned one"
    );
    store.close().await?;
    Ok(RoundRead {
        whole_copy: micros(&mut whole, 50),
        scanned_view: micros(&mut scanned, 50),
        indexed_view: micros(&mut indexed, 50),
    })
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
