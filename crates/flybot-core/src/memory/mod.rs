//! Memory (#53, #450, #638 and "Memory recall: semantic and graph"): a Bot's
//! entries and the team's shared scope, kept as Markdown files that stay the
//! only source of truth. Everything here is a pure function of the entries:
//! the file format, the checks an entry passes before it is written, who may
//! read which scope, and the recall index (exact words, TF-IDF cosine, the
//! `[[topic]]` / `by:` graph), built from the files and rebuilt when they
//! change.

pub mod exact;
pub mod graph;
pub mod index;
pub mod markdown;
pub mod scope;
pub mod semantic;
pub mod terms;

use crate::secret_shape::looks_like_secret;
use flybot_protocol::ApiError;
use serde::{Deserialize, Serialize};

/// The longest entry, in characters.
pub const ENTRY_MAX_CHARS: usize = 2_000;
/// The longest topic, in characters.
pub const TOPIC_MAX_CHARS: usize = 80;
/// The longest pinned block, in characters: it rides in every system prompt.
pub const PINNED_MAX_CHARS: usize = 1_500;
/// How many of a Bot's own entries the #450 seam reads, newest kept.
pub const OWN_READ_CAP: usize = 200;
/// The topic of an entry saved without one.
pub const DEFAULT_TOPIC: &str = "notes";

/// Where an entry lives: one Bot's own memory, or the team's shared scope.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Scope {
    Bot {
        #[serde(rename = "botId")]
        bot_id: String,
    },
    Team,
}

impl Scope {
    pub fn bot(bot_id: &str) -> Scope {
        Scope::Bot {
            bot_id: bot_id.to_owned(),
        }
    }

    /// The scope's name in the journal and in file paths: the Bot id, or `team`.
    pub fn key(&self) -> &str {
        match self {
            Scope::Bot { bot_id } => bot_id,
            Scope::Team => "team",
        }
    }
}

/// One memory entry: its id, topic, author (`by:`, a Bot or member id), time
/// and text.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct MemoryEntry {
    pub id: String,
    pub topic: String,
    pub by: String,
    /// Milliseconds since the Unix epoch.
    pub at: u64,
    pub text: String,
}

/// The text and topic of an entry, checked before anything is written:
/// not empty, size-capped, no line break in the topic, nothing shaped like
/// a secret. Answers the cleaned `(topic, text)`.
pub fn checked_entry(topic: Option<&str>, text: &str) -> Result<(String, String), ApiError> {
    let text = text.trim();
    if text.is_empty() {
        return Err(ApiError::invalid(
            "text",
            "A memory entry needs some text; write what should be remembered.",
        ));
    }
    if text.chars().count() > ENTRY_MAX_CHARS {
        return Err(ApiError::invalid(
            "text",
            format!(
                "A memory entry holds at most {ENTRY_MAX_CHARS} characters; save a shorter note or split it."
            ),
        ));
    }
    let topic = topic
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .unwrap_or(DEFAULT_TOPIC);
    if topic.chars().count() > TOPIC_MAX_CHARS || topic.contains(['\n', '\r']) {
        return Err(ApiError::invalid(
            "topic",
            format!("A topic is one line of at most {TOPIC_MAX_CHARS} characters."),
        ));
    }
    if looks_like_secret(text) || looks_like_secret(topic) {
        return Err(secret_refusal("text"));
    }
    Ok((topic.to_owned(), text.to_owned()))
}

/// The pinned block, checked: size-capped and nothing shaped like a secret
/// (an empty block clears it).
pub fn checked_pinned(text: &str) -> Result<String, ApiError> {
    let text = text.trim();
    if text.chars().count() > PINNED_MAX_CHARS {
        return Err(ApiError::invalid(
            "text",
            format!(
                "The pinned memory holds at most {PINNED_MAX_CHARS} characters; keep only what every conversation needs."
            ),
        ));
    }
    if looks_like_secret(text) {
        return Err(secret_refusal("text"));
    }
    Ok(text.to_owned())
}

fn secret_refusal(field: &str) -> ApiError {
    ApiError::invalid(
        field,
        "This looks like a key, token or password; memory never stores secrets, so save a note without it.",
    )
}

/// A Bot's own entries as the #450 seam reads them: the newest
/// `OWN_READ_CAP`, oldest first.
pub fn own_entries_capped(entries: &[MemoryEntry]) -> &[MemoryEntry] {
    &entries[entries.len().saturating_sub(OWN_READ_CAP)..]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secret_shaped_text_is_refused_with_one_sentence() {
        let refusal = checked_entry(None, "the key is sk-abcdefghijklmnop1234").unwrap_err();
        assert_eq!(refusal.code, flybot_protocol::ErrorCode::Invalid);
        assert!(refusal.message.contains("never stores secrets"));
        assert!(checked_pinned("password= hunter2hunter").is_err());
    }

    #[test]
    fn an_entry_is_size_capped_and_gets_a_default_topic() {
        assert!(checked_entry(None, &"a".repeat(ENTRY_MAX_CHARS + 1)).is_err());
        assert!(checked_entry(None, "  ").is_err());
        assert!(checked_entry(Some("two\nlines"), "x").is_err());
        assert_eq!(
            checked_entry(None, " Deploys go out on Fridays. ").unwrap(),
            ("notes".to_owned(), "Deploys go out on Fridays.".to_owned())
        );
    }

    #[test]
    /// Rule #450.
    fn own_entries_are_capped_at_200_newest_kept() {
        let entries: Vec<MemoryEntry> = (0..250)
            .map(|n| MemoryEntry {
                id: format!("mem-{n}"),
                topic: "t".into(),
                by: "bot-a".into(),
                at: n,
                text: "x".into(),
            })
            .collect();
        let read = own_entries_capped(&entries);
        assert_eq!(read.len(), 200);
        assert_eq!(read[0].id, "mem-50");
        assert_eq!(read[199].id, "mem-249");
    }
}
