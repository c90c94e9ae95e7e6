//! The OpenAI-compatible provider: `POST {baseUrl}/chat/completions` with
//! `stream: true` and `stream_options.include_usage`, read as server-sent
//! events. One shape serves DeepSeek, OpenAI, Ollama and vLLM. The key is read
//! from the environment variable named in config.toml at each call, so a key
//! set later is picked up; a refusal is classified by status and code
//! (`classify`), and its body is dropped unread beyond its codes.

use super::classify::classify_refusal;
use super::openai_stream::{Assembler, Flow};
use super::openai_wire::to_wire;
use super::sse::SseParser;
use super::{ModelError, ModelProvider, ModelRequest, ModelStream, StreamEvent, ThinkingLevel};
use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

/// Where the API key comes from.
#[derive(Clone)]
pub enum KeySource {
    /// No key is sent (a local Ollama or vLLM).
    None,
    /// The environment variable of this name (`apiKeyEnv` in config.toml).
    Env(String),
    /// A key given directly (tests, and embedders that hold their own).
    Value(String),
    /// A saved secret of this name (issue 31), looked up at each request
    /// through the host's secrets once the host has handed them over.
    Secret {
        name: String,
        lookup: std::sync::Arc<std::sync::OnceLock<super::config::SecretLookup>>,
    },
}

impl std::fmt::Debug for KeySource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            KeySource::None => f.write_str("None"),
            KeySource::Env(name) => write!(f, "Env({name:?})"),
            // A key never reaches a log line.
            KeySource::Value(_) => f.write_str("Value(<redacted>)"),
            KeySource::Secret { name, .. } => write!(f, "Secret({name:?})"),
        }
    }
}

/// One provider route: the endpoint, the key, and what the model accepts.
#[derive(Debug, Clone)]
pub struct OpenAiSettings {
    /// The provider's name in config.toml, as the usage ledger records it.
    pub provider_name: String,
    /// Up to and including the version path: `https://api.deepseek.com/v1`,
    /// `http://127.0.0.1:11434/v1`.
    pub base_url: String,
    pub key: KeySource,
    /// The provider's id for the model; replaces the request's `model` when set.
    pub model: Option<String>,
    /// The `reasoning_effort` values the model accepts, least first; empty for
    /// a model with no thinking control (nothing is sent).
    pub thinking: Vec<String>,
    /// The model takes DeepSeek's `thinking: {type: enabled | disabled}`.
    pub thinking_switch: bool,
    /// The most output tokens the model allows; a request asking more is cut.
    pub max_output_tokens: Option<u32>,
}

/// How long one request may take as a whole, from sending it to its last
/// event: a provider that keeps a stream alive with a byte now and then never
/// trips the read timeout, and must not hold a turn for ever.
pub const REQUEST_DEADLINE: Duration = Duration::from_secs(600);

/// The provider.
#[derive(Clone)]
pub struct OpenAiProvider {
    http: reqwest::Client,
    endpoint: String,
    settings: Arc<OpenAiSettings>,
    deadline: Option<Duration>,
}

/// An HTTP client for providers, shared by every route. Installs the ring
/// TLS provider first (with `rustls-no-provider`, building panics without).
pub fn http_client() -> Result<reqwest::Client, ModelError> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .connect_timeout(Duration::from_secs(10))
        // Between two reads of a stream; a call as a whole is bounded by its
        // caller (a turn's cancel, test-model's 30 s).
        .read_timeout(Duration::from_secs(300))
        .build()
        .map_err(|_| ModelError::Transport("the HTTP client could not be built".to_owned()))
}

impl OpenAiProvider {
    pub fn new(http: reqwest::Client, settings: OpenAiSettings) -> Self {
        let endpoint = format!(
            "{}/chat/completions",
            settings.base_url.trim_end_matches('/')
        );
        OpenAiProvider {
            http,
            endpoint,
            settings: Arc::new(settings),
            deadline: Some(REQUEST_DEADLINE),
        }
    }

