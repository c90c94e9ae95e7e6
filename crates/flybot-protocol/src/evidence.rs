//! The collaboration contract's four evidence levels (#198), kept apart:
//! what a live OpenCode collaboration records on its card, and what a pilot
//! report names. Passing one level never implies the next.

use serde::{Deserialize, Serialize};

/// An evidence level, lowest first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EvidenceLevel {
    /// 1: scripted peers, the fake OpenCode.
    OfflineMock,
    /// 2: a real runtime process driven by the mock model.
    RealProcessInterface,
    /// 3: the real runtime on a real model. It says what the model did; a
    /// person's acceptance stays separate.
    RealModelCollaboration,
    /// 4: a person accepted the result after the host verified it
    /// independently. Only a person's `task-accept-result` records it.
    HumanAcceptance,
}

impl EvidenceLevel {
    /// The level's number, 1 to 4.
    pub fn number(self) -> u8 {
        match self {
            EvidenceLevel::OfflineMock => 1,
            EvidenceLevel::RealProcessInterface => 2,
            EvidenceLevel::RealModelCollaboration => 3,
            EvidenceLevel::HumanAcceptance => 4,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_number_one_to_four_and_keep_the_contracts_spellings() {
        let all = [
            (EvidenceLevel::OfflineMock, "offline-mock"),
            (
                EvidenceLevel::RealProcessInterface,
                "real-process-interface",
            ),
            (
                EvidenceLevel::RealModelCollaboration,
                "real-model-collaboration",
            ),
            (EvidenceLevel::HumanAcceptance, "human-acceptance"),
        ];
        for (i, (level, name)) in all.into_iter().enumerate() {
            assert_eq!(usize::from(level.number()), i + 1);
            assert_eq!(serde_json::to_value(level).unwrap(), name);
        }
    }
}
