//! The turn loop, step by step. A step admits the steer items waiting in the
//! inbox, sends one request, and runs the tool calls the answer made. A
//! cancel ends the turn at once, whatever the step is waiting on.

use super::{ApprovalAsk, ApprovalOutcome, MAX_STEPS, TurnEnvironment, TurnSetup};
use crate::context::{NoRequest, Room, make_room};
use crate::model::{FinishReason, ModelError, ModelRequest, StreamEvent, ToolCall, Usage};
use crate::session::runtime::Cell;
use crate::session::{EndReason, InboxItem, SessionEvent};
use crate::tools::{AttachedFiles, ToolError};
use flybot_protocol::FailureCode;
use flybot_store::turn_log::Urgency;
use futures_util::StreamExt;
use tokio::sync::watch;

/// How a turn ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TurnSummary {
    pub reason: EndReason,
    pub calls: u32,
    /// Whether the turn wrote any assistant text (a failure without any is
    /// silent, #353).
    pub said_something: bool,
}

/// Resolves with the cancel's reason once one is sent.
async fn cancelled(cancel: &mut watch::Receiver<Option<EndReason>>) -> EndReason {
    loop {
        if let Some(reason) = cancel.borrow_and_update().clone() {
            return reason;
        }
        if cancel.changed().await.is_err() {
            // The runtime is gone: nobody can take the answer any more.
            return EndReason::Interrupted;
        }
    }
}

fn log_failed(e: std::io::Error) -> EndReason {
    EndReason::Error {
        code: FailureCode::Log,
        message: format!("The Session log could not be written: {e}"),
    }
}

struct Turn<'a> {
    cell: &'a Cell,
    env: &'a dyn TurnEnvironment,
    turn_id: &'a str,
    calls: u32,
    said_something: bool,
    /// The turn's own input, queued again if making room runs out of time.
    input: Vec<InboxItem>,
    /// What `attach_file` attached, carried by the next answer (issue 32).
    attached: AttachedFiles,
}

impl Turn<'_> {
    /// Hands `events` to the turn log; they join the next sync, and the
    /// host hears of them once they are durable.
    fn log(&self, events: Vec<SessionEvent>) -> Result<(), EndReason> {
        let at = self.env.now_ms();
        self.cell
            .append(at, events, Urgency::Soon)
            .map_err(log_failed)
    }

    /// Resolves once everything logged so far is durable: a tool call acts
    /// on the world only after its call is on disk.
    async fn durable(&self) -> Result<(), EndReason> {
        self.cell.settled().await.map_err(log_failed)
    }

    fn user_messages(&self, items: Vec<InboxItem>) -> Vec<SessionEvent> {
        items
            .into_iter()
            .map(|item| SessionEvent::UserMessage {
                turn_id: self.turn_id.to_owned(),
                message_id: item.id,
                text: item.text,
                source: item.source,
                attachments: item.attachments,
            })
            .collect()
    }
}

/// Runs one turn of `cell`'s Session with `items` as its input and writes
/// its `turn/end`.
pub(crate) async fn run_turn(
    sessions: &crate::session::Sessions,
    cell: &Cell,
    env: &dyn TurnEnvironment,
    turn_id: &str,
    items: Vec<InboxItem>,
    mut cancel: watch::Receiver<Option<EndReason>>,
) -> TurnSummary {
    let mut turn = Turn {
        cell,
        env,
        turn_id,
        calls: 0,
        said_something: false,
        input: items.clone(),
        attached: AttachedFiles::default(),
    };
    let reason = match env.setup(&cell.session_id) {
        Ok(mut setup) => {
            // The runtime hands itself to this turn's tools, and to nothing
            // that outlives the turn.
            setup.tool_context.sessions = Some(sessions.clone());
            setup.tool_context.attached = turn.attached.clone();
            let mut start = vec![SessionEvent::TurnStart {
                turn_id: turn_id.to_owned(),
            }];
            start.extend(turn.user_messages(items));
            match turn.log(start) {
                Ok(()) => steps(&mut turn, &setup, &mut cancel).await,
                Err(reason) => reason,
            }
        }
        Err(reason) => {
            let mut start = vec![SessionEvent::TurnStart {
                turn_id: turn_id.to_owned(),
            }];
            start.extend(turn.user_messages(items));
            let _ = turn.log(start);
            reason
        }
    };
    turn.carry_left_attachments();
    let end = SessionEvent::TurnEnd {
        turn_id: turn_id.to_owned(),
        reason: reason.clone(),
        calls: turn.calls,
    };
    if let Err(e) = turn.log(vec![end]) {
        tracing::warn!("the turn/end of {} was not written: {e:?}", cell.session_id);
    }
    TurnSummary {
        reason,
        calls: turn.calls,
        said_something: turn.said_something,
    }
}

