//! A scripted fake OpenCode for the offline matrix (test support, behind
//! the `testing` feature): the same routes as the pinned server for what
//! the driver uses (`/doc`, sessions, `prompt_async`, `/event` SSE, status,
//! history, abort, permission and question replies). Each prompt plays the
//! next scripted step. Its known gaps are explicit options, and it pins its
//! own small document: it never claims to be the real API.

use axum::extract::{Path, State};
use axum::response::sse::{Event, Sse};
use axum::routing::{get, post};
use axum::{Json, Router};
use flybot_core::sync::lock;
use futures_util::Stream;
use serde_json::{Value, json};
use std::collections::{BTreeMap, VecDeque};
use std::convert::Infallible;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, MutexGuard};
use tokio::sync::broadcast;

/// One scripted prompt's behaviour.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FakeStep {
    /// Answers `text` after a few status events.
    Reply { text: String },
    /// Answers `echo: <the prompt>`.
    Echo,
    /// Writes `files` into its workspace, runs `command` there (argv, no
    /// shell), then answers `text` with the command's output appended; its
    /// history shows each write and the command as completed tool calls.
    Edit {
        files: Vec<(String, String)>,
        command: Vec<String>,
        text: String,
    },
    /// Asks for `permission`, then answers `text` only if allowed.
    AskPermission { permission: String, text: String },
    /// Asks `question` through OpenCode's question tool (a
    /// `question.asked` request), then waits, busy, until it is answered,
    /// rejected or the session aborted.
    AskQuestion { question: String },
    /// Stays busy until aborted.
    Hang,
    /// Reports `count` finished tool calls, then stays busy until aborted.
    ToolsThenHang { count: u32 },
    /// Goes idle without any answer (idle is not completion).
    IdleWithoutAnswer,
    /// Answers an assistant message whose error is set.
    Fail,
}

/// Gaps the fake emulates on purpose.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct FakeGaps {
    /// Operations left out of `/doc` (and answering 404).
    pub without: Vec<crate::opencode::pin::Capability>,
    /// Abort answers `true` but the session stays busy.
    pub abort_not_observed: bool,
    /// Abort stops the session and the server then forgets it: the status
    /// lists it no more and `GET /session/{id}` answers 404.
    pub forget_session_on_abort: bool,
    /// `GET /session/status` lists every session with a status type the
    /// pinned document does not have.
    pub status_of_unknown_shape: bool,
    /// The first this many prompts are refused with 400 and not taken.
    pub refuse_first_prompts: u32,
    /// The server keeps its sessions in memory only: a restarted one
    /// knows none of them.
    pub forgets_sessions_on_restart: bool,
}

#[derive(Default)]
struct Session {
    busy: bool,
    messages: Vec<Value>,
    hanging: bool,
}

#[derive(Default)]
struct Inner {
    sessions: BTreeMap<String, Session>,
    script: VecDeque<FakeStep>,
    pending_permission: BTreeMap<String, (String, String)>,
    next_id: u64,
    prompts: Vec<(String, String)>,
    requests: u64,
    refused_prompts: u32,
}

/// The fake's state, shared with its test.
#[derive(Clone)]
pub struct FakeOpenCode {
    inner: Arc<Mutex<Inner>>,
    events: broadcast::Sender<Value>,
    gaps: FakeGaps,
    workspace: PathBuf,
    /// Where the sessions' histories are kept across restarts, as the
    /// pinned server keeps them in its data folder (`None`: memory only).
    store: Option<PathBuf>,
}

fn now_ms() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// The fake's own API document: the routes it serves, minus its gaps.
pub fn fake_doc(gaps: &FakeGaps) -> Vec<u8> {
    let mut paths = serde_json::Map::new();
    for capability in crate::opencode::pin::Capability::ALL {
        if gaps.without.contains(&capability) {
            continue;
        }
        let (method, path) = capability.operation();
        paths.insert(
            path.to_owned(),
            json!({ method: {"operationId": capability.name()} }),
        );
    }
    let doc = json!({"openapi": "3.1.0", "info": {"title": "fake opencode", "version": "fake-1"}, "paths": paths});
    serde_json::to_vec(&doc).unwrap_or_default()
}

