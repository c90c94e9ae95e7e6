//! The Matrix side of a room's invite links (#884): each room that hands
//! out links has one lobby, a Matrix room its home makes that anyone may
//! read (world-readable history) and knock on (join rule `knock`) but only
//! its maker writes. Each link is a state event `org.flybot.invite` keyed
//! by its ticket (`open` or `withdrawn`) and an alias made from the
//! ticket; a claim is a knock whose reason carries the ticket, the home
//! and its Bots. The homeserver keeps both, authenticated: whoever reads
//! them back (the inviter's verify, the invitee's preview) reads what the
//! server holds, never what a message said.

use super::verdict::{ServerLink, ServerRecord};
use crate::social::client::{Matrix, MatrixError, segment};
use reqwest::Method;
use serde_json::{Value, json};

/// The state event type of one link in a lobby.
pub const INVITE_STATE: &str = "org.flybot.invite";

/// Makes a lobby: knock to ask, world-readable to preview, no one invited.
pub async fn create(matrix: &Matrix, name: &str) -> Result<String, MatrixError> {
    let body = json!({
        "preset": "private_chat",
        "room_version": "10",
        "name": format!("{name} (invite links)"),
        "initial_state": [
            {"type": "m.room.join_rules", "state_key": "", "content": {"join_rule": "knock"}},
            {"type": "m.room.history_visibility", "state_key": "",
             "content": {"history_visibility": "world_readable"}},
        ],
    });
    let made = matrix
        .call(Method::POST, "/createRoom", Some(&body))
        .await?;
    made["room_id"]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| MatrixError::Refused("a room made without an id".into()))
}

/// Writes one link's state in the lobby.
pub async fn put_link(
    matrix: &Matrix,
    lobby: &str,
    ticket: &str,
    link: &ServerLink,
) -> Result<(), MatrixError> {
    let path = format!(
        "/rooms/{}/state/{}/{}",
        segment(lobby),
        segment(INVITE_STATE),
        segment(ticket)
    );
    let content = serde_json::to_value(link).unwrap_or_default();
    matrix.call(Method::PUT, &path, Some(&content)).await?;
    Ok(())
}

/// Points the ticket's alias at the lobby.
pub async fn put_alias(matrix: &Matrix, alias: &str, lobby: &str) -> Result<(), MatrixError> {
    let path = format!("/directory/room/{}", segment(alias));
    let body = json!({"room_id": lobby});
    matrix.call(Method::PUT, &path, Some(&body)).await?;
    Ok(())
}

/// The lobby an alias names.
pub async fn resolve(matrix: &Matrix, alias: &str) -> Result<String, MatrixError> {
    let path = format!("/directory/room/{}", segment(alias));
    let found = matrix.call(Method::GET, &path, None).await?;
    found["room_id"]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| MatrixError::Refused("an alias without a room".into()))
}

/// The lobby's whole state, as the homeserver holds it.
pub async fn state(matrix: &Matrix, lobby: &str) -> Result<Vec<Value>, MatrixError> {
    matrix.room_state(lobby).await
}

/// The lobby's maker: the sender of its create event.
pub fn maker(events: &[Value]) -> Option<String> {
    crate::social::client::room_creator(events)
}

/// The links (written by the lobby's maker only) and the knocks.
pub fn record(events: &[Value]) -> ServerRecord {
    let maker = maker(events);
    let mut record = ServerRecord::default();
    for event in events {
        let key = event["state_key"].as_str().unwrap_or_default().to_owned();
        if event["type"] == INVITE_STATE && event["sender"].as_str() == maker.as_deref() {
            if let Ok(link) = serde_json::from_value::<ServerLink>(event["content"].clone()) {
                record.links.insert(key, link);
            }
        } else if event["type"] == "m.room.member"
            && event["content"]["membership"] == "knock"
            && event["sender"].as_str() == Some(key.as_str())
        {
            let reason = event["content"]["reason"].as_str().unwrap_or_default();
            record.knocks.insert(key, reason.to_owned());
        }
    }
    record
}

/// This user's own membership in the lobby and its reason.
pub fn membership_of(events: &[Value], user: &str) -> Option<(String, String)> {
    events
        .iter()
        .find(|e| e["type"] == "m.room.member" && e["state_key"] == user)
        .map(|e| {
            let content = &e["content"];
            let membership = content["membership"].as_str().unwrap_or_default();
            let reason = content["reason"].as_str().unwrap_or_default();
            (membership.to_owned(), reason.to_owned())
        })
}

/// Knocks on the lobby with the claim as the reason.
pub async fn knock(matrix: &Matrix, lobby: &str, reason: &str) -> Result<(), MatrixError> {
    let path = format!("/knock/{}", segment(lobby));
    let body = json!({"reason": reason});
    matrix.call(Method::POST, &path, Some(&body)).await?;
    Ok(())
}

/// Answers a knock no: the knock is gone, the reason names the code.
pub async fn deny(matrix: &Matrix, lobby: &str, user: &str, code: &str) -> Result<(), MatrixError> {
    let path = format!("/rooms/{}/kick", segment(lobby));
    let body = json!({"user_id": user, "reason": format!("flybot:{code}")});
    matrix.call(Method::POST, &path, Some(&body)).await?;
    Ok(())
}

/// Takes this home's knock back (a claim given back): leaving a room one
/// knocked on rescinds the knock.
pub async fn leave(matrix: &Matrix, lobby: &str) -> Result<(), MatrixError> {
    let path = format!("/rooms/{}/leave", segment(lobby));
    matrix.call(Method::POST, &path, Some(&json!({}))).await?;
    Ok(())
}