async fn steps(
    turn: &mut Turn<'_>,
    setup: &TurnSetup,
    cancel: &mut watch::Receiver<Option<EndReason>>,
) -> EndReason {
    let specs = setup.tools.specs();
    for step in 1..=MAX_STEPS {
        if let Err(reason) = turn.start_step(step) {
            return reason;
        }
        let room = Room {
            cell: turn.cell,
            env: turn.env,
            setup,
            specs: &specs,
        };
        let request = tokio::select! {
            made = make_room(&room) => match made {
                Ok(request) => request,
                Err(NoRequest::DeadlineRanOut { ms }) => return turn.requeue(ms),
                Err(NoRequest::Unreadable(error)) => return log_failed(error),
            },
            reason = cancelled(cancel) => return reason,
        };
        let request = tokio::select! {
            request = with_images(request, setup.images.as_deref()) => request,
            reason = cancelled(cancel) => return reason,
        };
        let (env, session_id, turn_id) = (turn.env, &turn.cell.session_id, turn.turn_id);
        // What the model streamed of this step, kept if a Stop cuts it.
        let so_far = std::sync::Mutex::new(String::new());
        let streamed = |delta: &str| {
            flybot_core::sync::lock(&so_far).push_str(delta);
            env.text_delta(session_id, turn_id, delta)
        };
        let answer = tokio::select! {
            answer = collect(setup, request, streamed) => answer,
            reason = cancelled(cancel) => return turn.keep_cut_answer(std::mem::take(&mut *flybot_core::sync::lock(&so_far)), reason),
        };
        let (Answer { text, reasoning }, calls, finish, usage) = match answer {
            Ok(answer) => answer,
            Err(error) => {
                return EndReason::Error {
                    code: error.code(),
                    message: error.to_string(),
                };
            }
        };
        // Thinking text is kept only where a provider needs it back: with
        // the calls it led to.
        let reasoning = (!calls.is_empty() && !reasoning.is_empty()).then_some(reasoning);
        if let Err(reason) = turn.log_answer(text, reasoning, &calls, usage) {
            return reason;
        }
        if calls.is_empty() {
            return finished(finish);
        }
        if let Err(reason) = turn.durable().await {
            return reason;
        }
        if let Err(reason) = run_calls(turn, setup, calls, cancel).await {
            return reason;
        }
    }
    EndReason::Blocked {
        reason: format!("The turn reached its limit of {MAX_STEPS} steps."),
    }
}

