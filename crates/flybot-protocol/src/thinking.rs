//! How hard a Bot's model should think: the level a Bot carries and a
//! request asks for. Each model route maps it to what its provider accepts
//! (`reasoning_effort`, or DeepSeek's `thinking` switch), or drops it.

use serde::{Deserialize, Serialize};

/// A thinking level, least first; `least` is off where the model can be
/// switched off (#409).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
#[derive(strum::IntoStaticStr, strum::EnumString)]
#[strum(serialize_all = "lowercase")]
pub enum ThinkingLevel {
    Least,
    Low,
    Medium,
    High,
}

impl ThinkingLevel {
    /// The level as the channel and the Bot record spell it.
    pub fn as_str(self) -> &'static str {
        self.into()
    }

    /// The level a spelling names, or `None` for any other text.
    pub fn parse(text: &str) -> Option<ThinkingLevel> {
        text.parse().ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_level_reads_back_from_its_spelling() {
        for level in [
            ThinkingLevel::Least,
            ThinkingLevel::Low,
            ThinkingLevel::Medium,
            ThinkingLevel::High,
        ] {
            assert_eq!(ThinkingLevel::parse(level.as_str()), Some(level));
            assert_eq!(
                serde_json::to_value(level).unwrap(),
                serde_json::Value::String(level.as_str().to_owned())
            );
        }
        assert_eq!(ThinkingLevel::parse("max"), None);
    }
}
