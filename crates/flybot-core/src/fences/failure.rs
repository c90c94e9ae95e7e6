//! A failed turn's sentence a person can act on (#1347). The sentence keys
//! on the failure's fixed code, never on its message (which is not stable
//! and may echo part of a key); a code nobody mapped reads as it came. In a
//! room a late model failure posts the short friendly line, never the raw
//! error.

use flybot_protocol::FailureCode;
use flybot_protocol::failure::ModelFeature;

/// What a person can do about a failure: the one distinction both the
/// sentence and the room's line draw, so a new code is placed once, here.
enum Remedy {
    PickModel,
    /// The model lacks a feature the turn needed: another model.
    PickCapableModel,
    AddKey,
    CheckKey,
    TopUp,
    WaitAMinute,
    TryAgain,
    /// Nothing mapped: the failure reads as it came.
    AsItCame,
}

fn remedy(code: &FailureCode) -> Remedy {
    match code {
        FailureCode::NoModel => Remedy::PickModel,
        FailureCode::NoKey => Remedy::AddKey,
        FailureCode::Auth => Remedy::CheckKey,
        FailureCode::Quota => Remedy::TopUp,
        FailureCode::RateLimited => Remedy::WaitAMinute,
        FailureCode::Timeout => Remedy::TryAgain,
        FailureCode::UnsupportedModel => Remedy::PickCapableModel,
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
        | FailureCode::Unknown(_) => Remedy::AsItCame,
    }
}

/// `failureSentence` (#1347): the mapped sentence for a known code, naming
/// where to change the model, else `text` unchanged, because a failure
/// nobody has mapped reads better as it came than as a guess.
pub fn failure_sentence(code: &FailureCode, text: &str) -> String {
    let sentence = match remedy(code) {
        // The feature is read from this build's own stored text, which
        // names it from a fixed vocabulary (`ModelFeature`), never from the
        // provider's message.
        Remedy::PickCapableModel => {
            return match ModelFeature::named_in(text) {
                Some(feature) => format!(
                    "This Bot's model does not support {}. Pick a model that does in Settings → Bots.",
                    feature.label()
                ),
                None => "This Bot's model does not support what this turn asked of it. Pick another model in Settings → Bots.".to_owned(),
            };
        }
        Remedy::PickModel => "This Bot has no model set up yet. Pick one in Settings → Bots.",
        Remedy::AddKey => "This model's provider has no API key yet. Add one in Settings → Models.",
        Remedy::CheckKey => "The provider refused the API key. Check it in Settings → Models.",
        Remedy::TopUp => {
            "The provider's budget or quota is used up. Top it up or switch the Bot's model in Settings → Bots."
        }
        Remedy::WaitAMinute => {
            "The provider is limiting requests right now. Try again in a minute."
        }
        Remedy::TryAgain => "The provider did not answer in time. Try again.",
        Remedy::AsItCame => text,
    };
    sentence.to_owned()
}

/// What Test connection says for a failure (#409, issue 31): one sentence
/// per failure class, naming what to check, never the provider's message
/// (it may echo a key).
pub fn test_failure_sentence(code: &FailureCode) -> String {
    let sentence = match code {
        FailureCode::NoModel => "No model of that name is set up on this host.",
        FailureCode::NoKey => "This provider has no API key yet. Add one to the provider here.",
        FailureCode::Auth => {
            "The provider refused the API key. Check the key saved for this provider."
        }
        FailureCode::Quota => {
            "The provider's budget or quota is used up. Top it up with the provider."
        }
        FailureCode::RateLimited => {
            "The provider is limiting requests right now. Try again in a minute."
        }
        FailureCode::Timeout => {
            "The provider did not answer within 30 seconds. Check that the server is up and not overloaded."
        }
        FailureCode::Transport => {
            "The provider could not be reached at its base URL. Check the address and that the server is running."
        }
        FailureCode::BadResponse => {
            "The provider answered with something that is not an OpenAI-compatible reply. Check the base URL; it usually ends in /v1."
        }
        FailureCode::ProviderError => {
            "The provider refused the request. Check the model id and the provider's own status page."
        }
        FailureCode::Busy => "A test of this model is already running; wait for its answer.",
        FailureCode::UnsupportedModel => {
            "The model refused a feature the host asked of it. Pick another model of this provider, or another provider."
        }
        FailureCode::Cancelled
        | FailureCode::Log
        | FailureCode::Workspace
        | FailureCode::Interrupted
        | FailureCode::Blocked
        | FailureCode::NoEnd
        | FailureCode::Start
        | FailureCode::Invalid
        | FailureCode::PeerError
        | FailureCode::Crashed
        | FailureCode::Protocol
        | FailureCode::Refused
        | FailureCode::Failed
        | FailureCode::Uncertain
        | FailureCode::Budget
        | FailureCode::NoCard
        | FailureCode::Card
        | FailureCode::Unknown(_) => {
            "The test did not finish. Try again, or check the provider's settings."
        }
    };
    sentence.to_owned()
}

/// A late group model failure as the room shows it (#1347): the friendly
/// line, never the raw error.
pub fn room_failure_line(code: &FailureCode) -> &'static str {
    match remedy(code) {
        Remedy::PickModel | Remedy::AddKey => "This Bot has no model set up yet.",
        Remedy::CheckKey
        | Remedy::PickCapableModel
        | Remedy::TopUp
        | Remedy::WaitAMinute
        | Remedy::TryAgain
        | Remedy::AsItCame => "This Bot could not answer right now.",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    /// Rule #1347.
    fn the_sentence_keys_on_the_code_not_the_message() {
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
    /// Rule #1347.
    fn the_unsupported_model_sentence_names_the_feature_the_model_lacks() {
        let code = FailureCode::UnsupportedModel;
        let cases = [
            ("the model does not support tool calls", Some("tool calls")),
            (
                "the model does not support image input",
                Some("image input"),
            ),
            ("the model does not support thinking", Some("thinking")),
            ("the model does not support what this request asked", None),
            ("sk-secret", None),
        ];
        for (stored, feature) in cases {
            let sentence = failure_sentence(&code, stored);
            match feature {
                Some(feature) => assert_eq!(
                    sentence,
                    format!(
                        "This Bot's model does not support {feature}. Pick a model that does in Settings → Bots."
                    )
                ),
                None => assert!(sentence.contains("what this turn asked"), "{sentence}"),
            }
            assert!(!sentence.contains("sk-secret"));
        }
    }

    #[test]
    /// Rule #1347.
    fn a_late_room_failure_posts_the_friendly_line_never_the_raw_error() {
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