    /// The same provider with another overall deadline per request, or
    /// none (a test on a paused clock, where any timer fires at once while
    /// a real socket is read).
    pub fn with_deadline(mut self, deadline: Option<Duration>) -> Self {
        self.deadline = deadline;
        self
    }

    pub fn settings(&self) -> &OpenAiSettings {
        &self.settings
    }

    /// The body and key for `request`, or the failure that needs no request.
    fn prepare(&self, mut request: ModelRequest) -> Result<Prepared, ModelError> {
        let key = match &self.settings.key {
            KeySource::None => None,
            KeySource::Value(key) => Some(key.clone()),
            KeySource::Secret { name, lookup } => match lookup.get().and_then(|find| find(name)) {
                Some(key) if !key.trim().is_empty() => Some(key.trim().to_owned()),
                _ => return Err(ModelError::MissingKey),
            },
            KeySource::Env(name) => match std::env::var(name) {
                Ok(key) if !key.trim().is_empty() => Some(key.trim().to_owned()),
                _ => return Err(ModelError::MissingKey),
            },
        };
        if let Some(model) = &self.settings.model {
            request.model.clone_from(model);
        }
        if let Some(cap) = self.settings.max_output_tokens {
            request.max_tokens = Some(request.max_tokens.map_or(cap, |asked| asked.min(cap)));
        }
        let switched_off =
            self.settings.thinking_switch && request.thinking == Some(ThinkingLevel::Least);
        let effort =
            reasoning_effort(&self.settings.thinking, request.thinking).filter(|_| !switched_off);
        let mut wire = to_wire(&request, effort);
        if self.settings.thinking_switch {
            wire.thinking = request.thinking.map(thinking_switch);
        }
        let body = serde_json::to_vec(&wire)
            .map_err(|_| ModelError::BadResponse("the request could not be written".to_owned()))?;
        Ok(Prepared {
            http: self.http.clone(),
            endpoint: self.endpoint.clone(),
            key,
            body,
            deadline: self.deadline,
        })
    }
}

/// The `reasoning_effort` for a thinking level on a model that accepts
/// `levels` (least first). The least thinking is the model's first level, or
/// nothing (off) for a model with no levels (#409).
pub fn reasoning_effort(levels: &[String], level: Option<ThinkingLevel>) -> Option<&str> {
    let level = level?;
    let named = |name: &str| levels.iter().find(|l| l.eq_ignore_ascii_case(name));
    let chosen = match level {
        ThinkingLevel::Least => levels.first(),
        ThinkingLevel::Low => named("low").or(levels.first()),
        ThinkingLevel::Medium => named("medium").or(levels.get(levels.len() / 2)),
        ThinkingLevel::High => named("high").or(levels.last()),
    };
    chosen.map(String::as_str)
}

/// DeepSeek's switch for a level: the least level is off, any other on.
pub fn thinking_switch(level: ThinkingLevel) -> serde_json::Value {
    let kind = match level {
        ThinkingLevel::Least => "disabled",
        ThinkingLevel::Low | ThinkingLevel::Medium | ThinkingLevel::High => "enabled",
    };
    serde_json::json!({ "type": kind })
}

struct Prepared {
    http: reqwest::Client,
    endpoint: String,
    key: Option<String>,
    body: Vec<u8>,
    deadline: Option<Duration>,
}

impl ModelProvider for OpenAiProvider {
    fn name(&self) -> &str {
        &self.settings.provider_name
    }

    fn stream(&self, request: ModelRequest) -> ModelStream {
        let start = Phase::Start(self.prepare(request));
        Box::pin(futures_util::stream::unfold(start, step))
    }
}

enum Phase {
    Start(Result<Prepared, ModelError>),
    Reading(Box<Reading>),
    Over,
}

