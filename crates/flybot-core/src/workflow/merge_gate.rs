//! The merge gate's judge: whether a pull request may merge, with one
//! sentence per reason it may not (a held pull request, a moved head, a
//! conclusion that is not PASS). Its wording is asserted byte for byte
//! against `presets/fixtures/workflow-cases.json`, as the repo-dev preset's
//! gate guards are; this file reads neither (#1272 acceptance 9).

/// What the gate reads about one pull request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct GateInput {
    /// Who holds the pull request, if anyone.
    pub hold: Option<String>,
    /// The pull request's head now.
    pub head: String,
    /// The head the verdict judged.
    pub verdict_sha: String,
    pub conclusion: String,
}

/// The reasons the gate refuses, in order; empty means it may merge.
pub fn judge(input: &GateInput) -> Vec<String> {
    let mut reasons = Vec::new();
    if let Some(holder) = input.hold.as_deref().filter(|h| !h.trim().is_empty()) {
        reasons.push(format!(
            "The pull request is held by {holder}; the merge gate does not merge a held pull request."
        ));
    }
    if input.verdict_sha != input.head {
        reasons.push(format!(
            "The head moved from {} to {} after the verdict; the merge gate judges only the head that was reviewed.",
            input.verdict_sha, input.head
        ));
    }
    if input.conclusion != "PASS" {
        reasons.push(format!(
            "The verdict's conclusion is {}, not PASS; the merge gate merges only a PASS.",
            input.conclusion
        ));
    }
    reasons
}

/// The reasons joined as the gate prints them.
pub fn joined(reasons: &[String]) -> String {
    reasons.join(" ")
}