/// The digest of the document the fake serves with `gaps`.
pub fn fake_doc_digest(gaps: &FakeGaps) -> String {
    crate::sha256_hex(&fake_doc(gaps))
}

impl FakeOpenCode {
    pub fn new(script: Vec<FakeStep>, gaps: FakeGaps, workspace: PathBuf) -> Self {
        FakeOpenCode {
            inner: Arc::new(Mutex::new(Inner {
                script: script.into(),
                ..Inner::default()
            })),
            events: broadcast::channel(256).0,
            gaps,
            workspace,
            store: None,
        }
    }

    /// The fake keeping its sessions' histories in `file`, read back when
    /// a fake starts on the same file (a restarted server): each session
    /// comes back idle with its messages, as the pinned server's do after
    /// its process died.
    pub fn persisted_in(mut self, file: PathBuf) -> Self {
        if self.gaps.forgets_sessions_on_restart {
            return self;
        }
        if let Ok(bytes) = std::fs::read(&file)
            && let Ok(saved) = serde_json::from_slice::<Value>(&bytes)
        {
            let mut inner = lock(&self.inner);
            inner.next_id = saved["nextId"].as_u64().unwrap_or(0);
            if let Some(sessions) = saved["sessions"].as_object() {
                for (id, messages) in sessions {
                    let messages = messages.as_array().cloned().unwrap_or_default();
                    inner.sessions.insert(
                        id.clone(),
                        Session {
                            messages,
                            ..Session::default()
                        },
                    );
                }
            }
        }
        self.store = Some(file);
        self
    }

    /// Writes the sessions' histories to the store (temporary file, then
    /// rename), when the fake has one.
    fn save(&self) {
        let Some(file) = &self.store else {
            return;
        };
        let saved = {
            let inner = lock(&self.inner);
            let sessions: serde_json::Map<String, Value> = inner
                .sessions
                .iter()
                .map(|(id, s)| (id.clone(), Value::Array(s.messages.clone())))
                .collect();
            json!({"nextId": inner.next_id, "sessions": sessions})
        };
        let partial = file.with_extension("partial");
        if std::fs::write(&partial, saved.to_string()).is_ok() {
            let _ = std::fs::rename(&partial, file);
        }
    }

    /// The prompts received: (session, text).
    pub fn prompts(&self) -> Vec<(String, String)> {
        lock(&self.inner).prompts.clone()
    }

    /// Sessions created.
    pub fn sessions(&self) -> Vec<String> {
        lock(&self.inner).sessions.keys().cloned().collect()
    }

    /// Finishes every session whose last message is a person's prompt
    /// with a completed answer `text`, as a runtime that went on working
    /// would (a test's hook).
    pub fn finish_pending(&self, text: &str) {
        self.finish_pending_with(text, Vec::new());
    }

    /// Finishes every pending session as `finish_pending` does, its answer's
    /// message holding a call of the question tool that asked `question`
    /// (as the history shows a question asked, then cut).
    pub fn finish_pending_asking(&self, question: &str) {
        let call = json!({"type": "tool", "tool": "question", "state": {"status": "error",
            "input": {"questions": [{"question": question, "header": "Question", "options": []}]}}});
        self.finish_pending_with("", vec![call]);
    }

    fn finish_pending_with(&self, text: &str, tools: Vec<Value>) {
        let pending: Vec<String> = lock(&self.inner)
            .sessions
            .iter()
            .filter(|(_, s)| {
                s.messages
                    .last()
                    .is_some_and(|m| m["info"]["role"] == "user")
            })
            .map(|(id, _)| id.clone())
            .collect();
        for session in pending {
            self.answer_after(&session, text, None, tools.clone());
            self.set_busy(&session, false);
        }
    }

    /// HTTP requests served.
    pub fn requests(&self) -> u64 {
        lock(&self.inner).requests
    }

