//! The model boundary: one request in, a stream of events out. Every provider
//! (the OpenAI-compatible client, the mock) implements `ModelProvider`, so a
//! turn never knows which one it talks to.

mod classify;
pub mod config;
pub mod connection_test;
pub mod mock;
mod mock_scenario;
pub mod mock_steward;
pub mod openai;
mod openai_stream;
pub mod openai_wire;
pub mod retry;
pub mod sse;
mod tool_schema;

pub use tool_schema::ToolSchema;

use flybot_protocol::FailureCode;
use flybot_protocol::failure::ModelFeature;
use serde::{Deserialize, Serialize};
use std::pin::Pin;
use std::sync::Arc;
use std::time::Duration;

/// Who said a message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    System,
    User,
    Assistant,
    Tool,
}

/// One message of the conversation a request carries.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ChatMessage {
    pub role: Role,
    #[serde(default)]
    pub content: String,
    /// The calls an assistant message made.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tool_calls: Vec<ToolCall>,
    /// For a tool message: the call it answers.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tool_call_id: Option<String>,
    /// The thinking text the model sent with an assistant message that
    /// called tools. DeepSeek's thinking models refuse the next step of a
    /// tool loop unless it is sent back with the calls.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_content: Option<String>,
    /// A person's images (issue 32): the line's attachment ids as the log
    /// holds them, made into data URLs (`data:image/jpeg;base64,...`) by
    /// the turn's [`ImageParts`] before the request is sent (an attachment
    /// that is no image is left out). A provider sends each as an OpenAI
    /// `image_url` content part.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub images: Vec<String>,
}

/// Makes an attachment into the data URL a request carries, downscaled
/// past the configured size (issue 32); the host implements it over the
/// home's attachments. `None` (not an image) leaves it out.
pub trait ImageParts: Send + Sync {
    /// Whether the turn's model sees images; when it does not, a line's
    /// images are sent as [`ImageParts::as_text`], never as parts.
    fn sees(&self) -> bool {
        true
    }
    fn data_url(&self, attachment_id: &str) -> Option<String>;
    /// The image as a model that cannot see it reads it (#779): the one
    /// placeholder and its reading. An earlier line sent while the Bot's
    /// model saw images reaches a text-only model this way. `None`: not an
    /// image, or `said` (the message's text) holds its placeholder already.
    fn as_text<'a>(
        &'a self,
        _attachment_id: &'a str,
        _said: &'a str,
    ) -> crate::tools::BoxFuture<'a, Option<String>> {
        Box::pin(async { None })
    }
}

impl ChatMessage {
    /// A plain message: `content` from `role`, no calls.
    pub fn text(role: Role, content: impl Into<String>) -> ChatMessage {
        ChatMessage {
            role,
            content: content.into(),
            tool_calls: Vec::new(),
            tool_call_id: None,
            reasoning_content: None,
            images: Vec::new(),
        }
    }
}

/// A tool call the model made; `arguments` is the JSON text it wrote.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolCall {
    pub id: String,
    pub name: String,
    pub arguments: String,
}

/// A tool as the model sees it: its JSON schema completed by the tool-schema
/// rule (every object node has `properties` and `required`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct ToolSpec {
    pub name: String,
    pub description: String,
    pub parameters: ToolSchema,
}

/// How hard the model should think, where the model supports it.
pub use flybot_protocol::ThinkingLevel;

/// One model call.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelRequest {
    /// The model name the provider knows (`deepseek-chat`, `mock`, ...).
    pub model: String,
    pub messages: Vec<ChatMessage>,
    #[serde(default)]
    pub tools: Vec<ToolSpec>,
    #[serde(default)]
    pub max_tokens: Option<u32>,
    #[serde(default)]
    pub thinking: Option<ThinkingLevel>,
}

/// Token counts; `None` is unknown, never zero (#903).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Usage {
    pub input_tokens: Option<u64>,
    pub output_tokens: Option<u64>,
    pub cached_tokens: Option<u64>,
    pub reasoning_tokens: Option<u64>,
}

/// Why the model stopped.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FinishReason {
    Stop,
    ToolCalls,
    MaxTokens,
    ContentFilter,
}

/// What a stream yields, in order; `Done` comes last.
#[derive(Debug, Clone, PartialEq)]
pub enum StreamEvent {
    TextDelta(String),
    ReasoningDelta(String),
    /// A whole tool call, once its arguments are complete.
    ToolCall(ToolCall),
    Usage(Usage),
    Done(FinishReason),
}