impl Turn<'_> {
    /// Logs the step's start, after the steer items the inbox admits (from
    /// the second step on; the first step's input is the turn's own).
    fn start_step(&self, step: u32) -> Result<(), EndReason> {
        let mut events = Vec::new();
        if step > 1 {
            let steers: Vec<InboxItem> = self
                .cell
                .take_steers()
                .into_iter()
                .filter(|item| self.env.admit(&self.cell.session_id, item))
                .collect();
            events.extend(self.user_messages(steers));
        }
        events.push(SessionEvent::StepStart {
            turn_id: self.turn_id.to_owned(),
            step,
        });
        self.log(events)
    }

    /// #1285: making room ran out of its deadline before a step. The turn
    /// ends normally and its input is queued again for the next turn,
    /// never parked; an item the inbox already holds is not queued twice.
    fn requeue(&self, ms: u64) -> EndReason {
        tracing::warn!(
            "making room for {} ran out of {ms} ms before a step; the turn ends here and the next one tries again",
            self.cell.session_id
        );
        self.cell.queue_again(self.input.clone());
        EndReason::Error {
            code: FailureCode::Timeout,
            message: format!(
                "Making room in the conversation ran out of {} s before a step; the turn ends here and the next one tries again.",
                ms / 1_000
            ),
        }
    }

    /// Files attached after the turn's last answer (it ended on a tool
    /// call, a limit or a failure) still go with the turn: one answer
    /// without words carries them (issue 32).
    fn carry_left_attachments(&mut self) {
        let attachments = self.attached.take();
        if attachments.is_empty() {
            return;
        }
        let answer = SessionEvent::AssistantMessage {
            turn_id: self.turn_id.to_owned(),
            text: String::new(),
            attachments,
        };
        if let Err(failed) = self.log(vec![answer]) {
            tracing::warn!(
                "the attachments of {}'s answer were not logged: {failed:?}",
                self.cell.session_id
            );
        }
    }

    /// A Stop (or any cancel) cut the answer while it streamed: the text
    /// so far is logged as the turn's answer, before its `turn/end` says it
    /// was stopped, so the transcript keeps what the person saw (issue 31).
    fn keep_cut_answer(&mut self, so_far: String, reason: EndReason) -> EndReason {
        if so_far.trim().is_empty() {
            return reason;
        }
        if let Err(failed) = self.log_answer(so_far, None, &[], Usage::default()) {
            tracing::warn!(
                "the cut answer of {} was not kept: {failed:?}",
                self.cell.session_id
            );
        }
        reason
    }

    /// Logs the step's end, the answer's text and the tool calls it made.
    fn log_answer(
        &mut self,
        text: String,
        reasoning: Option<String>,
        calls: &[ToolCall],
        usage: Usage,
    ) -> Result<(), EndReason> {
        let mut said = vec![SessionEvent::StepEnd {
            turn_id: self.turn_id.to_owned(),
            usage,
            reasoning,
        }];
        let attachments = self.attached.take();
        if !text.is_empty() || !attachments.is_empty() {
            self.said_something = true;
            said.push(SessionEvent::AssistantMessage {
                turn_id: self.turn_id.to_owned(),
                text,
                attachments,
            });
        }
        for call in calls {
            said.push(SessionEvent::ToolCall {
                turn_id: self.turn_id.to_owned(),
                tool_call_id: call.id.clone(),
                name: call.name.clone(),
                arguments: call.arguments.clone(),
            });
        }
        self.calls += calls.len() as u32;
        self.log(said)
    }
}

/// The request with each message's images made into what the model takes
/// (issue 32): data URLs for a model that sees images; for one that does
/// not, the #779 placeholder and reading after the message's words (once:
/// a line first sent to a text-only model holds them already), never a
/// part; with no `images`, left out.
async fn with_images(
    mut request: ModelRequest,
    images: Option<&dyn crate::model::ImageParts>,
) -> ModelRequest {
    for message in &mut request.messages {
        let ids = std::mem::take(&mut message.images);
        let Some(images) = images.filter(|_| !ids.is_empty()) else {
            continue;
        };
        if images.sees() {
            message.images = ids.iter().filter_map(|id| images.data_url(id)).collect();
            continue;
        }
        for id in &ids {
            if let Some(block) = images.as_text(id, &message.content).await
                && !message.content.contains(&block)
            {
                message.content.push_str("\n\n");
                message.content.push_str(&block);
            }
        }
    }
    request
}

