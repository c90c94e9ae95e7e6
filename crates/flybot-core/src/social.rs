//! Bot Social's pure rules (issue 33): who of another home may reach which
//! of this home's Bots (#90: a published Bot is a grant to a friend's
//! Matrix user; default deny, Chief included), a remote line read by its
//! form (#66), the labels a peer sends made safe (#75, #137) and titled by
//! one formatter (#498, #967), and the fixed sentences of a line that was not
//! sent or not answered (#404, #954, #1068).

use crate::access::{Actor, enforced, host_owner_id};
use flybot_protocol::TeamState;
use flybot_protocol::social::{LINE_KEY, LineContent};
use serde_json::Value;

/// #404: the one sentence for a line to a friend's Bot no longer shared.
pub const NOT_SHARED: &str = "The Bot is no longer shared with you, so messages to it cannot be delivered. Ask its owner for a new invite.";
/// #404: a line the homeserver refused for good.
pub const NOT_SENT: &str =
    "The message was not sent: the friend's home could not be reached. Try again.";
/// #1068: the answering home has no model for the Bot.
pub const NO_MODEL: &str = "Could not reply: this Bot has no model set up yet.";
/// #1068: the answering home's turn failed for any other reason.
pub const NO_ANSWER: &str = "Could not reply: this Bot could not answer right now.";
/// The longest label kept from a peer (#75).
pub const LABEL_MAX: usize = 60;
/// The lines a remote chat keeps (#233, #420).
pub const LINES_KEPT: usize = 200;

/// Why a friend may not reach a Bot.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Unreachable {
    /// No such Bot, or it was deleted.
    NoBot,
    /// The Bot is not published to that friend (#90).
    NotGranted,
}

/// #90: whether Matrix user `friend` may reach local Bot `bot_id`: only
/// through a grant naming that user, never by what an event says.
pub fn reach(state: &TeamState, bot_id: &str, friend: &str) -> Result<(), Unreachable> {
    let bot = state.bots.get(bot_id).filter(|bot| !bot.is_retired());
    if bot.is_none() {
        return Err(Unreachable::NoBot);
    }
    let granted = state.grants.get(bot_id).is_some_and(|grants| {
        grants
            .iter()
            .any(|g| g.grantee == friend && g.room_id.is_none())
    });
    match granted {
        true => Ok(()),
        false => Err(Unreachable::NotGranted),
    }
}

/// Whether `actor` speaks for the home on Matrix: its identity, friends
/// and published Bots are the host owner's alone (a member of a shared
/// home has a home of their own to connect).
pub fn is_home_owner(state: &TeamState, actor: &Actor) -> bool {
    if !enforced(state) {
        return true;
    }
    match actor {
        Actor::SingleOwner => true,
        Actor::Member { member_id, .. } => host_owner_id(state).as_ref() == Some(member_id),
    }
}

/// Whether `user` reads as a Matrix user id (`@name:server`).
pub fn is_user_id(user: &str) -> bool {
    let Some(rest) = user.strip_prefix('@') else {
        return false;
    };
    let Some((name, server)) = rest.split_once(':') else {
        return false;
    };
    let fine = |s: &str| {
        !s.is_empty() && s.len() <= 255 && s.chars().all(|c| c.is_ascii_graphic() && c != '@')
    };
    fine(name) && fine(server)
}

/// #75, #137: a peer's label with `@`, controls and line breaks taken out,
/// spaces folded, at most `LABEL_MAX` characters; empty reads `fallback`.
pub fn clean_label(label: &str, fallback: &str) -> String {
    let kept: String = label
        .chars()
        .map(|c| if c.is_control() { ' ' } else { c })
        .filter(|c| *c != '@')
        .collect();
    let folded = kept.split_whitespace().collect::<Vec<_>>().join(" ");
    let cut: String = folded.chars().take(LABEL_MAX).collect();
    match cut.is_empty() {
        true => fallback.to_owned(),
        false => cut,
    }
}

/// #498 `friendBotTitle`: a friend's Bot as every surface names it.
pub fn friend_bot_title(bot_name: &str, owner_name: &str) -> String {
    format!("{bot_name} ({owner_name})")
}

/// #967 `remoteMentionLabel`: the one name a friend's Bot wears on every
/// surface (the sidebar, a mention, a line): its title, and the home too
/// when a Bot of another home in `others` (title, home) has the same title.
pub fn remote_mention_label(title: &str, home: &str, others: &[(&str, &str)]) -> String {
    let clash = others.iter().any(|(t, h)| *t == title && *h != home);
    match clash {
        true => format!("{title} · {home}"),
        false => title.to_owned(),
    }
}

/// A Matrix message as FlyBot reads it, by its form (#66).
#[derive(Debug, Clone, PartialEq)]
pub enum RemoteMessage {
    /// A FlyBot line of a known form.
    Line { line: LineContent, text: String },
    /// A plain client's text: a person typed it.
    Plain { text: String },
    /// Not a text message (a reaction, an image, an edit): ignored.
    Other,
}

