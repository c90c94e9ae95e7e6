//! The harness a Bot's turns run under (#903 Step 0, #874 Step 1): the
//! default harness, or one of three declared tiers. The id is what a Bot
//! record, the channel and a usage row carry; the budgets and the rules
//! that read them live in `flybot-core::harness`.

use serde::{Deserialize, Serialize};

/// A harness id, smallest budget first after the default.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[derive(strum::IntoStaticStr, strum::EnumString)]
#[strum(serialize_all = "lowercase")]
pub enum HarnessId {
    Default,
    Lite,
    Medium,
    Heavy,
}

impl HarnessId {
    /// Every id, in the order a form lists them.
    pub const ALL: [HarnessId; 4] = [
        HarnessId::Default,
        HarnessId::Lite,
        HarnessId::Medium,
        HarnessId::Heavy,
    ];

    /// The id as the channel, the Bot record and the usage ledger spell it.
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// The id a spelling names, or `None` for any other text.
    pub fn parse(text: &str) -> Option<HarnessId> {
        text.parse().ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    /// Rule #903.
    fn each_harness_id_reads_back_from_its_spelling() {
        for id in HarnessId::ALL {
            assert_eq!(HarnessId::parse(id.as_str()), Some(id));
            assert_eq!(
                serde_json::to_value(id).unwrap(),
                serde_json::Value::String(id.as_str().to_owned())
            );
        }
        assert_eq!(HarnessId::parse("turbo"), None);
        assert_eq!(HarnessId::parse("Lite"), None);
    }
}
