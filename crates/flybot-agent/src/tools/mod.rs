//! The tools a turn can call: one `Tool` trait, the schema each tool hands the
//! model (completed by the tool-schema rule), and the per-Session set of tools
//! a turn offers (`ToolSet`, with its guard/restrict mask).
//!
//! A tool is a struct implementing `Tool`. Its arguments are a struct deriving
//! `Deserialize` and `schemars::JsonSchema`; the doc comments on that struct's
//! fields are the descriptions the model reads. A tool never parses JSON by
//! hand and never matches on another tool's name.

pub mod memory;
pub mod schedules;
pub mod schema;
pub mod secrets;
pub mod set;
pub mod team;
pub mod track_tasks;
pub mod workflow;
pub mod workspace;

use schemars::JsonSchema;
use serde::de::DeserializeOwned;
use serde_json::Value;
use std::future::Future;
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::Arc;

pub use schema::{complete_schema, schema_of};
pub use set::{Mask, ToolSet};

/// What a tool answers the model. `Err` is still answered to the model as the
/// call's result (marked as an error); it never ends the turn.
pub type ToolResult = Result<String, ToolError>;

/// A tool call that did not do its work. The text is for the model: one
/// sentence it can act on, never an internal detail or a secret.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ToolError {
    /// The arguments did not match the schema.
    #[error("{0}")]
    Invalid(String),
    /// The call is not allowed (outside the working folder, masked, retired
    /// name, rejected approval, a limit reached, ...).
    #[error("{0}")]
    Refused(String),
    /// The call was allowed but failed (a file missing, a command failing).
    #[error("{0}")]
    Failed(String),
}

/// What a tool call runs with: which Session called it and where it may work.
///
/// A tool gets its Session's working folder from `ctx.workdir`: an absolute
/// path the host made for that Session (for an internal Bot, its own folder).
/// Workspace tools resolve every path the model gives against it and refuse a
/// path that leaves it; they never use the process's current directory.
#[derive(Clone)]
pub struct ToolContext {
    /// The Session the call belongs to.
    pub session_id: String,
    /// The Bot whose turn makes the call.
    pub bot_id: String,
    /// The Session's working folder (absolute).
    pub workdir: PathBuf,
    /// The id of the tool call, as the model named it.
    pub call_id: String,
    /// The host's services, one per tool family (`ToolEnv`); empty where
    /// a turn runs without a host (unit tests of workspace tools).
    pub env: ToolEnv,
    /// The agent runtime running this turn (delivery, stop, unread counts);
    /// the runtime puts itself here when the turn starts, so nothing outside
    /// a turn holds it. `None` where a tool runs without a runtime.
    pub sessions: Option<crate::session::Sessions>,
    /// The files `attach_file` attached during this turn, not yet carried
    /// by an answer (issue 32); the turn hands them to its next
    /// `assistant/message`. Fresh per turn.
    pub attached: AttachedFiles,
}

/// Attachment ids a turn's tools attached to the answer (issue 32), shared
/// between the turn and the clones of its `ToolContext`.
#[derive(Debug, Clone, Default)]
pub struct AttachedFiles(Arc<std::sync::Mutex<Vec<String>>>);

impl AttachedFiles {
    /// Notes `id` for the answer.
    pub fn push(&self, id: String) {
        flybot_core::sync::lock(&self.0).push(id);
    }
    /// The ids noted since the last take, oldest first.
    pub fn take(&self) -> Vec<String> {
        std::mem::take(&mut *flybot_core::sync::lock(&self.0))
    }
}

impl ToolContext {
    /// A context with no team access, for a tool that needs only its folder.
    pub fn new(session_id: &str, bot_id: &str, workdir: PathBuf) -> ToolContext {
        ToolContext {
            session_id: session_id.to_owned(),
            bot_id: bot_id.to_owned(),
            workdir,
            call_id: String::new(),
            env: ToolEnv::default(),
            sessions: None,
            attached: AttachedFiles::default(),
        }
    }
}

pub mod env;
pub use env::ToolEnv;

/// The team as the team tools see it; implemented by the host. Declared
/// here so the agent crate never knows the host. Defined in `team`.
pub use crate::tools::team_access::TeamAccess;
pub mod team_access;

/// One tool. `Args` is the typed argument struct; its derived schema,
/// completed by `complete_schema`, is what the model sees.
pub trait Tool: Send + Sync + 'static {
    type Args: DeserializeOwned + JsonSchema + Send + 'static;

    /// The name the model calls (`read_file`, `message_bot`, ...).
    fn name(&self) -> &'static str;

    /// One or two sentences for the model: what the tool does and when.
    fn description(&self) -> &'static str;

    /// `Some(sentence)` when this call needs the owner's approval first; the
    /// sentence says what would happen ("Run `cargo test` in the folder").
    fn approval(&self, _args: &Self::Args) -> Option<String> {
        None
    }

    /// Does the work.
    fn call(&self, ctx: &ToolContext, args: Self::Args) -> impl Future<Output = ToolResult> + Send;
}

/// A boxed future, for the object-safe side of `Tool`.
pub type BoxFuture<'a, T> = Pin<Box<dyn Future<Output = T> + Send + 'a>>;

/// The object-safe form of `Tool` a `ToolSet` holds: JSON in, text out.
/// Every `Tool` is one; the only tools implementing it by hand are a
/// connector's (`mcp__<connector>__<tool>`), whose names and schemas come
/// from the MCP server at run time.
pub trait DynTool: Send + Sync {
    fn name(&self) -> &str;
    fn description(&self) -> &str;
    /// The completed JSON schema of the arguments.
    fn parameters(&self) -> Value;
    /// Parses the model's argument text; answers the approval sentence, if
    /// the call needs one.
    fn check(&self, arguments: &str) -> Result<Option<String>, ToolError>;
    fn call_json<'a>(
        &'a self,
        ctx: &'a ToolContext,
        arguments: &'a str,
    ) -> BoxFuture<'a, ToolResult>;
}

impl<T: Tool> DynTool for T {
    fn name(&self) -> &str {
        Tool::name(self)
    }
    fn description(&self) -> &str {
        Tool::description(self)
    }
    fn parameters(&self) -> Value {
        schema_of::<T::Args>()
    }
    fn check(&self, arguments: &str) -> Result<Option<String>, ToolError> {
        let args = parse_args::<T::Args>(arguments)?;
        Ok(self.approval(&args))
    }
    fn call_json<'a>(
        &'a self,
        ctx: &'a ToolContext,
        arguments: &'a str,
    ) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            let args = parse_args::<T::Args>(arguments)?;
            self.call(ctx, args).await
        })
    }
}

/// Parses a model's argument text; an empty text is `{}` (models send it for
/// a tool without arguments).
pub fn parse_args<A: DeserializeOwned>(arguments: &str) -> Result<A, ToolError> {
    let text = if arguments.trim().is_empty() {
        "{}"
    } else {
        arguments
    };
    serde_json::from_str(text).map_err(|e| {
        ToolError::Invalid(format!(
            "The arguments do not match the tool's schema ({e}); fix them and call again."
        ))
    })
}
