//! One turn: build the request from the log, stream the model's answer, run
//! its tool calls, and repeat by steps until the model stops, a limit is
//! reached, or the turn is cancelled. Every event goes to the Session log
//! before the turn goes on.

pub mod approval;
pub mod request;
mod step;
pub mod strict;

use crate::model::{ModelProvider, ThinkingLevel};
use crate::session::EndReason;
use crate::tools::{ToolContext, ToolSet};
pub use approval::{ApprovalAsk, ApprovalOutcome, Approver};
pub use request::Window;
use std::sync::Arc;
pub use step::TurnSummary;
pub(crate) use step::run_turn;

/// The most steps one turn takes before it ends as blocked.
pub const MAX_STEPS: u32 = 40;

/// Everything a turn of one Session runs with; the host builds it per turn
/// (`TurnEnvironment::setup`).
#[derive(Clone)]
pub struct TurnSetup {
    pub provider: Arc<dyn ModelProvider>,
    /// The model name the provider knows.
    pub model: String,
    pub window: Window,
    pub thinking: Option<ThinkingLevel>,
    /// The system prompt, built from its ordered sections.
    pub system_prompt: String,
    /// The tools offered, with the Session's mask.
    pub tools: ToolSet,
    /// The context each tool call gets (its `call_id` is set per call).
    pub tool_context: ToolContext,
    /// Who answers approval requests; `None` rejects every request.
    pub approver: Option<Arc<dyn Approver>>,
    /// The steward's settings and the Bot's pinned memory.
    pub context: crate::context::ContextSetup,
    /// Makes a person's images into what the turn's model takes (issue
    /// 32): request parts for a model that sees images, else the #779
    /// placeholder and reading for an image a line still holds as a part
    /// (sent while the Bot's model saw images). `None`: no image is sent.
    pub images: Option<Arc<dyn crate::model::ImageParts>>,
}

/// The host as the runtime sees it.
pub trait TurnEnvironment: Send + Sync + 'static {
    /// Milliseconds since the Unix epoch, for the log's times.
    fn now_ms(&self) -> u64;
    /// What a turn of `session_id` runs with; `Err` ends the turn with that
    /// reason before any model call.
    fn setup(&self, session_id: &str) -> Result<TurnSetup, EndReason>;
    /// A Session's log or work view changed (for the live stream).
    fn changed(&self, _session_id: &str) {}
    /// The running answer of `turn_id` grew by `text`, as the model streams
    /// it (for the live stream; the whole answer is logged when it ends).
    fn text_delta(&self, _session_id: &str, _turn_id: &str, _text: &str) {}
    /// A turn of `session_id` ended and its `turn/end` is in the log (the
    /// host folds its model calls into the usage ledger).
    fn turn_ended(&self, _session_id: &str, _turn_id: &str) {}
    /// Whether a queued item may still be delivered to `session_id` when a
    /// turn takes it (queued, resumed after a restart, or steered in): the
    /// host judges `reach()` again for an item with a sender (#90), so a
    /// grant revoked while the item waited stops it. A refused item is
    /// dropped, never shown to the model.
    fn admit(&self, _session_id: &str, _item: &crate::session::InboxItem) -> bool {
        true
    }
}
