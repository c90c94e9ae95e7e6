//! One MCP server, through the official Rust SDK (`rmcp`): started as a
//! child process through the sandbox (issue 30: its own process group,
//! writes only the connector's folder, reads the system and its program's
//! install, no network, limits) with only the environment the connector
//! names (stdio), or reached over streamable HTTP; its tools
//! listed once, each call made through the server's peer with a progress
//! token (its progress shows in the running work, and a call that reports
//! progress gets a fresh deadline). The session's task is watched: a server
//! that exits turns the connector to `error`.

use super::progress::{ConnectorClient, progress_step};
use flybot_agent::tools::{BoxFuture, DynTool, ToolContext, ToolError, ToolResult};
use flybot_sandbox::{ChildSandbox, Limits, Network, Policy};
use futures_util::StreamExt;
use rmcp::ServiceError;
use rmcp::handler::client::progress::ProgressDispatcher;
use rmcp::model::{
    CallToolRequest, CallToolRequestParams, CallToolResult, CancelledNotificationParam,
    ClientRequest, ContentBlock, RequestId, ServerResult,
};
use rmcp::service::{Peer, PeerRequestOptions, QuitReason, RoleClient, RunningService, ServiceExt};
use rmcp::transport::{StreamableHttpClientTransport, TokioChildProcess};
use serde_json::Value;
use std::collections::BTreeMap;
use std::process::Stdio;
use std::sync::Arc;
use std::time::Duration;

/// How long a mount (start, handshake, tool list) may take.
pub const MOUNT_DEADLINE: Duration = Duration::from_secs(30);
/// How long one tool call may take without reporting progress.
pub const CALL_DEADLINE: Duration = Duration::from_secs(120);
/// The most text one call answers the model.
const RESULT_CAP: usize = 64 * 1024;
/// PATH when the host has none.
const FALLBACK_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// Where the server is.
#[derive(Debug, Clone)]
pub enum Endpoint {
    /// argv, the environment it gets, and its working folder.
    Stdio {
        argv: Vec<String>,
        env: BTreeMap<String, String>,
        cwd: std::path::PathBuf,
        /// The home, which the server's read rules never open.
        home: std::path::PathBuf,
        /// Its network: none, or open for a server whose work is a remote
        /// API (the `github` connector).
        network: Network,
    },
    Http {
        url: String,
        bearer: Option<String>,
    },
}

/// A mounted server: its peer for calls, its tools, and what stops it.
pub struct Mounted {
    pub peer: Peer<RoleClient>,
    pub tools: Vec<rmcp::model::Tool>,
    /// The child's process group (stdio only).
    pub pgid: Option<u32>,
    /// What holds the child (stdio only); dropping it kills the group.
    pub sandbox: Option<ChildSandbox>,
    pub service: RunningService<RoleClient, ConnectorClient>,
    /// Where the server's progress notes go, by token.
    pub progress: ProgressDispatcher,
}

