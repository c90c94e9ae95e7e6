//! Shared builders for the store's integration tests.

use flybot_protocol::state::{Bot, Member, Room, TeamState};
use flybot_store::{Store, StoreOptions};
use std::path::Path;
use std::time::Duration;

pub const OWNER: &str = "member-00000000000000aa";

/// Options with background work pushed out of the way: tests snapshot on purpose.
pub fn options() -> StoreOptions {
    StoreOptions {
        snapshot_after: Duration::from_secs(3600),
        heartbeat_every: Duration::from_secs(3600),
        ..StoreOptions::default()
    }
}

pub fn member(id: &str) -> Member {
    Member {
        id: id.to_owned(),
        name: "Ada".to_owned(),
        created_at: 1,
        extra: Default::default(),
    }
}

pub fn bot(id: &str, owner: &str) -> Bot {
    Bot::new(
        id,
        format!("Bot {id}"),
        owner,
        "mock",
        format!("session-{id}"),
        1,
    )
}

pub fn room(id: &str, members: &[&str]) -> Room {
    Room {
        id: id.to_owned(),
        name: format!("Room {id}"),
        owner_id: OWNER.to_owned(),
        members: members.iter().map(|m| (*m).to_owned()).collect(),
        admin: members.first().map(|m| (*m).to_owned()),
        participants: Vec::new(),
        sessions: Default::default(),
        created_at: 1,
        updated_at: 1,
        extra: Default::default(),
    }
}

/// Adds the owner (once) and one Bot of theirs.
pub async fn add_bot(store: &Store, id: &str) {
    store
        .mutate("host", |change| {
            if !change.state().members.contains_key(OWNER) {
                change.put_member(&member(OWNER));
            }
            change.put_bot(&bot(id, OWNER));
            Ok(())
        })
        .await
        .unwrap();
}

pub fn bot_ids(store: &Store) -> Vec<String> {
    store.read(|team| team.bots.keys().cloned().collect())
}

pub fn read(path: &Path) -> Vec<u8> {
    std::fs::read(path).unwrap()
}

pub fn pretty(team: &TeamState) -> Vec<u8> {
    serde_json::to_vec_pretty(team).unwrap()
}

/// Copies the home's data files (not the lock), as a crash would leave them.
pub fn copy_home(from: &Path, to: &Path) {
    for name in ["state.json", "journal.jsonl"] {
        std::fs::copy(from.join(name), to.join(name)).unwrap();
    }
}