    /// Binds loopback port 0 and serves; answers the base URL.
    pub async fn serve(self) -> std::io::Result<String> {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
        let address = listener.local_addr()?;
        tokio::spawn(async move {
            let _ = axum::serve(listener, self.router()).await;
        });
        Ok(format!("http://{address}"))
    }

    fn router(self) -> Router {
        Router::new()
            .route("/doc", get(doc))
            .route("/session", post(create))
            .route("/session/{id}/prompt_async", post(prompt))
            .route("/event", get(events))
            .route("/session/status", get(status))
            .route("/session/{id}", get(session_record))
            .route("/session/{id}/message", get(history))
            .route("/session/{id}/abort", post(abort))
            .route("/permission/{id}/reply", post(permission_reply))
            .route("/question/{id}/reject", post(question_reject))
            .layer(axum::middleware::from_fn_with_state(self.clone(), gate))
            .with_state(self)
    }

    /// Whether `path` is the route of a capability the fake leaves out.
    fn left_out(&self, method: &str, path: &str) -> bool {
        self.gaps.without.iter().any(|c| {
            let (m, template) = c.operation();
            let segments: Vec<&str> = template.split('/').collect();
            let actual: Vec<&str> = path.split('/').collect();
            m.eq_ignore_ascii_case(method)
                && segments.len() == actual.len()
                && segments
                    .iter()
                    .zip(&actual)
                    .all(|(t, a)| t.starts_with('{') || t == a)
        })
    }

    fn id(&self, prefix: &str) -> String {
        let mut inner = lock(&self.inner);
        inner.next_id += 1;
        format!("{prefix}_{:06}", inner.next_id)
    }

    fn emit(&self, event: Value) {
        let _ = self.events.send(event);
    }

    fn set_busy(&self, session: &str, busy: bool) {
        if let Some(s) = lock(&self.inner).sessions.get_mut(session) {
            s.busy = busy;
        }
        let kind = if busy { "busy" } else { "idle" };
        self.emit(json!({"type": "session.status", "properties": {"sessionID": session, "status": {"type": kind}}}));
        if !busy {
            self.emit(json!({"type": "session.idle", "properties": {"sessionID": session}}));
        }
    }

    fn answer(&self, session: &str, text: &str, error: Option<&str>) {
        self.answer_after(session, text, error, Vec::new());
    }

    /// An answer whose message also holds the turn's completed tool calls.
    fn answer_after(&self, session: &str, text: &str, error: Option<&str>, mut tools: Vec<Value>) {
        let id = self.id("msg");
        let mut info = json!({"id": id, "sessionID": session, "role": "assistant",
            "time": {"created": now_ms(), "completed": now_ms()}});
        if let Some(name) = error {
            info["error"] = json!({"name": name, "data": {}});
        }
        tools.push(json!({"type": "text", "text": text}));
        let message = json!({"info": info, "parts": tools});
        if let Some(s) = lock(&self.inner).sessions.get_mut(session) {
            s.messages.push(message);
        }
        self.save();
        self.emit(json!({"type": "message.updated", "properties": {"sessionID": session}}));
    }

    /// A finished tool call, as the pinned server reports one: its part,
    /// for the answer's message.
    fn tool_done(&self, session: &str, tool: &str) -> Value {
        let part = json!({"id": self.id("prt"), "sessionID": session, "type": "tool",
            "tool": tool, "state": {"status": "completed"}});
        self.emit(json!({"type": "message.part.updated", "properties": {"part": part.clone()}}));
        part
    }

