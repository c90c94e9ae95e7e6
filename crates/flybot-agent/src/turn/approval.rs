//! Approvals: a tool call that needs the owner's approval asks the `Approver`
//! first (the host: standing grants #540, else a request answered through the
//! channel). A request nobody can answer is rejected, never left hanging.

use crate::tools::BoxFuture;

/// One ask.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ApprovalAsk {
    pub session_id: String,
    pub bot_id: String,
    pub tool_call_id: String,
    /// The tool's name: the request's kind.
    pub tool: String,
    /// What would happen, in one sentence.
    pub summary: String,
    /// Where the turn's input came from: a standing grant answers only a
    /// turn its owner started (#540).
    pub sources: Vec<crate::session::Source>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ApprovalOutcome {
    AllowedOnce,
    Rejected,
}

pub trait Approver: Send + Sync {
    /// Resolves once the ask is answered (or cannot be).
    fn ask(&self, ask: ApprovalAsk) -> BoxFuture<'static, ApprovalOutcome>;
}
