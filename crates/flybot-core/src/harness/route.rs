//! Triage's tier choice (#874 Step 1): exactly one `harness:*` label picks
//! a tier; no such label (or only other labels, `risk:T*` among them)
//! routes to the default; two tier labels or an unknown `harness:*` label
//! are refused. `noteUsageHarness` takes an id or such labels.

use flybot_protocol::{ApiError, HarnessId};

const PREFIX: &str = "harness:";

/// `rt.routeHarness(labels)`: the tier a card's labels name.
pub fn route_harness<S: AsRef<str>>(labels: &[S]) -> Result<HarnessId, ApiError> {
    let tiers: Vec<&str> = labels
        .iter()
        .map(AsRef::as_ref)
        .filter_map(|label| label.strip_prefix(PREFIX))
        .collect();
    match tiers.as_slice() {
        [] => Ok(HarnessId::Default),
        [one] => match HarnessId::parse(one) {
            // `harness:default` is no label of the catalogue.
            Some(HarnessId::Default) | None => Err(ApiError::invalid(
                "labels",
                format!(
                    "\"{PREFIX}{one}\" is not a harness label; use harness:lite, harness:medium or harness:heavy."
                ),
            )),
            Some(tier) => Ok(tier),
        },
        _ => Err(ApiError::invalid(
            "labels",
            format!(
                "A card carries at most one harness label; it has {}.",
                tiers.len()
            ),
        )),
    }
}

/// What `noteUsageHarness(sessionId, idOrLabels)` is given.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdOrLabels {
    /// A harness id; `default` clears the Session's tier.
    Id(String),
    /// A card's triage labels.
    Labels(Vec<String>),
}

/// The tier a note names; an unknown id or bad labels are refused.
pub fn harness_choice(choice: &IdOrLabels) -> Result<HarnessId, ApiError> {
    match choice {
        IdOrLabels::Id(id) => super::resolve_harness(id).map(|config| config.id),
        IdOrLabels::Labels(labels) => route_harness(labels),
    }
}
