//! The wire words (issue 38): each enum's `as_str` is derived once (strum)
//! and must spell every variant exactly as serde writes it on the channel
//! and in the journal; `parse` reads it back.
#![allow(clippy::unwrap_used)]

use flybot_protocol::harness::HarnessId;
use flybot_protocol::state::TaskStatus;
use flybot_protocol::task::TaskMove;
use flybot_protocol::thinking::ThinkingLevel;
use serde::Serialize;
use strum::IntoEnumIterator;

fn serde_word(value: impl Serialize) -> String {
    serde_json::to_value(value)
        .unwrap()
        .as_str()
        .unwrap()
        .to_owned()
}

#[test]
fn every_wire_word_is_the_one_serde_writes_and_parses_back() {
    for status in TaskStatus::iter() {
        assert_eq!(status.as_str(), serde_word(status));
    }
    assert_eq!(TaskStatus::ResultReady.as_str(), "result-ready");
    for action in TaskMove::ALL {
        assert_eq!(action.as_str(), serde_word(action));
    }
    assert_eq!(TaskMove::AcceptResult.as_str(), "accept-result");
    for id in HarnessId::ALL {
        assert_eq!(id.as_str(), serde_word(id));
        assert_eq!(HarnessId::parse(id.as_str()), Some(id));
    }
    for level in [
        ThinkingLevel::Least,
        ThinkingLevel::Low,
        ThinkingLevel::Medium,
        ThinkingLevel::High,
    ] {
        assert_eq!(level.as_str(), serde_word(level));
        assert_eq!(ThinkingLevel::parse(level.as_str()), Some(level));
    }
    assert_eq!(ThinkingLevel::parse("HIGH"), None);
    assert_eq!(HarnessId::parse("huge"), None);
}
