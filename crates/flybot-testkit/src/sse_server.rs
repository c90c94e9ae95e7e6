//! A provider written frame by frame: an OpenAI-compatible endpoint on
//! loopback that answers each request with the next scripted reply (status,
//! SSE frames exactly as given, then a close or a stall), records every
//! request body, and tells when a client hung up mid-stream. For the
//! provider shapes our own mock never writes (tool calls split across
//! chunks, an index-less provider, a stream that stalls) and for the
//! request fields a real provider insists on.

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use serde_json::Value;
use std::collections::VecDeque;
use std::sync::{Arc, Mutex};
use tokio::sync::Notify;

/// How a scripted reply ends after its frames.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum End {
    /// The body ends.
    Close,
    /// The connection stays open with nothing more sent.
    Stall,
}

/// One reply: the status, the SSE `data:` payloads in order, and its end.
#[derive(Debug, Clone)]
pub struct Reply {
    pub status: u16,
    pub payloads: Vec<String>,
    pub end: End,
}

impl Reply {
    /// A 200 stream of one text answer that ends the turn.
    pub fn text(text: &str) -> Reply {
        let content =
            serde_json::json!({"choices": [{"delta": {"content": text}, "finish_reason": "stop"}]});
        Reply {
            status: 200,
            payloads: vec![content.to_string(), "[DONE]".into()],
            end: End::Close,
        }
    }

    /// A 200 stream of `payloads` (each written as `data: <payload>\n\n`).
    pub fn stream(payloads: &[&str], end: End) -> Reply {
        Reply {
            status: 200,
            payloads: payloads.iter().map(|p| (*p).to_owned()).collect(),
            end,
        }
    }
}

struct Script {
    replies: Mutex<VecDeque<Reply>>,
    requests: Mutex<Vec<Value>>,
    hung_up: Notify,
    /// While set, a request is recorded and its reply waits (`hold`).
    held: Mutex<bool>,
    released: Notify,
}

/// A running scripted provider; stops when dropped.
pub struct ScriptedProvider {
    pub base_url: String,
    script: Arc<Script>,
    _server: crate::loopback::Loopback,
}

impl ScriptedProvider {
    /// Serves `replies` in order; a request past the last answers 500.
    pub fn start(replies: Vec<Reply>) -> ScriptedProvider {
        let script = Arc::new(Script {
            replies: Mutex::new(replies.into()),
            requests: Mutex::new(Vec::new()),
            hung_up: Notify::new(),
            held: Mutex::new(false),
            released: Notify::new(),
        });
        let app = axum::Router::new()
            .route("/v1/chat/completions", post(answer))
            .with_state(script.clone());
        let server = crate::loopback::Loopback::serve(app);
        let address = server.address;
        ScriptedProvider {
            base_url: format!("http://{address}/v1"),
            script,
            _server: server,
        }
    }

    /// Adds `reply` after the scripted ones (a reply that names an id the
    /// test learns only once the host runs).
    pub fn push(&self, reply: Reply) {
        self.script.replies.lock().unwrap().push_back(reply);
    }

    /// The request bodies received so far, oldest first.
    pub fn requests(&self) -> Vec<Value> {
        self.script.requests.lock().unwrap().clone()
    }

    /// From now on each request is recorded and its reply waits until
    /// `release`: a model call that is in flight for as long as a test
    /// needs (the server's own runtime is not paused with the test's).
    pub fn hold(&self) {
        *self.script.held.lock().unwrap() = true;
    }

    /// Lets every held reply (and the later ones) go.
    pub fn release(&self) {
        *self.script.held.lock().unwrap() = false;
        self.script.released.notify_waiters();
    }

    /// Resolves once a client hangs up on a reply still being sent.
    pub async fn hung_up(&self) {
        self.script.hung_up.notified().await;
    }
}

/// Tells the script when the body it guards is dropped before its end.
struct HangUpGuard {
    script: Arc<Script>,
    finished: bool,
}

impl Drop for HangUpGuard {
    fn drop(&mut self) {
        if !self.finished {
            self.script.hung_up.notify_one();
        }
    }
}

async fn answer(State(script): State<Arc<Script>>, body: Bytes) -> Response {
    let request = serde_json::from_slice(&body).unwrap_or(Value::Null);
    script.requests.lock().unwrap().push(request);
    loop {
        let released = script.released.notified();
        tokio::pin!(released);
        released.as_mut().enable();
        if !*script.held.lock().unwrap() {
            break;
        }
        released.await;
    }
    let Some(reply) = script.replies.lock().unwrap().pop_front() else {
        return (StatusCode::INTERNAL_SERVER_ERROR, "no reply scripted").into_response();
    };
    let status = StatusCode::from_u16(reply.status).unwrap();
    if !status.is_success() {
        return (status, reply.payloads.concat()).into_response();
    }
    let frames: Vec<Bytes> = reply
        .payloads
        .iter()
        .map(|payload| Bytes::from(format!("data: {payload}\n\n")))
        .collect();
    let guard = HangUpGuard {
        script: script.clone(),
        finished: false,
    };
    let stream = async_stream(frames, reply.end, move || {
        let mut guard = guard;
        guard.finished = true;
    });
    Response::builder()
        .status(status)
        .header("content-type", "text/event-stream")
        .body(Body::from_stream(stream))
        .unwrap()
}

/// The frames one by one (each its own write, so a client reads them as
/// separate chunks), then the end: `Close` calls `done`; `Stall` never ends.
fn async_stream(
    frames: Vec<Bytes>,
    end: End,
    done: impl FnOnce() + Send + 'static,
) -> impl futures_util::Stream<Item = Result<Bytes, std::io::Error>> + Send {
    let state = (frames.into_iter(), Some(done));
    futures_util::stream::unfold(state, move |(mut frames, mut done)| async move {
        if let Some(frame) = frames.next() {
            tokio::task::yield_now().await;
            return Some((Ok(frame), (frames, done)));
        }
        match end {
            End::Close => {
                if let Some(done) = done.take() {
                    done();
                }
                None
            }
            End::Stall => {
                // Keeps the guard (inside `done`) alive until the client
                // hangs up and the body is dropped.
                let _keep = &done;
                std::future::pending::<()>().await;
                None
            }
        }
    })
}
