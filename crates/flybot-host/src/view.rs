//! The state view (`GET /api/bot/state`): the team narrowed to what the actor
//! may see (#49), with the `revision` that moves on every accepted change.
//! Credentials never leave the host: no token or code hash is in any view,
//! and the keys and connectors (`view_shared`) show by name and status.

use crate::HostConfig;
use crate::rooms::RoomLogs;
use crate::team::Team;
use flybot_agent::session::Sessions;
use flybot_core::access::{Actor, enforced, shared_blocked};
use flybot_core::rooms::group_questions;
use flybot_core::tasks::projects;
use flybot_core::tasks::read::Viewer;
use flybot_core::visibility::{
    bot_seen, grants_seen, narrow_bot_record, narrow_room_record, room_seen,
};
use flybot_protocol::answers::{
    ActorView, AuthSessionRow, InvitationRow, MemberRow, ModelView, ReadOnlyNote, StateView,
    TaskView,
};
use flybot_protocol::state::{Bot, Grant, Room, TeamState};
use flybot_protocol::{ApiError, ErrorCode};
use flybot_store::StoreStatus;
use serde_json::Value;
use std::collections::BTreeMap;

/// A Bot as the channel shows it to its owner.
pub fn bot_view(bot: &Bot) -> Value {
    let mut view = serde_json::to_value(bot).unwrap_or(Value::Null);
    if let Some(object) = view.as_object_mut() {
        object.insert("hidden".into(), bot.hidden.into());
    }
    view
}

/// A Bot as `actor` sees it: whole when its own, its public face when
/// another owner's (#53, `visibility::narrow_bot_record`).
fn bot_view_for(state: &TeamState, actor: &Actor, bot: &Bot) -> Value {
    let mut view = bot_view(bot);
    narrow_bot_record(state, actor, bot, &mut view);
    view
}

/// A room as the channel shows it.
pub fn room_view(room: &Room) -> Value {
    serde_json::to_value(room).unwrap_or(Value::Null)
}

/// The whole state answer, written straight from the typed view to bytes
/// (issue 38: no `serde_json::Value` tree of 10,000 cards is built and
/// dropped per read). The keys come out in the order the page always read
/// them: `ok` (the GET route's envelope), the view's fields, then
/// `automation` and `sandboxWarning`.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct StateAnswer<'a> {
    /// Written by the GET route, which answers without `Answer`'s envelope;
    /// left out for the POST `state` endpoint, whose envelope adds it.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    ok: bool,
    #[serde(flatten)]
    view: StateView<'a>,
    /// Automation tasks (#378) and the runs quiet hours held (#1166).
    automation: Value,
    /// Issue 30: the sandbox is off, or this kernel cannot give it.
    #[serde(skip_serializing_if = "Option::is_none")]
    sandbox_warning: Option<String>,
}

/// The view for `actor` as a JSON value, for the POST `state` endpoint.
pub async fn state_view(
    team: &Team,
    sessions: &Sessions,
    logs: &RoomLogs,
    config: &HostConfig,
    actor: &Actor,
    shared: crate::view_shared::SharedSurfaces<'_>,
) -> Result<Value, ApiError> {
    let parts = ViewParts {
        sessions,
        logs,
        config,
        actor,
    };
    with_answer(team, parts, shared, false, |answer| {
        serde_json::to_value(answer)
    })
    .await
}

/// The bytes of the GET answer, envelope included. The buffer starts at the
/// last answer's size, so a poll writes its bytes once, without regrowth.
pub async fn state_view_bytes(
    team: &Team,
    sessions: &Sessions,
    logs: &RoomLogs,
    config: &HostConfig,
    actor: &Actor,
    shared: crate::view_shared::SharedSurfaces<'_>,
) -> Result<Vec<u8>, ApiError> {
    use std::sync::atomic::{AtomicUsize, Ordering};
    static LAST_SIZE: AtomicUsize = AtomicUsize::new(4096);
    let parts = ViewParts {
        sessions,
        logs,
        config,
        actor,
    };
    let bytes = with_answer(team, parts, shared, true, |answer| {
        let mut bytes = Vec::with_capacity(LAST_SIZE.load(Ordering::Relaxed) + 1024);
        serde_json::to_writer(&mut bytes, answer)?;
        Ok(bytes)
    })
    .await?;
    LAST_SIZE.store(bytes.len(), Ordering::Relaxed);
    Ok(bytes)
}

/// What the view is drawn from besides the team.
struct ViewParts<'a> {
    sessions: &'a Sessions,
    logs: &'a RoomLogs,
    config: &'a HostConfig,
    actor: &'a Actor,
}

