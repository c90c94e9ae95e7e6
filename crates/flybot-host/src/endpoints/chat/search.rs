//! `search {query, limit?}` (issue 31): the lines matching a person's words
//! in the conversations the caller may read (`search::scope`: its Bots'
//! own chats and the rooms from its membership window on), best first,
//! each with where it is and a snippet with the matched words marked.

use crate::search::Search;
use crate::search::scope::scope_of;
use flybot_core::access::Actor;
use flybot_protocol::answers::{SearchHit, SearchHits, SnippetPiece};
use flybot_protocol::{ApiError, ErrorCode};
use flybot_store::search::match_expression;
use serde::Deserialize;

/// Hits answered when the request names no limit.
const DEFAULT_LIMIT: u32 = 20;
/// The most hits one request may ask for.
const MAX_LIMIT: u32 = 100;
/// The longest query, in characters.
const MAX_QUERY: usize = 200;

#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SearchRequest {
    pub query: String,
    #[serde(default)]
    pub limit: Option<u32>,
}

/// `search {query, limit?}` → `{query, hits}`.
pub async fn search(
    search: &Search,
    actor: &Actor,
    req: SearchRequest,
) -> Result<SearchHits, ApiError> {
    if req.query.chars().count() > MAX_QUERY {
        return Err(ApiError::invalid(
            "query",
            format!("Search for at most {MAX_QUERY} characters."),
        ));
    }
    let Some(expression) = match_expression(&req.query) else {
        return Err(ApiError::invalid("query", "Type a word to search for."));
    };
    let limit = req.limit.unwrap_or(DEFAULT_LIMIT);
    if limit == 0 || limit > MAX_LIMIT {
        return Err(ApiError::invalid(
            "limit",
            format!("Ask for between 1 and {MAX_LIMIT} results."),
        ));
    }
    search.catch_up().await;
    let Some(index) = search.index().await else {
        return Err(unavailable());
    };
    let team = search.team();
    let (windows, places) = team.read(|state| scope_of(state, actor));
    let found = index
        .search(&expression, &windows, limit)
        .await
        .map_err(|e| {
            tracing::error!("search failed: {e}");
            unavailable()
        })?;
    let hits = team.read(|state| {
        found
            .into_iter()
            .filter_map(|hit| {
                let place = places.get(&hit.conversation)?;
                let author = author_name(state, &hit.author);
                let is_chat = place.kind == flybot_protocol::answers::SearchPlace::Chat;
                Some(SearchHit {
                    place: place.kind,
                    bot_id: is_chat.then(|| place.id.clone()),
                    room_id: (!is_chat).then(|| place.id.clone()),
                    name: place.name.clone(),
                    seq: hit.seq,
                    at: hit.at,
                    author,
                    snippet: hit
                        .snippet
                        .into_iter()
                        .map(|part| SnippetPiece {
                            text: part.text,
                            hit: part.hit,
                        })
                        .collect(),
                })
            })
            .collect()
    });
    Ok(SearchHits {
        query: req.query,
        hits,
    })
}

/// A line's author by name: a member or a Bot; a schedule's or a
/// channel's line, or one of a member since removed, has none to show.
fn author_name(state: &flybot_protocol::state::TeamState, id: &str) -> String {
    if let Some(member) = state.members.get(id) {
        return member.name.clone();
    }
    if let Some(bot) = state.bots.get(id) {
        return bot.name.clone();
    }
    String::new()
}

fn unavailable() -> ApiError {
    ApiError::new(
        ErrorCode::Unavailable,
        "Search is not available on this host right now; try again.",
    )
}