/// A failure, classified by the provider's own code and HTTP status, never by
/// its message (which may echo a key and is never logged or returned).
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ModelError {
    /// A requests-per-window 429 (#1308): asked again after 2 s, 8 s, 30 s.
    #[error("the provider is rate limiting requests")]
    RateLimited { retry_after: Option<Duration> },
    /// A rate-limited call that was asked again on the whole backoff (#1308)
    /// and still refused: the turn ends once, carrying the attempt count.
    #[error("the provider kept rate limiting requests ({attempts} attempts)")]
    RateLimitExhausted { attempts: u32 },
    /// A budget or quota refusal (`budget_exceeded`, `QUOTA`, 402): not retried.
    #[error("the provider refused: the account's budget or quota is used up")]
    Budget,
    /// The provider refused the key (#1068, #1347).
    #[error("the provider refused the API key")]
    Auth,
    /// No key is configured for a provider that needs one (#1068).
    #[error("no API key is configured for this provider")]
    MissingKey,
    /// The model named is not one the host knows (`NO_MODEL`, #409).
    #[error("no model is configured for this Bot")]
    NoModel,
    /// Any other refusal or failure the provider answered (a 400 such as an
    /// unknown model or a too-long prompt, a 5xx): its HTTP status and its own
    /// code field when it sent one, never its message.
    #[error("the provider answered HTTP {status}")]
    Provider { status: u16, code: Option<String> },
    /// The model cannot do what the request asked (the provider's code says
    /// so, #1347); the feature comes from its `param` field, never its
    /// message, and the text names it so the person's sentence can too.
    #[error("{}", unsupported_text(*.feature))]
    Unsupported { feature: Option<ModelFeature> },
    #[error("the provider did not answer in time")]
    Timeout,
    /// The connection failed or broke off; the text is ours, not the provider's.
    #[error("the provider could not be reached: {0}")]
    Transport(String),
    /// The provider answered something this client cannot read.
    #[error("the provider's answer could not be read: {0}")]
    BadResponse(String),
    #[error("the call was cancelled")]
    Cancelled,
}

impl ModelError {
    /// The fixed code a turn end and `test-model` report (#1347).
    pub fn code(&self) -> FailureCode {
        match self {
            ModelError::RateLimited { .. } => FailureCode::RateLimited,
            ModelError::RateLimitExhausted { .. } => FailureCode::RateLimited,
            ModelError::Budget => FailureCode::Quota,
            ModelError::Auth => FailureCode::Auth,
            ModelError::MissingKey => FailureCode::NoKey,
            ModelError::NoModel => FailureCode::NoModel,
            ModelError::Provider { .. } => FailureCode::ProviderError,
            ModelError::Unsupported { .. } => FailureCode::UnsupportedModel,
            ModelError::Timeout => FailureCode::Timeout,
            ModelError::Transport(_) => FailureCode::Transport,
            ModelError::BadResponse(_) => FailureCode::BadResponse,
            ModelError::Cancelled => FailureCode::Cancelled,
        }
    }
}

/// The stored text of an `Unsupported` failure: "the model does not support
/// tool calls", which `ModelFeature::named_in` reads back.
fn unsupported_text(feature: Option<ModelFeature>) -> String {
    match feature {
        Some(feature) => format!("the model does not support {}", feature.label()),
        None => "the model does not support what this request asked".to_owned(),
    }
}

/// The events of one call.
pub type ModelStream =
    Pin<Box<dyn futures_core::Stream<Item = Result<StreamEvent, ModelError>> + Send>>;

/// A model provider. `stream` starts the call; dropping the stream cancels it.
pub trait ModelProvider: Send + Sync {
    /// The provider's name as the usage ledger records it (`openai`, `mock`).
    fn name(&self) -> &str;
    fn stream(&self, request: ModelRequest) -> ModelStream;
}

/// A shared provider is a provider, so a registry's `Arc<dyn ModelProvider>`
/// can be wrapped (`Retrying<Arc<dyn ModelProvider>>`) like any other.
impl<T: ModelProvider + ?Sized> ModelProvider for Arc<T> {
    fn name(&self) -> &str {
        (**self).name()
    }

    fn stream(&self, request: ModelRequest) -> ModelStream {
        (**self).stream(request)
    }
}