struct Reading {
    response: reqwest::Response,
    /// When the request as a whole runs out (`REQUEST_DEADLINE`).
    deadline: Option<tokio::time::Instant>,
    parser: SseParser,
    assembler: Assembler,
    payloads: Vec<String>,
    queue: VecDeque<Result<StreamEvent, ModelError>>,
    finished: bool,
    /// `[DONE]` came and the body's last bytes are still unread.
    body_left: bool,
}

type Step = Option<(Result<StreamEvent, ModelError>, Phase)>;

async fn step(phase: Phase) -> Step {
    match phase {
        Phase::Over => None,
        Phase::Start(Err(error)) => Some((Err(error), Phase::Over)),
        Phase::Start(Ok(prepared)) => {
            let deadline = prepared.deadline.map(|d| tokio::time::Instant::now() + d);
            let opened = by_deadline(deadline, open(prepared))
                .await
                .unwrap_or(Err(ModelError::Timeout));
            start_reading(opened, deadline).await
        }
        Phase::Reading(reading) => next(reading).await,
    }
}

/// `work`'s output, or `None` when `deadline` passes first.
async fn by_deadline<T>(
    deadline: Option<tokio::time::Instant>,
    work: impl std::future::Future<Output = T>,
) -> Option<T> {
    match deadline {
        Some(deadline) => tokio::time::timeout_at(deadline, work).await.ok(),
        None => Some(work.await),
    }
}

async fn start_reading(
    opened: Result<reqwest::Response, ModelError>,
    deadline: Option<tokio::time::Instant>,
) -> Step {
    match opened {
        Ok(response) => {
            next(Box::new(Reading {
                response,
                deadline,
                parser: SseParser::new(),
                assembler: Assembler::default(),
                payloads: Vec::new(),
                queue: VecDeque::new(),
                finished: false,
                body_left: false,
            }))
            .await
        }
        Err(error) => Some((Err(error), Phase::Over)),
    }
}

/// Sends the request; a non-success answer becomes its classified failure.
async fn open(prepared: Prepared) -> Result<reqwest::Response, ModelError> {
    let mut request = prepared
        .http
        .post(&prepared.endpoint)
        .header(reqwest::header::CONTENT_TYPE, "application/json")
        .header(reqwest::header::ACCEPT, "text/event-stream")
        .body(prepared.body);
    if let Some(key) = &prepared.key {
        request = request.bearer_auth(key);
    }
    let mut response = request.send().await.map_err(transport)?;
    let status = response.status();
    if status.is_success() {
        return Ok(response);
    }
    // Enough of the body to find its codes; the rest is never read.
    let mut body = Vec::new();
    while body.len() < 64 * 1024 {
        match response.chunk().await {
            Ok(Some(bytes)) => body.extend_from_slice(&bytes),
            Ok(None) | Err(_) => break,
        }
    }
    Err(classify_refusal(status.as_u16(), &body))
}

async fn next(mut reading: Box<Reading>) -> Step {
    loop {
        if reading.body_left && matches!(reading.queue.front(), Some(Ok(StreamEvent::Done(_)))) {
            reading.body_left = false;
            read_to_end(&mut reading.response).await;
        }
        if let Some(item) = reading.queue.pop_front() {
            let then = if item.is_err() {
                Phase::Over
            } else {
                Phase::Reading(reading)
            };
            return Some((item, then));
        }
        if reading.finished {
            return None;
        }
        let reading_ref = &mut *reading;
        let chunk = by_deadline(reading_ref.deadline, reading_ref.response.chunk());
        let Some(chunk) = chunk.await else {
            reading_ref.finished = true;
            reading_ref.queue.push_back(Err(ModelError::Timeout));
            continue;
        };
        match chunk {
            Ok(Some(bytes)) => {
                if reading_ref
                    .parser
                    .feed(&bytes, &mut reading_ref.payloads)
                    .is_err()
                {
                    return Some((
                        Err(ModelError::BadResponse(
                            "a stream event is too large".to_owned(),
                        )),
                        Phase::Over,
                    ));
                }
                read_payloads(reading_ref);
            }
            Ok(None) => {
                if let Some(tail) = reading_ref.parser.finish() {
                    reading_ref.payloads.push(tail);
                    read_payloads(reading_ref);
                }
                if !reading_ref.finished {
                    reading_ref.finished = true;
                    if let Err(error) = reading_ref.assembler.body_ended(&mut reading_ref.queue) {
                        reading_ref.queue.push_back(Err(error));
                    }
                }
            }
            Err(error) => {
                reading_ref.finished = true;
                reading_ref.queue.push_back(Err(transport(error)));
            }
        }
    }
}

