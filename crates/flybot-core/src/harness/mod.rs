//! The declarative harness (#874 Option B). Step 0 (#903): the default
//! harness names the modules a turn already runs (prompt, tools, model,
//! step·retry) and where its verifiers live; it changes no behaviour.
//! Step 1: three tiers, `lite`, `medium` and `heavy`, load through the same
//! resolver with declared budgets and `applied: false`, so the named
//! modules are not rewritten. Triage picks a tier with one `harness:*`
//! label (`route_harness`); `harness_pro` is the offline check an edit of a
//! tier has to pass. Every rule here is pure.

pub mod experience;
mod pro;
mod route;

pub use pro::{HarnessProblem, harness_pro};
pub use route::{IdOrLabels, harness_choice, route_harness};

use flybot_protocol::{ApiError, HarnessId};
use serde::Serialize;

/// The modules a harness points at: the ones the turn already runs.
pub const PROMPT_MODULE: &str = "flybot-agent::prompt";
/// The tool registry a turn offers.
pub const TOOLS_MODULE: &str = "flybot-agent::tools";
/// The model providers.
pub const MODEL_MODULE: &str = "flybot-agent::model";
/// The turn loop: its steps and retries.
pub const TURN_MODULE: &str = "flybot-agent::turn";

/// The offline verifiers every harness names (#874 Step 1): the pull
/// request's CI, the evaluation suite, and the self-improvement baseline.
/// They run outside the process; no harness lists an in-process check.
pub const OFFLINE_VERIFIERS: [&str; 3] = ["ci", "core/dev/eval", "rsi-baseline"];

/// The tree exception (#903): a plugin that keeps its own marked prompt
/// outside the harness's prompt module; listed, never injected here.
pub const TREE_EXCEPTION: &str = "@flybot/tree keeps its own marked prompt under plugins/tree";

/// The module pointers of a harness.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HarnessModules {
    pub prompt: &'static str,
    pub tools: &'static str,
    pub model: &'static str,
    pub step_retry: &'static str,
}

/// Where the harness's checks live.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HarnessVerifiers {
    pub offline: Vec<&'static str>,
}

/// `prompt.maxChars`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct PromptBudget {
    pub max_chars: u32,
}

/// `tools.maxCalls` and `tools.allow` (`None`: the full set the host
/// registers).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolsBudget {
    pub max_calls: u32,
    pub allow: Option<Vec<&'static str>>,
}

/// `model.maxTokens`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelBudget {
    pub max_tokens: u32,
}

/// `stepRetry.maxSteps` and `stepRetry.maxRetries`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StepRetryBudget {
    pub max_steps: u32,
    pub max_retries: u32,
}

/// A tier's declared budget (#874 Step 1).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HarnessBudget {
    pub prompt: PromptBudget,
    pub tools: ToolsBudget,
    pub model: ModelBudget,
    pub step_retry: StepRetryBudget,
}

/// A resolved harness: the default one or a tier.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HarnessConfig {
    pub id: HarnessId,
    pub modules: HarnessModules,
    pub verifiers: HarnessVerifiers,
    pub exceptions: Vec<&'static str>,
    /// The tier's budget; the default harness declares none.
    pub budget: Option<HarnessBudget>,
    /// Always false (#874 Step 1): the budget is declared, and prompt,
    /// tools, model and turn keep running as they do for the default.
    pub applied: bool,
}

/// The tools a Lite turn would be offered: reading and one answer.
const LITE_TOOLS: [&str; 4] = [
    flybot_protocol::tool_names::READ_FILE,
    flybot_protocol::tool_names::LIST_FILES,
    flybot_protocol::tool_names::SEARCH_FILES,
    flybot_protocol::tool_names::ASK_USER,
];

/// Medium adds editing, running tests and the board.
const MEDIUM_TOOLS: [&str; 8] = [
    flybot_protocol::tool_names::READ_FILE,
    flybot_protocol::tool_names::LIST_FILES,
    flybot_protocol::tool_names::SEARCH_FILES,
    flybot_protocol::tool_names::ASK_USER,
    flybot_protocol::tool_names::WRITE_FILE,
    flybot_protocol::tool_names::EDIT_FILE,
    flybot_protocol::tool_names::RUN_COMMAND,
    flybot_protocol::tool_names::TRACK_TASKS,
];

/// The declared budget of `id`; the numbers rise from Lite to Heavy.
fn budget(id: HarnessId) -> Option<HarnessBudget> {
    let (max_chars, max_calls, allow, max_tokens, max_steps, max_retries) = match id {
        HarnessId::Default => return None,
        HarnessId::Lite => (8_000, 4, Some(LITE_TOOLS.to_vec()), 1_024, 4, 0),
        HarnessId::Medium => (32_000, 16, Some(MEDIUM_TOOLS.to_vec()), 4_096, 16, 1),
        HarnessId::Heavy => (128_000, 64, None, 16_384, 64, 3),
    };
    Some(HarnessBudget {
        prompt: PromptBudget { max_chars },
        tools: ToolsBudget { max_calls, allow },
        model: ModelBudget { max_tokens },
        step_retry: StepRetryBudget {
            max_steps,
            max_retries,
        },
    })
}

/// The harness `id` names (#903, #874 Step 1): the default's module
/// pointers, verifiers and exception, plus a tier's declared budget.
pub fn harness(id: HarnessId) -> HarnessConfig {
    HarnessConfig {
        id,
        modules: HarnessModules {
            prompt: PROMPT_MODULE,
            tools: TOOLS_MODULE,
            model: MODEL_MODULE,
            step_retry: TURN_MODULE,
        },
        verifiers: HarnessVerifiers {
            offline: OFFLINE_VERIFIERS.to_vec(),
        },
        exceptions: vec![TREE_EXCEPTION],
        budget: budget(id),
        applied: false,
    }
}

/// `resolveHarness(id)` (#903): the harness an id names; an unknown id is
/// refused (`bot/invalid`), never read as the default.
pub fn resolve_harness(id: &str) -> Result<HarnessConfig, ApiError> {
    HarnessId::parse(id).map(harness).ok_or_else(|| {
        ApiError::invalid(
            "harness",
            format!("There is no harness \"{id}\"; use default, lite, medium or heavy."),
        )
    })
}

#[cfg(test)]
mod tests;