/// Builds the answer for `actor` under the team's read and hands it to
/// `write` there (the answer borrows the records); on a fresh home the
/// first call makes the first Main Bot (see `bootstrap`).
async fn with_answer<R>(
    team: &Team,
    parts: ViewParts<'_>,
    shared: crate::view_shared::SharedSurfaces<'_>,
    ok: bool,
    write: impl FnOnce(&StateAnswer<'_>) -> serde_json::Result<R>,
) -> Result<R, ApiError> {
    let ViewParts {
        sessions,
        logs,
        config,
        actor,
    } = parts;
    let default_model = config.models.default_model();
    crate::bootstrap::first_main_bot(team, &default_model).await?;
    let (secrets, connectors) = shared.rows(actor);
    let store = team.store();
    let read_only = match store.status() {
        StoreStatus::Writer => None,
        StoreStatus::ReadOnly(reason) => Some(ReadOnlyNote {
            message: crate::http::read_only_sentence(&reason),
        }),
    };
    store.read(|state| {
        let mut view = narrowed(state, actor, &default_model, &config.models);
        view.revision = store.revision();
        view.work = crate::turns::work_view(sessions, state, actor);
        view.work["rooms"] = speakers_view(logs, sessions, state, actor);
        view.read_only = read_only;
        view.secrets = secrets;
        view.connectors = connectors;
        let answer = StateAnswer {
            ok,
            view,
            automation: crate::schedules::book::automation_view(
                state,
                actor,
                config.automation_tasks,
            ),
            sandbox_warning: flybot_sandbox::standing_warning(),
        };
        write(&answer).map_err(|e| {
            ApiError::new(
                ErrorCode::Unavailable,
                format!("The state view could not be written as JSON ({e}); try again."),
            )
        })
    })
}

/// The unfinished cards `actor` may open, each with the moves the actor
/// may make on it (issue 31), and how many finished ones there are.
/// Finished cards stay out of the view, which clients poll: on a team with
/// 10,000 tasks they are most of its bytes. The board's `tasks {archive:
/// true}` reads them. The one card predicate (#1723): a Bot seen through a
/// shared room does not open its owner's cards.
fn cards<'a>(state: &'a TeamState, actor: &Actor) -> (Vec<TaskView<'a>>, usize) {
    let viewer = Viewer::new(state, actor);
    let mut open = Vec::new();
    let mut finished = 0;
    for task in state.tasks.values() {
        if !viewer.may_open(state, actor, task) {
            continue;
        }
        if task.status.is_terminal() {
            finished += 1;
        } else {
            open.push(TaskView {
                task: task.into(),
                moves: flybot_core::tasks::moves::moves_for(task, actor, state),
            });
        }
    }
    (open, finished)
}

/// The team's records `actor` may see; the caller adds the revision, the
/// work and the read-only note.
fn narrowed<'a>(
    state: &'a TeamState,
    actor: &Actor,
    default_model: &'a str,
    models: &'a flybot_agent::model::config::ProviderRegistry,
) -> StateView<'a> {
    let me = actor.member_id(state);
    let visible_bot = |id: &String| {
        state
            .bots
            .get(id)
            .is_some_and(|b| !b.run && bot_seen(state, actor, b))
    };
    let (tasks, finished_tasks) = cards(state, actor);
    let single = !shared_blocked(state);
    StateView {
        version: state.version,
        actor: ActorView {
            member_id: me.clone(),
            single_owner: matches!(actor, Actor::SingleOwner),
            shared_surfaces: flybot_core::shared_surfaces::shared_surface_access(state, actor),
        },
        // Offline: the default model runs on the built-in mock (a fresh home).
        model: ModelView {
            default: default_model,
            offline: models.runs_offline(default_model),
            // The configured models, for a page's model picker (issue 12).
            names: models.names(),
        },
        members: by_creation(state.members.values(), |m| (m.created_at, m.id.clone()))
            .into_iter()
            .map(|m| MemberRow {
                id: &m.id,
                name: &m.name,
                created_at: m.created_at,
            })
            .collect(),
        bots: visible_bots(state, actor),
        main_bot_ids: state
            .main_bot_ids
            .iter()
            .filter(|id| visible_bot(id))
            .collect(),
        designated_chief_id: state
            .designated_chief_id
            .as_ref()
            .filter(|id| visible_bot(id)),
        rooms: visible_rooms(state, actor),
        tasks,
        finished_tasks,
        grants: visible_grants(state, actor),
        prefs: if single {
            state.prefs.clone()
        } else {
            Default::default()
        },
        projects: projects::visible(state, actor).collect(),
        invitations: state
            .invitations
            .values()
            .filter(|i| !enforced(state) || (i.invited_by.is_some() && i.invited_by == me))
            .map(|i| InvitationRow {
                id: &i.id,
                name: i.name.as_deref(),
                member_id: i.member_id.as_deref(),
                status: i.status,
                created_at: i.created_at,
            })
            .collect(),
        questions: state
            .questions
            .iter()
            .filter(|(room, q)| group_questions::may_see(state, actor, room, q))
            .collect(),
        auth_sessions: state
            .auth_sessions
            .values()
            .filter(|s| Some(&s.member_id) == me.as_ref())
            .map(|s| AuthSessionRow {
                id: &s.id,
                member_id: &s.member_id,
                created_at: s.created_at,
            })
            .collect(),
        secrets: Vec::new(),
        connectors: Vec::new(),
        revision: 0,
        work: Value::Null,
        read_only: None,
    }
}

