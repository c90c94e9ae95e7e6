//! A scripted HTTP API on loopback for the out-of-app transports' tests
//! (Slack's `chat.postMessage`, a Feishu webhook): every request is recorded
//! (path, `Authorization`, JSON body) and answered with the next scripted
//! answer (the last one repeats). It runs on its own thread and runtime, so
//! a test on a paused clock does not pause it.

use axum::Router;
use axum::body::Bytes;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use serde_json::Value;
use std::sync::{Arc, Mutex};

/// One scripted answer: a status, headers and a JSON body.
#[derive(Debug, Clone)]
pub struct Answer {
    pub status: u16,
    pub headers: Vec<(&'static str, String)>,
    pub body: Value,
}

impl Answer {
    pub fn json(status: u16, body: Value) -> Answer {
        Answer {
            status,
            headers: Vec::new(),
            body,
        }
    }

    pub fn with_header(mut self, name: &'static str, value: &str) -> Answer {
        self.headers.push((name, value.to_owned()));
        self
    }
}

/// A request the fake saw.
#[derive(Debug, Clone, PartialEq)]
pub struct Seen {
    pub path: String,
    pub authorization: Option<String>,
    pub body: Value,
}

/// The running fake; stops when dropped.
pub struct ApiFake {
    pub base_url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
    _server: crate::loopback::Loopback,
}

impl ApiFake {
    pub fn start(answers: Vec<Answer>) -> ApiFake {
        let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
        let script = Arc::new(Mutex::new(answers));
        let record = seen.clone();
        let app = Router::new().fallback(move |uri: Uri, headers: HeaderMap, body: Bytes| {
            let (record, script) = (record.clone(), script.clone());
            async move { answer(&record, &script, &uri, &headers, &body) }
        });
        let server = crate::loopback::Loopback::serve(app);
        let address = server.address;
        ApiFake {
            base_url: format!("http://{address}"),
            seen,
            _server: server,
        }
    }

    /// Every request so far, in order.
    pub fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }
}

fn answer(
    record: &Mutex<Vec<Seen>>,
    script: &Mutex<Vec<Answer>>,
    uri: &Uri,
    headers: &HeaderMap,
    body: &[u8],
) -> Response {
    record.lock().unwrap().push(Seen {
        path: uri.path().to_owned(),
        authorization: headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned),
        body: serde_json::from_slice(body).unwrap_or(Value::Null),
    });
    let next = {
        let mut script = script.lock().unwrap();
        if script.len() > 1 {
            script.remove(0)
        } else {
            script[0].clone()
        }
    };
    let mut response = (
        StatusCode::from_u16(next.status).unwrap(),
        axum::Json(next.body),
    )
        .into_response();
    for (name, value) in next.headers {
        response.headers_mut().insert(name, value.parse().unwrap());
    }
    response
}
