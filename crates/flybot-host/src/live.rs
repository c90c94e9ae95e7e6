//! `GET /api/bot/live`: server-sent events. A `revision` event carries the
//! revision at connect and after every accepted change; a `bot.created` event
//! announces a new Bot the actor can see.

use crate::events::HostEvent;
use crate::host::Host;
use crate::http::{Answer, caller_of};
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use flybot_core::access::{Actor, bot_visible};
use futures_util::StreamExt;
use std::convert::Infallible;
use std::time::Duration;
use tokio_stream::wrappers::{BroadcastStream, WatchStream};

pub async fn live(State(host): State<Host>, headers: HeaderMap) -> Response {
    let actor = match caller_of(&host, &headers).require() {
        Ok(actor) => actor.clone(),
        Err(refusal) => return Answer(Err(refusal)).into_response(),
    };
    let revisions = WatchStream::new(host.store().watch_revision()).map(|revision| {
        Some(
            Event::default()
                .event("revision")
                .data(format!("{{\"revision\":{revision}}}")),
        )
    });
    let events_host = host.clone();
    let both = futures_util::stream::select(
        BroadcastStream::new(host.subscribe()),
        BroadcastStream::new(host.subscribe_work()),
    );
    let events = both.map(move |event| match event {
        Ok(event) if visible(&events_host, &actor, &event) => serde_json::to_string(&event)
            .ok()
            .map(|data| Event::default().event(event.name()).data(data)),
        _ => None,
    });
    let bus = host.team().bus().clone();
    let stopped = Box::pin(async move { bus.stopped().await });
    let stream = futures_util::stream::select(revisions, events)
        .filter_map(|event| async move { event.map(Ok::<_, Infallible>) })
        .take_until(stopped);
    Sse::new(stream)
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response()
}

fn visible(host: &Host, actor: &Actor, event: &HostEvent) -> bool {
    match event {
        HostEvent::TasksWritten { task_ids } => host.store().read(|state| {
            task_ids.iter().any(|id| {
                state
                    .tasks
                    .get(id)
                    .is_some_and(|task| flybot_core::tasks::read::task_visible(state, actor, task))
            })
        }),
        HostEvent::Work { session_id } | HostEvent::TurnEnded { session_id, .. } => {
            host.store().read(|state| {
                // A Bot's own chat, or a room seat's Session in a room it sees.
                state
                    .bots
                    .values()
                    .any(|bot| bot.session_id == *session_id && bot_visible(state, actor, bot))
                    || state.rooms.values().any(|room| {
                        room.sessions.values().any(|s| s == session_id)
                            && flybot_core::access::room_visible(state, actor, room)
                    })
            })
        }
        HostEvent::RoundEnded { room_id } => host.store().read(|state| {
            state
                .rooms
                .get(room_id)
                .is_some_and(|room| flybot_core::access::room_visible(state, actor, room))
        }),
        HostEvent::BotCreated { bot_id, .. } => host.store().read(|state| {
            state
                .bots
                .get(bot_id)
                .is_some_and(|bot| bot_visible(state, actor, bot))
        }),
    }
}
