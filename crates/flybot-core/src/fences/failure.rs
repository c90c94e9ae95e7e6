//! A failed turn's sentence a person can act on (#1347). The sentence keys
//! on the failure's fixed code, never on its message (which is not stable
//! and may echo part of a key); a code nobody mapped reads as it came. In a
//! room a late model failure posts the short friendly line, never the raw
//! error.

use flybot_protocol::FailureCode;

/// `failureSentence` (#1347): the mapped sentence for a known code, naming
/// where to change the model, else `text` unchanged, because a failure
/// nobody has mapped reads better as it came than as a guess.
pub fn failure_sentence(code: &FailureCode, text: &str) -> String {
    let mapped = match code {
        FailureCode::NoModel => {
            Some("This Bot has no model set up yet. Pick one in Settings → Bots.")
        }
        FailureCode::NoKey => {
            Some("This model's provider has no API key yet. Add one in Settings → Models.")
        }
        FailureCode::Auth => {
            Some("The provider refused the API key. Check it in Settings → Models.")
        }
        FailureCode::Quota => Some(
            "The provider's budget or quota is used up. Top it up or switch the Bot's model in Settings → Bots.",
        ),
        FailureCode::RateLimited => {
            Some("The provider is limiting requests right now. Try again in a minute.")
        }
        FailureCode::Timeout => Some("The provider did not answer in time. Try again."),
        FailureCode::Transport
        | FailureCode::ProviderError
        | FailureCode::BadResponse
        | FailureCode::Cancelled
        | FailureCode::Log
        | FailureCode::Workspace
        | FailureCode::Interrupted
        | FailureCode::Blocked
        | FailureCode::NoEnd
        | FailureCode::Start
        | FailureCode::Invalid
        | FailureCode::Busy
        | FailureCode::PeerError
        | FailureCode::Crashed
        | FailureCode::Protocol
        | FailureCode::Refused
        | FailureCode::Failed
        | FailureCode::Uncertain
        | FailureCode::Budget
        | FailureCode::NoCard
        | FailureCode::Card
        | FailureCode::Unknown(_) => None,
    };
    mapped.map_or_else(|| text.to_owned(), str::to_owned)
}

/// A late group model failure as the room shows it (#1347): the friendly
/// line, never the raw error.
pub fn room_failure_line(code: &FailureCode) -> &'static str {
    match code {
        FailureCode::NoModel | FailureCode::NoKey => "This Bot has no model set up yet.",
        FailureCode::Auth
        | FailureCode::Quota
        | FailureCode::RateLimited
        | FailureCode::Timeout
        | FailureCode::Transport
        | FailureCode::ProviderError
        | FailureCode::BadResponse
        | FailureCode::Cancelled
        | FailureCode::Log
        | FailureCode::Workspace
        | FailureCode::Interrupted
        | FailureCode::Blocked
        | FailureCode::NoEnd
        | FailureCode::Start
        | FailureCode::Invalid
        | FailureCode::Busy
        | FailureCode::PeerError
        | FailureCode::Crashed
        | FailureCode::Protocol
        | FailureCode::Refused
        | FailureCode::Failed
        | FailureCode::Uncertain
        | FailureCode::Budget
        | FailureCode::NoCard
        | FailureCode::Card
        | FailureCode::Unknown(_) => "This Bot could not answer right now.",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sentence_keys_on_the_code_not_the_message_1347() {
        let secret = "sk-secret not found";
        assert!(
            failure_sentence(&FailureCode::NoModel, secret).starts_with("This Bot has no model")
        );
        assert!(!failure_sentence(&FailureCode::NoModel, secret).contains("sk-secret"));
        let weird = FailureCode::Unknown("WEIRD".to_owned());
        assert_eq!(
            failure_sentence(&weird, "code: WEIRD boom"),
            "code: WEIRD boom"
        );
        assert_eq!(failure_sentence(&FailureCode::Transport, "plain"), "plain");
    }

    #[test]
    fn a_late_room_failure_posts_the_friendly_line_never_the_raw_error_1347() {
        assert_eq!(
            room_failure_line(&FailureCode::Transport),
            "This Bot could not answer right now."
        );
        assert_eq!(
            room_failure_line(&FailureCode::NoKey),
            "This Bot has no model set up yet."
        );
        assert_eq!(
            room_failure_line(&FailureCode::Unknown("anything".to_owned())),
            "This Bot could not answer right now."
        );
    }
}
