//! Test connection (#409): one real request on the route a Bot's next turn
//! takes: a one-line prompt, 16 tokens, the model's least thinking, a 30 s
//! timeout, nothing retried. Any finish is a pass (a reply cut at the limit
//! included); a stream that ends with no finish is unknown; a failure is its
//! fixed code, never the provider's message.

use super::config::ModelRoute;
use super::{ChatMessage, ModelError, ModelRequest, Role, StreamEvent, ThinkingLevel};
use futures_util::StreamExt;
use std::time::Duration;

pub const TEST_PROMPT: &str = "Reply with the single word OK.";
pub const TEST_MAX_TOKENS: u32 = 16;
pub const TEST_TIMEOUT: Duration = Duration::from_secs(30);
/// How much of the model's reply a test keeps to show.
pub const REPLY_SHOWN: usize = 200;

/// What the test found.
#[derive(Debug, Clone, PartialEq)]
pub enum TestVerdict {
    /// A finish came, with the model's own words before it (issue 31:
    /// shown to the person, clipped).
    Passed(String),
    /// The stream ended with no finish: the route answered, not clearly.
    Unknown,
    Failed(ModelError),
}

/// Runs the test on `route` (its provider, not retried).
pub async fn test_connection(route: &ModelRoute) -> TestVerdict {
    let request = ModelRequest {
        model: route.provider_model.clone(),
        messages: vec![ChatMessage::text(Role::User, TEST_PROMPT)],
        tools: Vec::new(),
        max_tokens: Some(TEST_MAX_TOKENS),
        thinking: Some(ThinkingLevel::Least),
    };
    let run = async {
        let mut stream = route.provider.stream(request);
        let mut reply = String::new();
        while let Some(item) = stream.next().await {
            match item {
                Ok(StreamEvent::Done(_)) => return TestVerdict::Passed(reply),
                Ok(StreamEvent::TextDelta(text)) => {
                    if reply.chars().count() < REPLY_SHOWN {
                        reply.push_str(&text);
                    }
                }
                Ok(
                    StreamEvent::ReasoningDelta(_)
                    | StreamEvent::ToolCall(_)
                    | StreamEvent::Usage(_),
                ) => {}
                Err(error) => return TestVerdict::Failed(error),
            }
        }
        TestVerdict::Unknown
    };
    tokio::time::timeout(TEST_TIMEOUT, run)
        .await
        .unwrap_or(TestVerdict::Failed(ModelError::Timeout))
}