/// Starts or reaches the server, shakes hands and lists its tools.
pub async fn mount(endpoint: &Endpoint) -> Result<Mounted, String> {
    let client = ConnectorClient::default();
    let progress = client.progress.clone();
    let work = async {
        let (service, pgid, sandbox) = match endpoint {
            Endpoint::Stdio {
                argv,
                env,
                cwd,
                home,
                network,
            } => {
                let (program, args) = argv
                    .split_first()
                    .ok_or_else(|| "The connector names no command.".to_owned())?;
                let mut command = tokio::process::Command::new(program);
                command
                    .args(args)
                    .current_dir(cwd)
                    // Only what the connector names: the host's own
                    // environment holds provider keys.
                    .env_clear()
                    .env(
                        "PATH",
                        std::env::var_os("PATH").unwrap_or_else(|| FALLBACK_PATH.into()),
                    )
                    .envs(env);
                let policy = Policy::writing(&[cwd])
                    .reading(flybot_sandbox::program_roots(argv, Some(home)))
                    .limits(Limits::SERVER)
                    .network(*network);
                let cannot_start = |e: &dyn std::fmt::Display| {
                    format!("The command {program} could not start ({e}).")
                };
                let mut sandbox =
                    flybot_sandbox::confine(&mut command, &policy).map_err(|e| cannot_start(&e))?;
                let (transport, _stderr) = TokioChildProcess::builder(command)
                    .stderr(Stdio::null())
                    .spawn()
                    .map_err(|e| cannot_start(&e))?;
                let pgid = transport.id();
                sandbox.started(pgid);
                let service = client.serve(transport).await.map_err(|e| {
                    kill_group(pgid);
                    format!("The server did not answer the MCP handshake ({e}).")
                })?;
                (service, pgid, Some(sandbox))
            }
            Endpoint::Http { url, bearer } => {
                let mut config =
                    rmcp::transport::streamable_http_client::StreamableHttpClientTransportConfig::with_uri(
                        url.as_str(),
                    );
                if let Some(token) = bearer {
                    config = config.auth_header(token.clone());
                }
                let transport = StreamableHttpClientTransport::from_config(config);
                let service = client.serve(transport).await.map_err(|e| {
                    format!("The server at the URL did not answer the MCP handshake ({e}).")
                })?;
                (service, None, None)
            }
        };
        let tools = service.peer().list_all_tools().await.map_err(|e| {
            kill_group(pgid);
            format!("The server did not list its tools ({e}).")
        })?;
        Ok(Mounted {
            peer: service.peer().clone(),
            tools,
            pgid,
            sandbox,
            service,
            progress,
        })
    };
    tokio::time::timeout(MOUNT_DEADLINE, work)
        .await
        .unwrap_or_else(|_| Err("The server did not become ready within 30 seconds.".to_owned()))
}

/// Waits until the session ends; answers why, for the connector's row.
pub async fn ended(service: RunningService<RoleClient, ConnectorClient>) -> Option<String> {
    match service.waiting().await {
        Ok(QuitReason::Cancelled) => None,
        Ok(QuitReason::Closed) => Some("The server exited; connect it again.".to_owned()),
        Ok(QuitReason::JoinError(e)) | Err(e) => {
            Some(format!("The server's session failed ({e})."))
        }
        Ok(_) => Some("The server's session ended.".to_owned()),
    }
}

/// Kills what is left of the server's process group.
pub fn kill_group(pgid: Option<u32>) {
    if let Some(pgid) = pgid {
        flybot_sandbox::signal_group(pgid, flybot_sandbox::Signal::KILL);
    }
}

/// One of a server's tools as a Bot's turn sees it.
pub struct McpTool {
    /// `mcp__<connector>__<tool>`.
    pub name: String,
    /// The server's own name.
    pub remote: String,
    pub description: String,
    /// Completed by the tool-schema rule.
    pub schema: Value,
    /// Asks the owner before each call.
    pub approval: bool,
    pub peer: Peer<RoleClient>,
    /// The server's progress notes, by token.
    pub progress: ProgressDispatcher,
    /// The saved keys the server was started with: taken out of what a
    /// call answers, so no Session log keeps one (#545).
    pub keys: Arc<Vec<String>>,
}

impl McpTool {
    fn redact(&self, text: &str) -> String {
        let keys: Vec<&str> = self.keys.iter().map(String::as_str).collect();
        flybot_core::secrets::redact(text, &keys)
    }
}

/// The arguments as a JSON object (`{}` for none).
fn object_args(arguments: &str) -> Result<serde_json::Map<String, Value>, ToolError> {
    let text = if arguments.trim().is_empty() {
        "{}"
    } else {
        arguments
    };
    match serde_json::from_str(text) {
        Ok(Value::Object(map)) => Ok(map),
        _ => Err(ToolError::Invalid(
            "The arguments must be one JSON object matching the tool's schema; fix them and call again.".to_owned(),
        )),
    }
}