/// Hands the parsed payloads to the assembler, stopping at `[DONE]` or a failure.
fn read_payloads(reading: &mut Reading) {
    for payload in reading.payloads.drain(..) {
        if reading.finished {
            break;
        }
        match reading.assembler.data(&payload, &mut reading.queue) {
            Ok(Flow::More) => {}
            Ok(Flow::Done) => {
                reading.finished = true;
                reading.body_left = true;
            }
            Err(error) => {
                reading.finished = true;
                reading.queue.push_back(Err(error));
            }
        }
    }
}

/// How long the bytes after `[DONE]` (the body's last chunk) may take.
const BODY_END: Duration = Duration::from_millis(250);

/// Reads what is left of an answer after its `[DONE]`, before the answer's
/// end is handed on: a body dropped unread closes its connection, and the
/// next request would pay a connect (and a TLS handshake) again. What is
/// left is a few bytes; a server that sends more, or holds them past
/// [`BODY_END`], loses its connection as before.
async fn read_to_end(response: &mut reqwest::Response) {
    let mut left = 64 * 1024usize;
    let _ = tokio::time::timeout(BODY_END, async {
        while let Ok(Some(bytes)) = response.chunk().await {
            left = left.saturating_sub(bytes.len());
            if left == 0 {
                break;
            }
        }
    })
    .await;
}

/// A connection failure in our words; reqwest's text may carry the URL.
fn transport(error: reqwest::Error) -> ModelError {
    if error.is_timeout() {
        ModelError::Timeout
    } else if error.is_connect() {
        ModelError::Transport("could not connect to the provider".to_owned())
    } else {
        ModelError::Transport("the connection to the provider broke off".to_owned())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn least_thinking_is_off_or_the_first_level() {
        let levels: Vec<String> = ["minimal", "low", "medium", "high"]
            .map(String::from)
            .into();
        assert_eq!(
            reasoning_effort(&levels, Some(ThinkingLevel::Least)),
            Some("minimal")
        );
        assert_eq!(
            reasoning_effort(&levels, Some(ThinkingLevel::Medium)),
            Some("medium")
        );
        assert_eq!(reasoning_effort(&[], Some(ThinkingLevel::Least)), None);
        assert_eq!(reasoning_effort(&levels, None), None);
    }

    #[test]
    fn a_missing_key_fails_without_a_request() {
        let provider = OpenAiProvider::new(
            http_client().unwrap(),
            OpenAiSettings {
                provider_name: "deepseek".into(),
                base_url: "http://127.0.0.1:9".into(),
                key: KeySource::Env("FLYBOT_TEST_KEY_THAT_IS_NEVER_SET".into()),
                model: None,
                thinking: Vec::new(),
                thinking_switch: false,
                max_output_tokens: None,
            },
        );
        let failure = provider.prepare(ModelRequest {
            model: "x".into(),
            messages: Vec::new(),
            tools: Vec::new(),
            max_tokens: None,
            thinking: None,
        });
        assert_eq!(failure.err(), Some(ModelError::MissingKey));
        assert_eq!(
            format!("{:?}", KeySource::Value("sk-secret".into())),
            "Value(<redacted>)"
        );
    }
}