    async fn play(&self, session: String, step: FakeStep) {
        self.set_busy(&session, true);
        tokio::time::sleep(std::time::Duration::from_millis(30)).await;
        match step {
            FakeStep::Reply { text } => self.answer(&session, &text, None),
            FakeStep::Echo => {
                let prompt = lock(&self.inner)
                    .prompts
                    .iter()
                    .rev()
                    .find(|(s, _)| *s == session)
                    .map(|(_, text)| text.clone())
                    .unwrap_or_default();
                self.answer(&session, &format!("echo: {prompt}"), None);
            }
            FakeStep::Edit {
                files,
                command,
                text,
            } => {
                let mut output = String::new();
                let mut tools = Vec::new();
                for (path, content) in files {
                    let target = self.workspace.join(&path);
                    if let Some(parent) = target.parent() {
                        let _ = std::fs::create_dir_all(parent);
                    }
                    let _ = std::fs::write(&target, content);
                    tools.push(self.tool_done(&session, "write"));
                }
                if !command.is_empty() {
                    output = super::fake_command::run(&self.workspace, &command).await;
                }
                if !command.is_empty() {
                    tools.push(self.tool_done(&session, "bash"));
                }
                self.answer_after(&session, &format!("{text}\n{output}"), None, tools);
            }
            FakeStep::AskPermission { permission, text } => {
                let id = self.id("per");
                lock(&self.inner)
                    .pending_permission
                    .insert(id.clone(), (session.clone(), text));
                self.emit(json!({"type": "permission.asked", "properties":
                    {"id": id, "sessionID": session, "permission": permission, "patterns": ["*"]}}));
                return;
            }
            FakeStep::AskQuestion { question } => {
                let id = self.id("que");
                if let Some(s) = lock(&self.inner).sessions.get_mut(&session) {
                    s.hanging = true;
                }
                self.emit(json!({"type": "question.asked", "properties":
                    {"id": id, "sessionID": session, "questions":
                        [{"question": question, "header": "Question", "options": []}]}}));
                return;
            }
            FakeStep::ToolsThenHang { count } => {
                for _ in 0..count {
                    let _ = self.tool_done(&session, "read");
                }
                if let Some(s) = lock(&self.inner).sessions.get_mut(&session) {
                    s.hanging = true;
                }
                return;
            }
            FakeStep::Hang => {
                if let Some(s) = lock(&self.inner).sessions.get_mut(&session) {
                    s.hanging = true;
                }
                return;
            }
            FakeStep::IdleWithoutAnswer => {}
            FakeStep::Fail => self.answer(&session, "", Some("UnknownError")),
        }
        self.set_busy(&session, false);
    }
}

/// Counts requests and answers 404 for the routes of left-out capabilities.
async fn gate(
    State(fake): State<FakeOpenCode>,
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    lock(&fake.inner).requests += 1;
    if fake.left_out(request.method().as_str(), request.uri().path()) {
        return axum::http::StatusCode::NOT_FOUND.into_response();
    }
    next.run(request).await
}

async fn doc(State(fake): State<FakeOpenCode>) -> Vec<u8> {
    fake_doc(&fake.gaps)
}

async fn create(State(fake): State<FakeOpenCode>) -> Json<Value> {
    let id = fake.id("ses");
    lock(&fake.inner)
        .sessions
        .insert(id.clone(), Session::default());
    fake.save();
    Json(json!({"id": id, "directory": fake.workspace.display().to_string()}))
}

async fn prompt(
    State(fake): State<FakeOpenCode>,
    Path(session): Path<String>,
    Json(body): Json<Value>,
) -> axum::http::StatusCode {
    let text = body["parts"][0]["text"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    {
        let mut inner = lock(&fake.inner);
        if inner.refused_prompts < fake.gaps.refuse_first_prompts {
            inner.refused_prompts += 1;
            return axum::http::StatusCode::BAD_REQUEST;
        }
    }
    let step = {
        let mut inner = fake_lock_prompt(&fake, &session);
        match inner.as_mut() {
            Some(inner) => inner.script.pop_front(),
            None => return axum::http::StatusCode::NOT_FOUND,
        }
    };
    let step = step.unwrap_or(FakeStep::Reply {
        text: "(the fake's script is over)".to_owned(),
    });
    // The person's side of the turn, as the pinned server keeps it.
    let id = fake.id("msg");
    let message = json!({"info": {"id": id, "sessionID": session, "role": "user",
        "time": {"created": now_ms()}}, "parts": [{"type": "text", "text": text}]});
    if let Some(s) = lock(&fake.inner).sessions.get_mut(&session) {
        s.messages.push(message);
    }
    fake.save();
    // Counted once kept and saved: a test that sees the prompt may copy
    // the fake's store and find the message there.
    lock(&fake.inner).prompts.push((session.clone(), text));
    tokio::spawn(async move { fake.play(session, step).await });
    axum::http::StatusCode::NO_CONTENT
}

fn fake_lock_prompt<'a>(fake: &'a FakeOpenCode, session: &str) -> Option<MutexGuard<'a, Inner>> {
    let inner = lock(&fake.inner);
    inner.sessions.contains_key(session).then_some(inner)
}

