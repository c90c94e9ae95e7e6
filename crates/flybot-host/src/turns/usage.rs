//! The usage ledger's wiring (#903): the host opens `usage.sqlite` when it
//! starts and records one row per model call of every ended turn, folded
//! with `fold_calls` from the turn's Session events. A step is one model
//! call: it starts at `step/start` and ends at the first answer event of the
//! step (or at `turn/end` when it failed or was cut). The Session log does
//! not carry token counts, so they are stored as unknown (NULL), never as 0.
//! What a crash or a power cut took back is folded again at start
//! (`usage_catch_up`).

use flybot_agent::session::{LogEntry, SessionEvent, of_turn};
use flybot_core::harness::{IdOrLabels, harness_choice};
use flybot_protocol::HarnessId;
use flybot_store::usage::{
    CallRow, ModelCallEnd, TokenUsage, TurnEventSummary, UsageLedger, fold_calls,
};
use std::collections::HashMap;
use std::path::PathBuf;
use tokio::sync::OnceCell;

/// The ledger, opened once, and the tiers noted for Sessions.
pub(crate) struct UsageCell {
    home: PathBuf,
    ledger: OnceCell<Option<UsageLedger>>,
    /// `rt.noteUsageHarness` (#874 Step 1): the tier a caller chose for a
    /// Session; it wins over the Bot's own tier for that Session's rows.
    harness_notes: std::sync::Mutex<HashMap<String, HarnessId>>,
}

impl UsageCell {
    pub(crate) fn new(home: PathBuf) -> UsageCell {
        UsageCell {
            home,
            ledger: OnceCell::new(),
            harness_notes: std::sync::Mutex::new(HashMap::new()),
        }
    }

    /// `noteUsageHarness(sessionId, idOrLabels)` (#874 Step 1): later rows
    /// of `session_id` name the chosen tier; `default` clears the note, so
    /// they record the Bot's own tier (default when it has none). An unknown
    /// id or bad labels are refused and change nothing.
    pub(crate) fn note_usage_harness(
        &self,
        session_id: &str,
        choice: &IdOrLabels,
    ) -> Result<HarnessId, flybot_protocol::ApiError> {
        let tier = harness_choice(choice)?;
        let mut notes = self
            .harness_notes
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        if tier == HarnessId::Default {
            notes.remove(session_id);
        } else {
            notes.insert(session_id.to_owned(), tier);
        }
        Ok(tier)
    }

    /// The tier noted for `session_id`, if any.
    pub(crate) fn noted_harness(&self, session_id: &str) -> Option<HarnessId> {
        self.harness_notes
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
            .get(session_id)
            .copied()
    }

    pub(crate) fn home(&self) -> &std::path::Path {
        &self.home
    }

    /// The open ledger; `None` when it could not be opened (a warning, once).
    pub(crate) async fn ledger(&self) -> Option<&UsageLedger> {
        self.ledger
            .get_or_init(|| async {
                match UsageLedger::open(&self.home).await {
                    Ok(ledger) => Some(ledger),
                    Err(e) => {
                        tracing::warn!("the usage ledger is off: {e}");
                        None
                    }
                }
            })
            .await
            .as_ref()
    }
}

/// Who a model call is billed to.
pub(crate) struct CallOwner<'a> {
    pub session_id: &'a str,
    pub bot_id: &'a str,
    pub turn_id: &'a str,
    pub provider: &'a str,
    pub model: &'a str,
    /// The harness the turn ran under (#874): a noted tier, else the Bot's.
    pub harness: HarnessId,
}

fn at(entry: &LogEntry) -> i64 {
    i64::try_from(entry.at).unwrap_or(i64::MAX)
}

