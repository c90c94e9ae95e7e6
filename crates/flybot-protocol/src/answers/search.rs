//! `search {query}` → the lines the caller may read that match it (issue
//! 31): where each one is, who wrote it, and a snippet with the matched
//! words marked, for the page to open the conversation at that line.

use serde::Serialize;

/// Where a hit is: a Bot's own chat or a room.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum SearchPlace {
    Chat,
    Room,
}

/// A piece of a snippet; `hit` marks a word the query matched.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SnippetPiece {
    pub text: String,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub hit: bool,
}

/// One matching line.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SearchHit {
    pub place: SearchPlace,
    /// The Bot whose chat it is (a chat hit).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bot_id: Option<String>,
    /// The room (a room hit).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub room_id: Option<String>,
    /// The Bot's or the room's name.
    pub name: String,
    /// The line's seq in its conversation: `messages` pages to it.
    pub seq: u64,
    pub at: u64,
    /// Who wrote the line, by name.
    pub author: String,
    pub snippet: Vec<SnippetPiece>,
}

/// `search {query, limit?}` → `{query, hits}`, the best match first.
#[derive(Debug, Clone, Serialize)]
pub struct SearchHits {
    pub query: String,
    pub hits: Vec<SearchHit>,
}