async fn history(State(fake): State<FakeOpenCode>, Path(session): Path<String>) -> Json<Value> {
    let inner = lock(&fake.inner);
    Json(json!(
        inner
            .sessions
            .get(&session)
            .map(|s| s.messages.clone())
            .unwrap_or_default()
    ))
}

async fn session_record(
    State(fake): State<FakeOpenCode>,
    Path(session): Path<String>,
) -> axum::response::Response {
    use axum::response::IntoResponse;
    if lock(&fake.inner).sessions.contains_key(&session) {
        return Json(json!({"id": session})).into_response();
    }
    let missing = json!({"name": "NotFoundError", "data": {"message": format!("Session not found: {session}")}});
    (axum::http::StatusCode::NOT_FOUND, Json(missing)).into_response()
}

async fn status(State(fake): State<FakeOpenCode>) -> Json<Value> {
    let inner = lock(&fake.inner);
    if fake.gaps.status_of_unknown_shape {
        let odd: serde_json::Map<String, Value> = inner
            .sessions
            .keys()
            .map(|id| (id.clone(), json!({"type": "paused"})))
            .collect();
        return Json(Value::Object(odd));
    }
    let busy: serde_json::Map<String, Value> = inner
        .sessions
        .iter()
        .filter(|(_, s)| s.busy)
        .map(|(id, _)| (id.clone(), json!({"type": "busy"})))
        .collect();
    Json(Value::Object(busy))
}

async fn abort(State(fake): State<FakeOpenCode>, Path(session): Path<String>) -> Json<bool> {
    if fake.gaps.abort_not_observed {
        return Json(true);
    }
    let was = lock(&fake.inner)
        .sessions
        .get_mut(&session)
        .map(|s| std::mem::take(&mut s.hanging) || s.busy);
    if was == Some(true) {
        fake.answer(&session, "", Some("MessageAbortedError"));
        fake.set_busy(&session, false);
    }
    if fake.gaps.forget_session_on_abort {
        lock(&fake.inner).sessions.remove(&session);
    }
    // Like the pinned server, an abort of any id answers `true`.
    Json(true)
}

async fn permission_reply(
    State(fake): State<FakeOpenCode>,
    Path(id): Path<String>,
    Json(body): Json<Value>,
) -> Json<bool> {
    let pending = lock(&fake.inner).pending_permission.remove(&id);
    let Some((session, text)) = pending else {
        return Json(false);
    };
    if body["reply"] == "reject" {
        fake.answer(&session, "", Some("PermissionRejected"));
    } else {
        fake.answer(&session, &text, None);
    }
    fake.set_busy(&session, false);
    Json(true)
}

async fn question_reject(State(fake): State<FakeOpenCode>, Path(_id): Path<String>) -> Json<bool> {
    let _ = fake;
    Json(true)
}

async fn events(
    State(fake): State<FakeOpenCode>,
) -> Sse<impl Stream<Item = Result<Event, Infallible>>> {
    let receiver = fake.events.subscribe();
    let stream = futures_util::stream::unfold(receiver, |mut receiver| async move {
        loop {
            match receiver.recv().await {
                Ok(value) => {
                    return Some((Ok(Event::default().data(value.to_string())), receiver));
                }
                Err(broadcast::error::RecvError::Lagged(_)) => continue,
                Err(broadcast::error::RecvError::Closed) => return None,
            }
        }
    });
    Sse::new(stream)
}