/// The turn's events as the fold reads them.
pub(crate) fn summaries(entries: &[LogEntry], owner: &CallOwner<'_>) -> Vec<TurnEventSummary> {
    let mut out = Vec::new();
    let mut open = false;
    // A log written before `step/end` existed closes a call at its answer,
    // with its usage unknown.
    let end = |entry: &LogEntry| {
        TurnEventSummary::ModelCallEnded(ModelCallEnd {
            at_ms: at(entry),
            usage: TokenUsage::default(),
        })
    };
    for entry in of_turn(entries, owner.turn_id) {
        match &entry.event {
            SessionEvent::TurnStart { .. } => out.push(TurnEventSummary::TurnStarted {
                session_id: owner.session_id.to_owned(),
                bot_id: owner.bot_id.to_owned(),
                turn_id: owner.turn_id.to_owned(),
                at_ms: at(entry),
                text: String::new(),
                harness: Some(owner.harness.as_str().to_owned()),
                issue_pr: None,
            }),
            SessionEvent::UserMessage { text, .. } => {
                out.push(TurnEventSummary::Text { text: text.clone() })
            }
            SessionEvent::StepStart { .. } => {
                out.push(TurnEventSummary::ModelCallStarted {
                    provider: owner.provider.to_owned(),
                    model: owner.model.to_owned(),
                    at_ms: at(entry),
                });
                open = true;
            }
            SessionEvent::StepEnd { usage, .. } => {
                if std::mem::take(&mut open) {
                    out.push(TurnEventSummary::ModelCallEnded(ModelCallEnd {
                        at_ms: at(entry),
                        usage: token_usage(usage),
                    }));
                }
            }
            SessionEvent::AssistantMessage { .. } => {
                if std::mem::take(&mut open) {
                    out.push(end(entry));
                }
            }
            SessionEvent::ToolCall { .. } => {
                if std::mem::take(&mut open) {
                    out.push(end(entry));
                }
                out.push(TurnEventSummary::ToolCall);
            }
            SessionEvent::ToolResult { .. } => {}
            SessionEvent::TurnEnd { .. } => {
                if std::mem::take(&mut open) {
                    out.push(end(entry));
                }
            }
        }
    }
    out
}

/// Folds the ended turn `turn_id` of `session_id` and records its rows.
pub(crate) async fn record_turn(recorder: &UsageRecorder, session_id: String, turn_id: String) {
    let found = recorder.team.read(|state| {
        let bot_id = super::bot_id_of_session(state, &session_id)?;
        let bot = state.bots.get(&bot_id)?;
        Some((bot_id, bot.model.clone(), bot.harness))
    });
    let Some((bot_id, model, bot_harness)) = found else {
        return;
    };
    let (provider, model) = match recorder.models.route(&model) {
        Ok(route) => (route.provider_name.clone(), route.name.clone()),
        Err(_) => ("unknown".to_owned(), model),
    };
    let Ok(entries) = recorder.sessions.turn_transcript(&session_id, &turn_id) else {
        return;
    };
    let owner = CallOwner {
        session_id: &session_id,
        bot_id: &bot_id,
        turn_id: &turn_id,
        provider: &provider,
        model: &model,
        harness: recorder
            .usage
            .noted_harness(&session_id)
            .or(bot_harness)
            .unwrap_or(HarnessId::Default),
    };
    let rows: Vec<CallRow> = fold_calls(&summaries(&entries, &owner));
    let Some(ledger) = recorder.usage.ledger().await else {
        return;
    };
    for row in rows {
        if let Err(e) = ledger.record(row).await {
            tracing::warn!("a usage row was not recorded: {e}");
        }
    }
}

/// The ledger's token fields from the model's; unknown stays unknown.
fn token_usage(usage: &flybot_agent::model::Usage) -> TokenUsage {
    TokenUsage {
        input_tokens: usage.input_tokens,
        output_tokens: usage.output_tokens,
        cached_tokens: usage.cached_tokens,
        reasoning_tokens: usage.reasoning_tokens,
    }
}

/// Records every ended turn's model calls in the usage ledger (#903): it
/// follows `turn.ended` on the bus until the host stops.
#[derive(Clone)]
pub(crate) struct UsageRecorder {
    pub team: crate::team::Team,
    pub sessions: flybot_agent::session::Sessions,
    pub models: std::sync::Arc<flybot_agent::model::config::ProviderRegistry>,
    pub usage: std::sync::Arc<UsageCell>,
}

impl UsageRecorder {
    /// Opens the ledger in the background, catches up on the turns it may
    /// have lost (`usage_catch_up`) and follows the turns' ends.
    pub(crate) fn start(self) {
        let Ok(runtime) = tokio::runtime::Handle::try_current() else {
            return;
        };
        let recorder = self.clone();
        runtime.spawn(async move {
            let home = recorder.usage.home().to_owned();
            super::usage_catch_up::catch_up(&recorder, &home).await;
        });
        let bus = self.team.bus().clone();
        crate::events::follow(
            bus.subscribe_work(),
            &bus,
            |event| match event {
                Ok(crate::events::HostEvent::TurnEnded {
                    session_id,
                    turn_id,
                }) => Some((session_id, turn_id)),
                _ => None,
            },
            move |(session_id, turn_id)| {
                let recorder = self.clone();
                async move { record_turn(&recorder, session_id, turn_id).await }
            },
        );
    }
}
