//! `GET /api/bot/live`: server-sent events, each with an id
//! `<epoch>.<n>` from the live feed. A connection opens with `hello {epoch,
//! revision, resumed}`; a browser that reconnects sends `Last-Event-ID` and
//! is handed what it missed, or `resync` when the feed cannot (the host
//! restarted, or the gap is older than the feed keeps). Then: `revision`,
//! the bus's events (`bot.created`, `tasks.written`, `work`, `turn.ended`,
//! `round.ended`, `text.delta`, `room.line`, `presence`) and the approvals'
//! (`approval.asked`, `approval.answered`), each only where the actor may
//! see what it names (`visible`).

mod approvals_waiting;
pub mod drafts;
pub mod feed;
mod visible;

use crate::host::Host;
use crate::http::Answer;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use feed::{Entry, FeedItem, LiveFeed};
use flybot_core::access::Actor;
use futures_util::StreamExt;
use serde_json::json;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;
use tokio_stream::wrappers::BroadcastStream;

pub async fn live(State(host): State<Host>, headers: HeaderMap) -> Response {
    let actor = match crate::http::admit(&host, &headers).await.require() {
        Ok(actor) => actor.clone(),
        Err(refusal) => return Answer(Err(refusal)).into_response(),
    };
    let feed = host.live_feed().clone();
    let last = headers
        .get("last-event-id")
        .and_then(|v| v.to_str().ok())
        .map(str::trim)
        .filter(|v| !v.is_empty());
    let resume = feed.resume(last);
    let member = host
        .store()
        .read(|state| actor.member_id(state))
        .unwrap_or_else(|| "owner".to_owned());
    let page = feed.present(&member);
    let revision = host.store().revision();
    let mut opening = vec![hello(&feed, revision, resume.resumed, last.is_some())];
    if !resume.resumed {
        opening.push(Event::default().event("resync").data("{}"));
    }
    if !resume.resumed || last.is_none() {
        opening.push(revision_event(revision));
    }
    // What the feed sent after the page subscribed, less what `missed` held.
    let seen = resume.missed.last().map_or(resume.at, |e| e.id);
    let missed = futures_util::stream::iter(resume.missed.into_iter().map(Ok));
    let next = BroadcastStream::new(resume.next)
        .map(|entry| entry.map_err(|_lagged| ()))
        .filter(move |entry| std::future::ready(!matches!(entry, Ok(e) if e.id <= seen)));
    let (host_, feed_) = (host.clone(), feed.clone());
    let events = missed.chain(next).filter_map(move |entry| {
        let event = match entry {
            Ok(entry) => to_event(&host_, &feed_, &actor, &entry),
            Err(()) => Some(Event::default().event("resync").data("{}")),
        };
        let _open = &page;
        async move { event }
    });
    let bus = host.team().bus().clone();
    let stopped = Box::pin(async move { bus.stopped().await });
    let stream = futures_util::stream::iter(opening)
        .chain(events)
        .map(Ok::<_, Infallible>)
        .take_until(stopped);
    Sse::new(stream)
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15)))
        .into_response()
}

/// The first event: where the feed is; it carries an id only when the page
/// starts afresh (a resumed page keeps its own last id until the missed
/// entries arrive).
fn hello(feed: &LiveFeed, revision: u64, resumed: bool, reconnected: bool) -> Event {
    let data =
        json!({"epoch": feed.epoch(), "revision": revision, "resumed": resumed && reconnected});
    let event = Event::default().event("hello").data(data.to_string());
    if resumed && reconnected {
        event
    } else {
        event.id(format!("{}.{}", feed.epoch(), feed.last_id()))
    }
}

fn revision_event(revision: u64) -> Event {
    Event::default()
        .event("revision")
        .data(format!("{{\"revision\":{revision}}}"))
}

fn to_event(host: &Host, feed: &LiveFeed, actor: &Actor, entry: &Arc<Entry>) -> Option<Event> {
    let event = match &entry.item {
        FeedItem::Revision(revision) => revision_event(*revision),
        FeedItem::Resync => Event::default().event("resync").data("{}"),
        FeedItem::Event(event) => {
            let data = host.store().read(|state| {
                visible::narrowed(state, actor, event)
                    .and_then(|shown| serde_json::to_string(&*shown).ok())
            })?;
            Event::default().event(event.name()).data(data)
        }
    };
    Some(event.id(format!("{}.{}", feed.epoch(), entry.id)))
}
