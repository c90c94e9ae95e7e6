//! What a name may be: Bots, rooms and members are found by name, so a name
//! is short, one line, and (for Bots) unique across the team.

use flybot_protocol::ApiError;
use flybot_protocol::state::TeamState;

/// The longest name, in characters.
pub const NAME_MAX: usize = 80;

/// The longest Bot instructions, in characters.
pub const INSTRUCTIONS_MAX: usize = 20_000;

/// Trims a name and refuses an empty, overlong or multi-line one.
pub fn clean_name(field: &str, raw: &str) -> Result<String, ApiError> {
    let name = raw.trim();
    if name.is_empty() {
        return Err(ApiError::invalid(
            field,
            format!("Give a {field}; it cannot be empty."),
        ));
    }
    if name.chars().count() > NAME_MAX {
        return Err(ApiError::invalid(
            field,
            format!("A {field} is at most {NAME_MAX} characters; shorten it."),
        ));
    }
    if name.chars().any(char::is_control) {
        return Err(ApiError::invalid(
            field,
            format!("A {field} is one line of text without control characters."),
        ));
    }
    Ok(name.to_owned())
}

/// `clean_name` for a name a request may leave out.
pub fn clean_optional_name(field: &str, raw: Option<&str>) -> Result<Option<String>, ApiError> {
    raw.map(|name| clean_name(field, name)).transpose()
}

/// The longest line a person may send, in characters.
pub const LINE_MAX: usize = 20_000;

/// A person's line to a Bot or a room: trimmed, not empty, at most
/// `LINE_MAX` characters.
pub fn clean_line(raw: &str) -> Result<&str, ApiError> {
    let text = raw.trim();
    if text.is_empty() {
        return Err(ApiError::invalid(
            "text",
            "The line is empty; write something to send.",
        ));
    }
    if text.chars().count() > LINE_MAX {
        return Err(ApiError::invalid(
            "text",
            format!("The line is longer than {LINE_MAX} characters; send it in parts."),
        ));
    }
    Ok(text)
}

/// Refuses overlong instructions.
pub fn clean_instructions(raw: &str) -> Result<String, ApiError> {
    if raw.chars().count() > INSTRUCTIONS_MAX {
        return Err(ApiError::invalid(
            "instructions",
            format!("Instructions are at most {INSTRUCTIONS_MAX} characters; shorten them."),
        ));
    }
    Ok(raw.to_owned())
}

/// A model name: one short token such as `mock` or `deepseek-chat`.
pub fn clean_model(raw: &str) -> Result<String, ApiError> {
    let model = raw.trim();
    let ok = !model.is_empty()
        && model.len() <= 120
        && model
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "-_.:/@".contains(c));
    if ok {
        Ok(model.to_owned())
    } else {
        Err(ApiError::invalid(
            "model",
            "A model is a name such as mock or deepseek-chat: letters, digits and - _ . : / @.",
        ))
    }
}

/// A model a Bot is made on or moved to must be one the host runs: the
/// mock or a `[models.<name>]` of config.toml, listed in `configured`. One
/// rule for `create-bot` and `update-bot` (issue 29): a Bot on a name
/// nothing routes would only fail at its first turn.
pub fn check_model_configured<'a>(
    model: &str,
    configured: impl IntoIterator<Item = &'a str>,
) -> Result<(), ApiError> {
    let names: Vec<&str> = configured.into_iter().collect();
    if names.contains(&model) {
        return Ok(());
    }
    Err(ApiError::invalid(
        "model",
        format!(
            "No model named {model} is configured on this host; choose one of: {}.",
            names.join(", ")
        ),
    ))
}

/// A Bot name must not be taken by another Bot, hidden and run Bots included
/// (a later Bot cannot reuse a run Bot's name). Compared without case.
pub fn check_bot_name_free(
    state: &TeamState,
    name: &str,
    except: Option<&str>,
) -> Result<(), ApiError> {
    let lower = name.to_lowercase();
    let taken = state
        .bots
        .values()
        .any(|bot| Some(bot.id.as_str()) != except && bot.name.to_lowercase() == lower);
    if taken {
        return Err(ApiError::invalid(
            "name",
            format!("A Bot named {name} already exists; pick another name."),
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_trimmed_and_bounded() {
        assert_eq!(clean_name("name", "  Ada ").unwrap(), "Ada");
        assert_eq!(
            clean_name("name", "   ").unwrap_err().details["field"],
            "name"
        );
        assert!(clean_name("name", &"x".repeat(81)).is_err());
        assert!(clean_name("name", "two\nlines").is_err());
    }

    #[test]
    fn models_are_single_tokens() {
        assert_eq!(clean_model(" deepseek-chat ").unwrap(), "deepseek-chat");
        assert!(clean_model("rm -rf").is_err());
    }

    #[test]
    fn a_line_is_trimmed_and_refused_empty_or_over_the_limit() {
        assert_eq!(clean_line("  hi \n").unwrap(), "hi");
        assert_eq!(clean_line(" \n ").unwrap_err().details["field"], "text");
        let long = "x".repeat(LINE_MAX + 1);
        assert!(clean_line(&long).unwrap_err().message.contains("20000"));
        assert_eq!(
            clean_line(&"é".repeat(LINE_MAX)).unwrap().chars().count(),
            LINE_MAX
        );
    }

    #[test]
    fn configured_model_29_only_a_model_the_host_runs_is_accepted() {
        assert!(check_model_configured("mock", ["mock", "remote"]).is_ok());
        let refused = check_model_configured("gpt-9", ["mock", "remote"]).unwrap_err();
        assert_eq!(refused.code, flybot_protocol::ErrorCode::Invalid);
        assert_eq!(
            refused.message,
            "No model named gpt-9 is configured on this host; choose one of: mock, remote."
        );
    }
}
