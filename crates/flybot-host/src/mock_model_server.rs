//! The mock model as an OpenAI-compatible HTTP API (`flybot mock-model
//! serve`), so an external runtime, or our own OpenAI-compatible client, can
//! be driven by it over loopback: `POST /v1/chat/completions` (streaming SSE
//! or one JSON answer, tool calls included) and `GET /v1/models`. Any key is
//! accepted. A scenario's `fail` is answered with its status and codes, and
//! its `cutAfter` ends the stream mid-answer.

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use flybot_agent::model::mock::{MOCK_MODEL, MockModel, MockOutcome};
use flybot_agent::model::openai_wire::{WireRequest, completion, from_wire, stream_frames};
use serde_json::{Value, json};
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

#[derive(Clone)]
struct MockServer {
    mock: Arc<MockModel>,
    /// Numbers the answers' ids, so a run is reproducible.
    calls: Arc<AtomicU64>,
}

/// The router; the base URL a client configures is `http://ADDR/v1`.
pub fn mock_model_app(mock: Arc<MockModel>) -> Router {
    let state = MockServer {
        mock,
        calls: Arc::default(),
    };
    Router::new()
        .route("/v1/chat/completions", post(chat_completions))
        .route("/chat/completions", post(chat_completions))
        .route("/v1/models", get(models))
        .route("/models", get(models))
        .with_state(state)
}

async fn models() -> Response {
    axum::Json(json!({
        "object": "list",
        "data": [{"id": MOCK_MODEL, "object": "model", "created": 0, "owned_by": "flybot"}],
    }))
    .into_response()
}

fn error(status: u16, code: Option<&str>, kind: Option<&str>, message: &str) -> Response {
    let status = StatusCode::from_u16(status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let body = json!({"error": {"message": message, "type": kind, "code": code}});
    (status, axum::Json(body)).into_response()
}

async fn chat_completions(State(server): State<MockServer>, body: Bytes) -> Response {
    let wire: WireRequest = match serde_json::from_slice(&body) {
        Ok(wire) => wire,
        Err(_) => {
            return error(
                400,
                Some("invalid_request"),
                Some("invalid_request_error"),
                "The body is not a chat-completions request.",
            );
        }
    };
    let streaming = wire.stream;
    let include_usage = wire
        .stream_options
        .as_ref()
        .and_then(|options| options.get("include_usage"))
        .and_then(Value::as_bool)
        .unwrap_or(false);
    let request = from_wire(wire);
    let id = format!(
        "chatcmpl-mock-{}",
        server.calls.fetch_add(1, Ordering::Relaxed) + 1
    );
    let (events, cut) = match server.mock.plan(&request) {
        MockOutcome::Answer(events) => (events, false),
        MockOutcome::Cut(events) => (events, true),
        MockOutcome::Fail(fail) => {
            return error(
                fail.status,
                fail.code.as_deref(),
                fail.kind.as_deref(),
                "The mock model was told to refuse this call.",
            );
        }
    };
    if !streaming {
        if cut {
            return error(
                500,
                Some("cut"),
                None,
                "The mock model was told to break off.",
            );
        }
        return axum::Json(completion(&id, &request.model, 0, &events)).into_response();
    }
    // A cut answer stops after its deltas: no finish, no `[DONE]`, as with a
    // provider that fell over mid-answer. (Ending the body with an error
    // instead would let the server drop frames not yet written.)
    let frames: Vec<Result<String, std::io::Error>> =
        stream_frames(&id, &request.model, 0, &events, include_usage, !cut)
            .into_iter()
            .map(Ok)
            .collect();
    Response::builder()
        .header(header::CONTENT_TYPE, "text/event-stream")
        .header(header::CACHE_CONTROL, "no-cache")
        .body(Body::from_stream(futures_util::stream::iter(frames)))
        .unwrap_or_else(|_| StatusCode::INTERNAL_SERVER_ERROR.into_response())
}

/// Serves `mock_model_app(mock)` on `listener` until `shutdown` resolves.
pub async fn serve_mock_model(
    listener: tokio::net::TcpListener,
    mock: Arc<MockModel>,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    axum::serve(listener, mock_model_app(mock))
        .with_graceful_shutdown(shutdown)
        .await
}