/// The Bots `actor` may see, oldest first; run Bots never show.
fn visible_bots(state: &TeamState, actor: &Actor) -> Vec<Value> {
    let bots = state
        .bots
        .values()
        .filter(|b| !b.run && bot_seen(state, actor, b));
    by_creation(bots, |b| (b.created_at, b.id.clone()))
        .into_iter()
        .map(|bot| {
            let mut view = bot_view_for(state, actor, bot);
            if flybot_core::access::may_manage_bot(actor, bot) {
                note_friend_line(state, bot, &mut view);
            }
            view
        })
        .collect()
}

/// #420: when a friend's line last reached `bot` (in any of its rooms with
/// a friend), published in the roster to whoever manages the Bot, so a
/// window that keeps polling sees it; absent until one has.
fn note_friend_line(state: &TeamState, bot: &Bot, view: &mut Value) {
    let last = state
        .social
        .rooms
        .values()
        .filter(|room| room.side == flybot_protocol::social::RoomSide::Mine && room.bot == bot.id)
        .filter_map(|room| room.friend_line_at)
        .max();
    if let (Some(at), Some(object)) = (last, view.as_object_mut()) {
        object.insert("friendLineAt".into(), at.into());
    }
}

/// Per Bot the actor sees (run Bots never show), the grants it sees of
/// them (`visibility::grants_seen`); a Bot with none it sees is left out.
fn visible_grants<'a>(state: &'a TeamState, actor: &Actor) -> BTreeMap<&'a String, Vec<&'a Grant>> {
    state
        .grants
        .iter()
        .filter_map(|(id, grants)| {
            let bot = state
                .bots
                .get(id)
                .filter(|b| !b.run && bot_seen(state, actor, b))?;
            Some((id, grants_seen(state, actor, bot, grants)))
        })
        .filter(|(_, grants)| !grants.is_empty())
        .collect()
}

/// The rooms `actor` may see, oldest first.
fn visible_rooms(state: &TeamState, actor: &Actor) -> Vec<Value> {
    let rooms = state.rooms.values().filter(|r| room_seen(state, actor, r));
    by_creation(rooms, |r| (r.created_at, r.id.clone()))
        .into_iter()
        .map(|room| {
            let mut view = room_view(room);
            narrow_room_record(actor, &mut view);
            view
        })
        .collect()
}

/// The rooms with a round running that the actor sees, and who speaks in
/// each now: `{roomId: {botId, sessionId}}` (both null between turns), with
/// the speaking member's turn, its step (#546) and its tool-call count
/// while above 0 (#471): the room's own count, never summed with the
/// member's own chat.
fn speakers_view(
    logs: &RoomLogs,
    sessions: &flybot_agent::session::Sessions,
    state: &TeamState,
    actor: &Actor,
) -> Value {
    let running = sessions.running_work();
    let rooms: serde_json::Map<String, Value> = logs
        .speakers()
        .into_iter()
        .filter(|(room_id, _)| {
            state
                .rooms
                .get(room_id)
                .is_some_and(|room| room_seen(state, actor, room))
        })
        .map(|(room_id, speaking)| {
            let (bot_id, session_id) = speaking.unzip();
            let mut entry = serde_json::json!({"botId": bot_id, "sessionId": session_id});
            let work = running
                .iter()
                .find(|w| Some(&w.session_id) == session_id.as_ref());
            if let (Some(work), Some(object)) = (work, entry.as_object_mut()) {
                object.insert("turnId".into(), work.turn_id.clone().into());
                if let Some(step) = &work.step {
                    object.insert("step".into(), step.clone().into());
                }
                if work.calls > 0 {
                    object.insert("calls".into(), work.calls.into());
                }
            }
            (room_id, entry)
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

#[cfg(test)]
#[path = "view_tests.rs"]
mod tests;