/// How a turn ends when the model's answer made no tool call.
fn finished(finish: FinishReason) -> EndReason {
    match finish {
        FinishReason::MaxTokens => EndReason::MaxTokens,
        FinishReason::ContentFilter => EndReason::Blocked {
            reason: "The provider's content filter stopped the answer.".to_owned(),
        },
        FinishReason::Stop | FinishReason::ToolCalls => EndReason::Completed,
    }
}

/// Runs the answer's tool calls in order, logging each result; a cancel ends
/// the turn at once, closing the wait of the call it interrupted.
async fn run_calls(
    turn: &Turn<'_>,
    setup: &TurnSetup,
    calls: Vec<ToolCall>,
    cancel: &mut watch::Receiver<Option<EndReason>>,
) -> Result<(), EndReason> {
    for call in calls {
        turn.cell.open_wait(&call);
        let result = tokio::select! {
            result = run_call(turn, setup, &call) => result,
            reason = cancelled(cancel) => {
                turn.cell.close_wait(&call.id);
                return Err(reason);
            }
        };
        turn.cell.close_wait(&call.id);
        let (text, is_error) = match result {
            Ok(text) => (text, false),
            Err(error) => (error.to_string(), true),
        };
        let result = SessionEvent::ToolResult {
            turn_id: turn.turn_id.to_owned(),
            tool_call_id: call.id.clone(),
            text,
            is_error,
        };
        turn.log(vec![result])?;
    }
    Ok(())
}

/// One call: resolve it through the mask, ask for approval if it needs one,
/// and run it.
async fn run_call(
    turn: &Turn<'_>,
    setup: &TurnSetup,
    call: &ToolCall,
) -> Result<String, ToolError> {
    let tool = setup.tools.resolve(&call.name)?;
    if let Some(summary) = tool.check(&call.arguments)? {
        let outcome = match &setup.approver {
            Some(approver) => {
                approver
                    .ask(ApprovalAsk {
                        session_id: turn.cell.session_id.clone(),
                        bot_id: setup.tool_context.bot_id.clone(),
                        tool_call_id: call.id.clone(),
                        tool: call.name.clone(),
                        summary,
                        sources: turn.input.iter().map(|i| i.source.clone()).collect(),
                    })
                    .await
            }
            None => ApprovalOutcome::Rejected,
        };
        match outcome {
            ApprovalOutcome::AllowedOnce => {}
            ApprovalOutcome::Rejected => {
                return Err(ToolError::Refused(format!(
                    "The owner did not approve this {} call; do not repeat it unless they ask.",
                    call.name
                )));
            }
        }
    }
    let mut ctx = setup.tool_context.clone();
    ctx.call_id = call.id.clone();
    tool.call_json(&ctx, &call.arguments).await
}

/// The words of one model answer: what it said and what it thought.
#[derive(Default)]
struct Answer {
    text: String,
    reasoning: String,
}

/// Reads one model answer: its text (each piece handed to `streamed` as it
/// comes, for the live stream), its thinking, its tool calls and why it
/// stopped.
async fn collect(
    setup: &TurnSetup,
    request: ModelRequest,
    streamed: impl Fn(&str),
) -> Result<(Answer, Vec<ToolCall>, FinishReason, Usage), ModelError> {
    let mut stream = setup.provider.stream(request);
    let mut answer = Answer::default();
    let mut calls = Vec::new();
    let mut usage = Usage::default();
    while let Some(event) = stream.next().await {
        match event? {
            StreamEvent::TextDelta(delta) => {
                streamed(&delta);
                answer.text.push_str(&delta);
            }
            StreamEvent::ReasoningDelta(delta) => answer.reasoning.push_str(&delta),
            StreamEvent::Usage(reported) => usage = reported,
            StreamEvent::ToolCall(call) => calls.push(call),
            StreamEvent::Done(finish) => return Ok((answer, calls, finish, usage)),
        }
    }
    Err(ModelError::BadResponse(
        "the answer ended without a finish reason".to_owned(),
    ))
}
