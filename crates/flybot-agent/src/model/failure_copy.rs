//! The fixed sentences a person reads when a model call fails, in one place so
//! the chat's failed-turn line, a room's line and a friend's notice agree
//! (#1347, #1068). They key on the failure's class (its code), never on the
//! provider's message, which is never copied: it may echo part of a key, and
//! an AUTH failure reads as the generic sentence even when its text mentions
//! a key.

use super::ModelError;

/// A room's or a remote friend's line for a Bot with no usable model (#319).
pub const NO_MODEL_LINE: &str = "This Bot has no model set up yet.";
/// The same for every other failure.
pub const COULD_NOT_ANSWER_LINE: &str = "This Bot could not answer right now.";
/// A friend's DM notice when this home's turn dies for lack of a model (#1068).
pub const REMOTE_NO_MODEL: &str = "Could not reply: this Bot has no model set up yet.";
/// A friend's DM notice for every other failure (#1068).
pub const REMOTE_COULD_NOT_ANSWER: &str = "Could not reply: this Bot could not answer right now.";

/// Whether the failure means the Bot has no usable model (no key, no model).
pub fn is_no_model(error: &ModelError) -> bool {
    match error {
        ModelError::MissingKey | ModelError::NoModel => true,
        ModelError::RateLimited { .. }
        | ModelError::RateLimitExhausted { .. }
        | ModelError::Budget
        | ModelError::Auth
        | ModelError::Provider { .. }
        | ModelError::Timeout
        | ModelError::Transport(_)
        | ModelError::BadResponse(_)
        | ModelError::Cancelled => false,
    }
}

/// The sentence a failed turn shows its owner in the chat (#1347): what
/// happened and what to do, naming where the model is changed.
pub fn failure_sentence(error: &ModelError) -> String {
    match error {
        ModelError::MissingKey => "This Bot has no model set up yet: its provider's API key is not set. Set the environment variable named by apiKeyEnv in config.toml, or pick another model for this Bot.".to_owned(),
        ModelError::NoModel => "This Bot has no model set up yet: its model is not declared in config.toml. Pick another model for this Bot, or declare it under [models].".to_owned(),
        ModelError::Auth => "The model provider did not accept this Bot's API key. Check the key in the environment variable named by apiKeyEnv in config.toml.".to_owned(),
        ModelError::Budget => "The model provider refused: the account's budget or quota is used up. Add credit with the provider, or pick another model for this Bot.".to_owned(),
        ModelError::RateLimited { .. } => "The model provider is rate limiting requests; this turn will be asked again shortly.".to_owned(),
        ModelError::RateLimitExhausted { attempts } => format!("The model provider kept rate limiting requests ({attempts} attempts). Send the message again in a minute."),
        ModelError::Provider { status, code: Some(code) } => format!("The model provider refused this turn (HTTP {status}, code {code}). Check the model's settings in config.toml."),
        ModelError::Provider { status, code: None } => format!("The model provider refused this turn (HTTP {status}). Check the model's settings in config.toml."),
        ModelError::Timeout => "The model provider did not answer in time. Send the message again.".to_owned(),
        ModelError::Transport(_) => "The model provider could not be reached. Check the network and the provider's baseUrl in config.toml.".to_owned(),
        ModelError::BadResponse(_) => "The model provider answered something this host cannot read. Check that the provider's baseUrl in config.toml points at an OpenAI-compatible API.".to_owned(),
        ModelError::Cancelled => "The turn was stopped.".to_owned(),
    }
}

/// A room's line for a failed turn (#319).
pub fn room_failure_line(error: &ModelError) -> &'static str {
    if is_no_model(error) {
        NO_MODEL_LINE
    } else {
        COULD_NOT_ANSWER_LINE
    }
}

/// A friend's DM notice for a failed turn (#1068).
pub fn remote_failure_notice(error: &ModelError) -> &'static str {
    if is_no_model(error) {
        REMOTE_NO_MODEL
    } else {
        REMOTE_COULD_NOT_ANSWER
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_key_and_auth_read_as_the_spec_s_fixed_sentences() {
        assert_eq!(
            remote_failure_notice(&ModelError::MissingKey),
            REMOTE_NO_MODEL
        );
        assert_eq!(
            remote_failure_notice(&ModelError::Auth),
            REMOTE_COULD_NOT_ANSWER
        );
        assert_eq!(room_failure_line(&ModelError::NoModel), NO_MODEL_LINE);
        assert!(
            failure_sentence(&ModelError::MissingKey)
                .starts_with(NO_MODEL_LINE.trim_end_matches('.'))
        );
    }

    #[test]
    fn no_sentence_carries_the_transport_detail() {
        let error = ModelError::Transport("sk-secret".into());
        assert!(!failure_sentence(&error).contains("sk-secret"));
        let error = ModelError::BadResponse("sk-secret".into());
        assert!(!failure_sentence(&error).contains("sk-secret"));
    }
}
