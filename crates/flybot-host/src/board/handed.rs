//! Work handed out from a group, in the work view (#553): each Bot's live
//! cards of a room (open, claimed, working, or waiting), so that group can
//! show the work as its own while other rooms and the Bot's own-chat work
//! stay apart. Only Bots the actor manages are listed, like the rest of the
//! owner-only work view; a running turn of a Bot working such a card
//! carries `fromRoomId`.

use flybot_protocol::state::{Bot, TaskStatus, TeamState};
use flybot_protocol::task::TaskFields;
use serde_json::{Map, Value, json};

fn live(status: TaskStatus) -> bool {
    matches!(
        status,
        TaskStatus::Open | TaskStatus::Claimed | TaskStatus::Working | TaskStatus::Blocked
    )
}

/// Bot id → its handed-out room cards, oldest first.
pub fn handed_out(state: &TeamState, may_see: impl Fn(&Bot) -> bool) -> Map<String, Value> {
    let mut by_bot: Map<String, Value> = Map::new();
    let mut cards: Vec<_> = state
        .tasks
        .values()
        .filter(|t| t.room_id.is_some() && live(t.status))
        .filter(|t| state.bots.get(&t.bot_id).is_some_and(&may_see))
        .collect();
    cards.sort_by(|a, b| (a.created_at, &a.id).cmp(&(b.created_at, &b.id)));
    for task in cards {
        let f = TaskFields::read(task);
        let card = json!({
            "taskId": task.id,
            "title": task.title,
            "roomId": task.room_id,
            "status": task.status,
            "waitingFor": f.waiting_for,
        });
        if let Some(list) = by_bot
            .entry(task.bot_id.clone())
            .or_insert_with(|| json!([]))
            .as_array_mut()
        {
            list.push(card);
        }
    }
    by_bot
}

/// The room whose handed-out card the Bot is working, if any.
pub fn from_room(handed: &Map<String, Value>, bot_id: &str) -> Option<String> {
    handed.get(bot_id)?.as_array()?.iter().find_map(|card| {
        (card["status"] == json!(TaskStatus::Working))
            .then(|| card["roomId"].as_str().map(str::to_owned))
            .flatten()
    })
}
