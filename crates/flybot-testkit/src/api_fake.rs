//! A scripted HTTP API on loopback for the out-of-app transports' tests
//! (Slack's `chat.postMessage`, a Feishu webhook, a Feishu app's token and
//! message calls): every request is recorded (path, query, `Authorization`,
//! JSON body) and answered with the next scripted answer (the last one
//! repeats), one script for every path or one per path (`routed`). It runs
//! on its own thread and runtime, so a test on a paused clock does not
//! pause it.

use axum::Router;
use axum::body::Bytes;
use axum::http::{HeaderMap, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use serde_json::Value;
use std::collections::HashMap;
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
    /// The query string, if any (`receive_id_type=chat_id`).
    pub query: Option<String>,
    pub authorization: Option<String>,
    pub body: Value,
}

/// The running fake; stops when dropped.
pub struct ApiFake {
    pub base_url: String,
    seen: Arc<Mutex<Vec<Seen>>>,
    _server: crate::loopback::Loopback,
}

/// The scripts by path; `""` is every other path's.
type Scripts = HashMap<String, Vec<Answer>>;

impl ApiFake {
    pub fn start(answers: Vec<Answer>) -> ApiFake {
        ApiFake::routed(vec![("", answers)])
    }

    /// One script per path (`""` answers every path not named).
    pub fn routed(scripts: Vec<(&str, Vec<Answer>)>) -> ApiFake {
        let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
        let scripts: Scripts = scripts
            .into_iter()
            .map(|(path, answers)| (path.to_owned(), answers))
            .collect();
        let script = Arc::new(Mutex::new(scripts));
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
    script: &Mutex<Scripts>,
    uri: &Uri,
    headers: &HeaderMap,
    body: &[u8],
) -> Response {
    record.lock().unwrap().push(Seen {
        path: uri.path().to_owned(),
        query: uri.query().map(str::to_owned),
        authorization: headers
            .get("authorization")
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned),
        body: serde_json::from_slice(body).unwrap_or(Value::Null),
    });
    let next = {
        let mut scripts = script.lock().unwrap();
        let path = uri.path();
        let key = if scripts.contains_key(path) { path } else { "" };
        let Some(script) = scripts.get_mut(key) else {
            return (StatusCode::NOT_FOUND, "no script for this path").into_response();
        };
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
