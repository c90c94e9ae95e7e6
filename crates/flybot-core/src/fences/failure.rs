//! A failed turn's sentence a person can act on (#1347). The sentence keys
//! on the provider's own code in the stored text, never on its message; a
//! code nobody mapped reads as it came. In a room a late model failure posts
//! the short friendly line, never the raw error.

/// The code field a stored failure carries: `"code":"X"`, `code: X` or
/// `code=X`.
pub fn code_of(raw: &str) -> Option<String> {
    let lower = raw.to_ascii_lowercase();
    let at = lower.find("code")?;
    let rest = &raw[at + 4..];
    let rest = rest.trim_start_matches(['"', '\'']).trim_start();
    let rest = rest.strip_prefix([':', '='])?.trim_start();
    let rest = rest.trim_start_matches(['"', '\'']);
    let code: String = rest
        .chars()
        .take_while(|c| c.is_ascii_alphanumeric() || *c == '_' || *c == '-')
        .collect();
    (!code.is_empty()).then_some(code)
}

/// `failureSentence` (#1347): the mapped sentence for a known code, else the
/// text unchanged.
pub fn failure_sentence(raw: &str) -> String {
    let mapped = match code_of(raw).as_deref() {
        Some("NO_MODEL") => Some("This Bot has no model set up yet. Pick one in Settings → Bots."),
        Some("NO_KEY") => {
            Some("This model's provider has no API key yet. Add one in Settings → Models.")
        }
        Some("AUTH") => Some("The provider refused the API key. Check it in Settings → Models."),
        Some("QUOTA") => Some(
            "The provider's budget or quota is used up. Top it up or switch the Bot's model in Settings → Bots.",
        ),
        Some("RATE_LIMITED") => {
            Some("The provider is limiting requests right now. Try again in a minute.")
        }
        Some("TIMEOUT") => Some("The provider did not answer in time. Try again."),
        Some("UnsupportedModel") => Some(
            "This model does not support what the turn asked for. Change the Bot's model in Settings → Bots.",
        ),
        Some(_) | None => None,
    };
    mapped.map_or_else(|| raw.to_string(), str::to_string)
}

/// A late group model failure as the room shows it (#1347): the friendly
/// line, never the raw error.
pub fn room_failure_line(raw: &str) -> &'static str {
    match code_of(raw).as_deref() {
        Some("NO_MODEL") | Some("NO_KEY") => "This Bot has no model set up yet.",
        Some(_) | None => "This Bot could not answer right now.",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sentence_keys_on_the_code_not_the_message_1347() {
        let raw = "{\"code\":\"NO_MODEL\",\"message\":\"sk-secret not found\"}";
        assert!(failure_sentence(raw).starts_with("This Bot has no model"));
        assert!(!failure_sentence(raw).contains("sk-secret"));
        assert_eq!(failure_sentence("code: WEIRD boom"), "code: WEIRD boom");
        assert_eq!(failure_sentence("plain"), "plain");
    }

    #[test]
    fn a_late_room_failure_posts_the_friendly_line_never_the_raw_error_1347() {
        assert_eq!(
            room_failure_line("code=TRANSPORT secret"),
            "This Bot could not answer right now."
        );
        assert_eq!(
            room_failure_line("code: NO_KEY"),
            "This Bot has no model set up yet."
        );
        assert_eq!(
            room_failure_line("anything"),
            "This Bot could not answer right now."
        );
    }
}