/// Reads an `m.room.message` content by its form: a known `org.flybot.line`
/// is FlyBot's, any other text a person's, never by who sent it.
pub fn read_message(content: &Value) -> RemoteMessage {
    let Some(text) = content.get("body").and_then(Value::as_str) else {
        return RemoteMessage::Other;
    };
    let text = text.to_owned();
    let plain = content.get("msgtype").and_then(Value::as_str) == Some("m.text");
    match content.get(LINE_KEY).cloned().map(serde_json::from_value) {
        Some(Ok(line)) => RemoteMessage::Line { line, text },
        Some(Err(_)) | None if plain => RemoteMessage::Plain { text },
        _ => RemoteMessage::Other,
    }
}

/// #1068: the fixed sentence for a turn that ended without an answer;
/// `no_model` when the Bot has no model set up.
pub fn failure_sentence(no_model: bool) -> &'static str {
    match no_model {
        true => NO_MODEL,
        false => NO_ANSWER,
    }
}

/// #1068: a line that is already a failure sentence earns none back, so
/// two homes that cannot run a model do not trade it.
pub fn is_failure_sentence(text: &str) -> bool {
    text == NO_MODEL || text == NO_ANSWER
}

/// The retry delay after `attempts` failed sends: 0.5 s doubling, 30 s at most.
pub fn backoff_ms(attempts: u32) -> u64 {
    500u64.saturating_mul(1u64 << attempts.min(6)).min(30_000)
}

#[cfg(test)]
mod tests {
    use super::*;
    use flybot_protocol::state::Grant;
    use serde_json::json;

    fn team_with(bot: &str, grantee: Option<&str>) -> TeamState {
        let mut state: TeamState = serde_json::from_value(json!({"version": 2})).unwrap();
        let record = flybot_protocol::state::Bot::new(bot, "Helper", "m1", "mock", "s1", 0);
        state.bots.insert(bot.into(), record);
        if let Some(grantee) = grantee {
            let grant = Grant {
                grantee: grantee.into(),
                room_id: None,
            };
            state.grants.insert(bot.into(), vec![grant]);
        }
        state
    }

    #[test]
    /// Rule #90.
    fn reach_default_deny_and_only_the_named_friend() {
        let none = team_with("b1", None);
        assert_eq!(reach(&none, "b1", "@bob:hs"), Err(Unreachable::NotGranted));
        let bob = team_with("b1", Some("@bob:hs"));
        assert_eq!(reach(&bob, "b1", "@bob:hs"), Ok(()));
        assert_eq!(reach(&bob, "b1", "@carol:hs"), Err(Unreachable::NotGranted));
        assert_eq!(reach(&bob, "b2", "@bob:hs"), Err(Unreachable::NoBot));
    }

    #[test]
    /// Rule #75.
    fn labels_lose_at_signs_controls_and_length() {
        assert_eq!(clean_label("@Eve\n\u{7}Bot", "x"), "Eve Bot");
        assert_eq!(clean_label("  ", "Friend"), "Friend");
        assert_eq!(clean_label(&"a".repeat(100), "x").len(), LABEL_MAX);
        assert_eq!(friend_bot_title("Helper", "Alice"), "Helper (Alice)");
    }

    #[test]
    /// Rule #66.
    fn messages_are_read_by_form() {
        let ask =
            json!({"msgtype": "m.text", "body": "hi", LINE_KEY: {"kind": "ask", "typed": true}});
        assert_eq!(
            read_message(&ask),
            RemoteMessage::Line {
                line: LineContent::Ask { typed: true },
                text: "hi".into()
            }
        );
        let odd = json!({"msgtype": "m.text", "body": "hi", LINE_KEY: {"kind": "whatever"}});
        assert_eq!(
            read_message(&odd),
            RemoteMessage::Plain { text: "hi".into() }
        );
        let image = json!({"msgtype": "m.image", "body": "cat.png"});
        assert_eq!(read_message(&image), RemoteMessage::Other);
    }

    #[test]
    fn user_ids_and_backoff() {
        assert!(is_user_id("@bob:localhost"));
        assert!(!is_user_id("bob"));
        assert!(!is_user_id("@bob"));
        assert!(!is_user_id("@b ob:hs"));
        assert_eq!(backoff_ms(0), 500);
        assert_eq!(backoff_ms(20), 30_000);
        assert!(is_failure_sentence(NO_ANSWER));
        assert_ne!(failure_sentence(true), failure_sentence(false));
    }

    #[test]
    /// Rule #967.
    fn remote_mention_label_names_the_home_only_when_two_homes_share_a_title() {
        let one = friend_bot_title("Chief", "Bob");
        let others = [(one.as_str(), "@bob:a"), ("Helper (Ann)", "@ann:a")];
        assert_eq!(remote_mention_label(&one, "@bob:a", &others), "Chief (Bob)");
        let clash = [(one.as_str(), "@bob:a"), (one.as_str(), "@bob2:b")];
        assert_eq!(
            remote_mention_label(&one, "@bob2:b", &clash),
            "Chief (Bob) · @bob2:b"
        );
    }
}
