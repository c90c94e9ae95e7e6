//! The live stream as a page reads it: `GET /api/bot/live` through the
//! router, its server-sent events parsed into name, data and id, with
//! `Last-Event-ID` for a reconnect and awaits on the next matching event.

use crate::{Caller, Kit};
use axum::body::Body;
use axum::http::Request;
use futures_util::StreamExt;
use futures_util::stream::BoxStream;
use serde_json::Value;
use tower::ServiceExt;

/// One server-sent event.
#[derive(Debug, Clone, PartialEq)]
pub struct LiveEvent {
    pub name: String,
    pub data: Value,
    /// The event's id, when it carries one.
    pub id: Option<String>,
}

/// An open live stream.
pub struct Live<'k> {
    kit: &'k Kit,
    body: BoxStream<'static, Result<axum::body::Bytes, axum::Error>>,
    buffer: String,
    /// The newest id seen, as a browser keeps it for its reconnect.
    pub last_id: Option<String>,
}

impl<'k> Caller<'k> {
    /// Opens the live stream as this caller; `last_id` as a reconnecting
    /// browser sends it.
    pub async fn live(&self, last_id: Option<&str>) -> Live<'k> {
        let mut request = Request::get("/api/bot/live");
        if let Some(token) = self.token() {
            request = request.header("authorization", format!("Bearer {token}"));
        }
        if let Some(last) = last_id {
            request = request.header("last-event-id", last);
        }
        let request = request.body(Body::empty()).unwrap();
        let response = self.kit().router().oneshot(request).await.unwrap();
        assert_eq!(response.status(), 200, "the live stream did not open");
        Live {
            kit: self.kit(),
            body: response.into_body().into_data_stream().boxed(),
            buffer: String::new(),
            last_id: last_id.map(str::to_owned),
        }
    }
}

impl Live<'_> {
    /// The next event, within the kit's limit.
    pub async fn next(&mut self) -> LiveEvent {
        let kit = self.kit;
        kit.within("the next live event", self.read()).await
    }

    /// Awaits the first event named `name` that `wanted` accepts.
    pub async fn until(&mut self, name: &str, wanted: impl Fn(&Value) -> bool) -> LiveEvent {
        let kit = self.kit;
        let what = format!("a live {name} event");
        kit.within(&what, async {
            loop {
                let event = self.read().await;
                if event.name == name && wanted(&event.data) {
                    return event;
                }
            }
        })
        .await
    }

    /// Every event up to and including the first named `name` that
    /// `wanted` accepts: what the page was handed on the way there.
    pub async fn collect_until(
        &mut self,
        name: &str,
        wanted: impl Fn(&Value) -> bool,
    ) -> Vec<LiveEvent> {
        let kit = self.kit;
        let what = format!("a live {name} event");
        kit.within(&what, async {
            let mut seen = Vec::new();
            loop {
                let event = self.read().await;
                let done = event.name == name && wanted(&event.data);
                seen.push(event);
                if done {
                    return seen;
                }
            }
        })
        .await
    }

    async fn read(&mut self) -> LiveEvent {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let block: String = self.buffer.drain(..end + 2).collect();
                if let Some(event) = self.parse(&block) {
                    return event;
                }
                continue;
            }
            match self.body.next().await {
                Some(Ok(bytes)) => self.buffer.push_str(&String::from_utf8_lossy(&bytes)),
                _ => std::future::pending::<()>().await,
            }
        }
    }

    fn parse(&mut self, block: &str) -> Option<LiveEvent> {
        let (mut name, mut data, mut id) = (None, String::new(), None);
        for line in block.lines() {
            if let Some(value) = line.strip_prefix("event: ") {
                name = Some(value.to_owned());
            } else if let Some(value) = line.strip_prefix("data: ") {
                data.push_str(value);
            } else if let Some(value) = line.strip_prefix("id: ") {
                id = Some(value.to_owned());
            }
        }
        if id.is_some() {
            self.last_id.clone_from(&id);
        }
        Some(LiveEvent {
            name: name?,
            data: serde_json::from_str(&data).unwrap_or(Value::Null),
            id,
        })
    }
}