/// The text a call answers: its text blocks, other blocks named.
pub fn result_text(result: &CallToolResult) -> String {
    let mut parts: Vec<String> = result
        .content
        .iter()
        .map(|block| match block {
            ContentBlock::Text(text) => text.text.clone(),
            ContentBlock::Image(image) => format!("[an image, {}]", image.mime_type),
            ContentBlock::Audio(audio) => format!("[audio, {}]", audio.mime_type),
            ContentBlock::Resource(_) => "[an embedded resource]".to_owned(),
            ContentBlock::ResourceLink(link) => format!("[a resource: {}]", link.uri),
            _ => "[content of a kind this host does not show]".to_owned(),
        })
        .collect();
    if parts.is_empty()
        && let Some(structured) = &result.structured_content
    {
        parts.push(structured.to_string());
    }
    let mut text = parts.join("\n");
    if text.len() > RESULT_CAP {
        let mut cut = RESULT_CAP;
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        text.truncate(cut);
        text.push_str("\n[the result was cut at 64 KiB]");
    }
    text
}

impl McpTool {
    /// Calls the tool; each progress note the server sends is shown as the
    /// call's step, and the deadline counts from the last one (rmcp's
    /// `reset_timeout_on_progress`). A call whose turn is dropped tells the
    /// server it was cancelled. A note sent before the subscription is made
    /// (right after the request) is not shown; the next one is.
    async fn call_with_progress(
        &self,
        ctx: &ToolContext,
        params: CallToolRequestParams,
    ) -> Result<CallToolResult, ServiceError> {
        let request = ClientRequest::CallToolRequest(CallToolRequest::new(params));
        let options = PeerRequestOptions::with_timeout(CALL_DEADLINE).reset_timeout_on_progress();
        let handle = self.peer.send_request_with_option(request, options).await?;
        let mut notes = self.progress.subscribe(handle.progress_token.clone()).await;
        let mut abandoned = Abandoned {
            peer: self.peer.clone(),
            id: Some(handle.id.clone()),
        };
        let response = handle.await_response();
        tokio::pin!(response);
        let answer = loop {
            tokio::select! {
                answer = &mut response => break answer,
                Some(note) = notes.next() => {
                    if let Some(sessions) = &ctx.sessions {
                        let step = progress_step(&self.remote, &note);
                        sessions.note_progress(&ctx.session_id, &ctx.call_id, &step);
                    }
                }
            }
        };
        abandoned.id = None;
        match answer? {
            ServerResult::CallToolResult(result) => Ok(result),
            _ => Err(ServiceError::UnexpectedResponse),
        }
    }
}

/// A call whose answer nobody waits for any more: the server is told.
struct Abandoned {
    peer: Peer<RoleClient>,
    id: Option<RequestId>,
}

impl Drop for Abandoned {
    fn drop(&mut self) {
        let Some(id) = self.id.take() else { return };
        let peer = self.peer.clone();
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            runtime.spawn(async move {
                let why = Some("the Bot's turn stopped".to_owned());
                let _ = peer
                    .notify_cancelled(CancelledNotificationParam::new(Some(id), why))
                    .await;
            });
        }
    }
}

impl DynTool for McpTool {
    fn name(&self) -> &str {
        &self.name
    }
    fn description(&self) -> &str {
        &self.description
    }
    fn parameters(&self) -> Value {
        self.schema.clone()
    }
    fn check(&self, arguments: &str) -> Result<Option<String>, ToolError> {
        let args = object_args(arguments)?;
        Ok(self
            .approval
            .then(|| format!("Call {} with {}.", self.name, Value::Object(args))))
    }
    fn call_json<'a>(
        &'a self,
        ctx: &'a ToolContext,
        arguments: &'a str,
    ) -> BoxFuture<'a, ToolResult> {
        Box::pin(async move {
            let mut params = CallToolRequestParams::new(self.remote.clone());
            params.arguments = Some(object_args(arguments)?);
            match self.call_with_progress(ctx, params).await {
                Err(ServiceError::Timeout { timeout }) => Err(ToolError::Failed(format!(
                    "{} neither answered nor reported progress for {} seconds.",
                    self.name,
                    timeout.as_secs()
                ))),
                Err(e) => Err(ToolError::Failed(
                    self.redact(&format!("The connector's server refused the call: {e}")),
                )),
                Ok(result) if result.is_error == Some(true) => {
                    Err(ToolError::Failed(self.redact(&result_text(&result))))
                }
                Ok(result) => Ok(self.redact(&result_text(&result))),
            }
        })
    }
}
