//! The state view (`GET /api/bot/state`): the team narrowed to what the actor
//! may see (#49), with the `revision` that moves on every accepted change.
//! Credentials never leave the host: no token or code hash is in any view.

use crate::HostConfig;
use crate::rooms::RoomLogs;
use crate::team::Team;
use flybot_agent::session::Sessions;
use flybot_core::access::{Actor, bot_visible, enforced, room_visible, shared_blocked};
use flybot_protocol::ApiError;
use flybot_protocol::state::{Bot, Room, TeamState};
use flybot_store::StoreStatus;
use serde_json::{Value, json};

/// A Bot as the channel shows it.
pub fn bot_view(bot: &Bot) -> Value {
    let mut view = serde_json::to_value(bot).unwrap_or(Value::Null);
    if let Some(object) = view.as_object_mut() {
        object.insert("hidden".into(), bot.hidden.into());
    }
    view
}

/// A room as the channel shows it.
pub fn room_view(room: &Room) -> Value {
    serde_json::to_value(room).unwrap_or(Value::Null)
}

/// The view for `actor`; on a fresh home the first call makes the first Main
/// Bot (see `bootstrap`).
pub async fn state_view(
    team: &Team,
    sessions: &Sessions,
    logs: &RoomLogs,
    config: &HostConfig,
    actor: &Actor,
) -> Result<Value, ApiError> {
    crate::bootstrap::first_main_bot(team, &config.default_model).await?;
    let store = team.store();
    let read_only = match store.status() {
        StoreStatus::Writer => Value::Null,
        StoreStatus::ReadOnly(reason) => {
            json!({"message": crate::http::read_only_sentence(&reason)})
        }
    };
    Ok(store.read(|state| {
        let mut view = narrowed(state, actor, &config.default_model, &config.models);
        if let Some(object) = view.as_object_mut() {
            object.insert("revision".into(), store.revision().into());
            let mut work = crate::turns::work_view(sessions, state, actor);
            work["rooms"] = speakers_view(logs, state, actor);
            object.insert("work".into(), work);
            object.insert("readOnly".into(), read_only);
        }
        view
    }))
}

fn narrowed(
    state: &TeamState,
    actor: &Actor,
    default_model: &str,
    models: &flybot_agent::model::config::ProviderRegistry,
) -> Value {
    let me = actor.member_id(state);
    let bots: Vec<Value> = by_creation(
        state
            .bots
            .values()
            .filter(|b| !b.run && bot_visible(state, actor, b)),
        |b| (b.created_at, b.id.clone()),
    )
    .into_iter()
    .map(bot_view)
    .collect();
    let rooms: Vec<Value> = by_creation(
        state
            .rooms
            .values()
            .filter(|r| room_visible(state, actor, r)),
        |r| (r.created_at, r.id.clone()),
    )
    .into_iter()
    .map(room_view)
    .collect();
    let visible_bot = |id: &String| {
        state
            .bots
            .get(id)
            .is_some_and(|b| !b.run && bot_visible(state, actor, b))
    };
    // Finished cards stay out of the view, which clients poll: on a team
    // with 10,000 tasks they are most of its bytes. The board's `tasks
    // {archive: true}` reads them.
    let (tasks, finished): (Vec<&flybot_protocol::state::Task>, Vec<_>) = state
        .tasks
        .values()
        .filter(|t| visible_bot(&t.bot_id) || t.requester_id.as_ref() == me.as_ref())
        .partition(|t| !t.status.is_terminal());
    let grants: serde_json::Map<String, Value> = state
        .grants
        .iter()
        .filter(|(bot, _)| visible_bot(bot))
        .map(|(bot, list)| {
            (
                bot.clone(),
                serde_json::to_value(list).unwrap_or(Value::Null),
            )
        })
        .collect();
    let members: Vec<Value> = by_creation(state.members.values(), |m| (m.created_at, m.id.clone()))
        .into_iter()
        .map(|m| json!({"id": m.id, "name": m.name, "createdAt": m.created_at}))
        .collect();
    let invitations: Vec<Value> = state
        .invitations
        .values()
        .filter(|i| !enforced(state) || (i.invited_by.is_some() && i.invited_by == me))
        .map(|i| json!({"id": i.id, "name": i.name, "memberId": i.member_id, "status": i.status, "createdAt": i.created_at}))
        .collect();
    let sessions: Vec<Value> = state
        .auth_sessions
        .values()
        .filter(|s| Some(&s.member_id) == me.as_ref())
        .map(|s| json!({"id": s.id, "memberId": s.member_id, "createdAt": s.created_at}))
        .collect();
    let single = !shared_blocked(state);
    json!({
        "version": state.version,
        "actor": {
            "memberId": me,
            "singleOwner": matches!(actor, Actor::SingleOwner),
        },
        // Offline: the default model runs on the built-in mock (a fresh home).
        // The configured models, for a page's model picker (issue 12).
        "model": {
            "default": default_model,
            "offline": models.runs_offline(default_model),
            "names": models.names().collect::<Vec<_>>(),
        },
        "members": members,
        "bots": bots,
        "mainBotIds": state.main_bot_ids.iter().filter(|id| visible_bot(id)).collect::<Vec<_>>(),
        "designatedChiefId": state.designated_chief_id.as_ref().filter(|id| visible_bot(id)),
        "rooms": rooms,
        "tasks": tasks,
        "finishedTasks": finished.len(),
        "grants": grants,
        "prefs": if single { serde_json::to_value(&state.prefs).unwrap_or(Value::Null) } else { json!({}) },
        "projects": state.projects.values().collect::<Vec<_>>(),
        "invitations": invitations,
        "authSessions": sessions,
    })
}

/// The rooms with a round running that the actor sees, and who speaks in
/// each now: `{roomId: {botId, sessionId}}` (both null between turns).
fn speakers_view(logs: &RoomLogs, state: &TeamState, actor: &Actor) -> Value {
    let rooms: serde_json::Map<String, Value> = logs
        .speakers()
        .into_iter()
        .filter(|(room_id, _)| {
            state
                .rooms
                .get(room_id)
                .is_some_and(|room| room_visible(state, actor, room))
        })
        .map(|(room_id, speaking)| {
            let (bot_id, session_id) = speaking.unzip();
            (room_id, json!({"botId": bot_id, "sessionId": session_id}))
        })
        .collect();
    Value::Object(rooms)
}

fn by_creation<'a, T, K: Ord>(
    items: impl Iterator<Item = &'a T>,
    key: impl Fn(&T) -> K,
) -> Vec<&'a T>
where
    T: 'a,
{
    let mut items: Vec<&T> = items.collect();
    items.sort_by_key(|item| key(item));
    items
}
