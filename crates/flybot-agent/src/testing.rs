//! Test support: a scripted model provider that answers each call with the
//! next scripted answer, and a turn environment around it. Behind the
//! `testing` feature so the host's tests and the bench can use it too.

use crate::model::{
    FinishReason, ModelError, ModelProvider, ModelRequest, ModelStream, StreamEvent, ToolCall,
};
use crate::session::EndReason;
use crate::tools::{Tool, ToolContext, ToolResult, ToolSet};
use crate::turn::{TurnEnvironment, TurnSetup, Window};
use flybot_core::sync::lock;
use std::collections::VecDeque;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// One scripted answer.
#[derive(Debug, Clone)]
pub enum Answer {
    Text(String),
    /// Tool calls: (name, arguments JSON text).
    Calls(Vec<(String, String)>),
    Fail(ModelError),
}

/// Answers calls from a script; past its end, answers "done".
#[derive(Default)]
pub struct ScriptedModel {
    script: Mutex<VecDeque<Answer>>,
    requests: Mutex<Vec<ModelRequest>>,
}

impl ScriptedModel {
    pub fn new(answers: impl IntoIterator<Item = Answer>) -> Arc<ScriptedModel> {
        Arc::new(ScriptedModel {
            script: Mutex::new(answers.into_iter().collect()),
            requests: Mutex::new(Vec::new()),
        })
    }

    pub fn push(&self, answer: Answer) {
        lock(&self.script).push_back(answer);
    }

    /// Every request seen, in order.
    pub fn requests(&self) -> Vec<ModelRequest> {
        lock(&self.requests).clone()
    }

    /// The conversation's requests, without the steward's and the summary's.
    pub fn turn_requests(&self) -> Vec<ModelRequest> {
        self.requests()
            .into_iter()
            .filter(|r| crate::model::mock_steward::steward_reply(r).is_none())
            .collect()
    }
}

impl ModelProvider for ScriptedModel {
    fn name(&self) -> &str {
        "scripted"
    }

    fn stream(&self, request: ModelRequest) -> ModelStream {
        // The steward and the summary get the mock's own answers, so the
        // script stays the conversation's.
        if crate::model::mock_steward::steward_reply(&request).is_some() {
            lock(&self.requests).push(request.clone());
            return crate::model::mock::MockModel::offline().stream(request);
        }
        let step = lock(&self.requests).len();
        lock(&self.requests).push(request);
        let answer = lock(&self.script)
            .pop_front()
            .unwrap_or_else(|| Answer::Text("done".to_owned()));
        let events: Vec<Result<StreamEvent, ModelError>> = match answer {
            Answer::Text(text) => vec![
                Ok(StreamEvent::TextDelta(text)),
                Ok(StreamEvent::Done(FinishReason::Stop)),
            ],
            Answer::Calls(calls) => calls
                .into_iter()
                .enumerate()
                .map(|(i, (name, arguments))| {
                    Ok(StreamEvent::ToolCall(ToolCall {
                        id: format!("call-{step}-{i}"),
                        name,
                        arguments,
                    }))
                })
                .chain([Ok(StreamEvent::Done(FinishReason::ToolCalls))])
                .collect(),
            Answer::Fail(error) => vec![Err(error)],
        };
        Box::pin(futures_util::stream::iter(events))
    }
}

/// A turn environment over one provider and tool set, with a counting clock.
pub struct TestEnv {
    pub provider: Arc<dyn ModelProvider>,
    pub tools: ToolSet,
    pub workdir: PathBuf,
    pub window: Window,
    pub approver: Option<Arc<dyn crate::turn::Approver>>,
    /// The steward's settings and the pinned block the turns see.
    pub context: Mutex<crate::context::ContextSetup>,
    /// The system prompt each turn gets.
    pub system_prompt: String,
    /// How many turns have ended with their `turn/end` durable.
    pub ended: tokio::sync::watch::Sender<u64>,
    clock: Mutex<u64>,
}

impl TestEnv {
    pub fn new(provider: Arc<dyn ModelProvider>, tools: ToolSet, workdir: PathBuf) -> TestEnv {
        TestEnv {
            provider,
            tools,
            workdir,
            window: Window {
                context_tokens: 100_000,
                reply_tokens: 1_000,
            },
            approver: None,
            context: Mutex::new(crate::context::ContextSetup::default()),
            system_prompt: "You are a test Bot.".to_owned(),
            ended: tokio::sync::watch::Sender::new(0),
            clock: Mutex::new(1_000),
        }
    }
}

impl TurnEnvironment for TestEnv {
    fn now_ms(&self) -> u64 {
        let mut clock = lock(&self.clock);
        *clock += 1;
        *clock
    }

    fn turn_ended(&self, _session_id: &str, _turn_id: &str) {
        self.ended.send_modify(|count| *count += 1);
    }

    fn setup(&self, session_id: &str) -> Result<TurnSetup, EndReason> {
        Ok(TurnSetup {
            provider: self.provider.clone(),
            model: "scripted".to_owned(),
            window: self.window,
            thinking: None,
            system_prompt: self.system_prompt.clone(),
            tools: self.tools.clone(),
            tool_context: ToolContext::new(session_id, "bot-test", self.workdir.clone()),
            approver: self.approver.clone(),
            context: lock(&self.context).clone(),
            images: None,
        })
    }
}

/// The arguments of the scripted tools.
#[derive(serde::Deserialize, schemars::JsonSchema)]
pub struct TextArgs {
    /// What to echo.
    pub text: String,
}

/// `echo`: answers `echo: <text>`, a real tool call that costs nothing, for
/// turn tests and the turn bench.
pub struct Echo;

impl Tool for Echo {
    type Args = TextArgs;
    fn name(&self) -> &'static str {
        "echo"
    }
    fn description(&self) -> &'static str {
        "Answers its text."
    }
    async fn call(&self, _ctx: &ToolContext, args: TextArgs) -> ToolResult {
        Ok(format!("echo: {}", args.text))
    }
}
