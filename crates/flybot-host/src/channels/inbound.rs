//! The one path in (#1266): Feishu posts an app's events to
//! `POST /connectors/<id>/events`. The subscription's challenge is answered
//! when its verification token matches; a message whose token and App ID
//! match, from a sender on the allow-list, becomes a message to the
//! connector's Bot (fenced as a peer's text, its source naming the channel
//! and the chat, so the answer can go back out); a stranger's message
//! starts no turn and is counted as one refused sender. A redelivered event
//! lands once: its id is remembered only after the delivery succeeded.

use super::{Channels, REFUSED_KEPT, SEEN_KEPT, lock};
use flybot_agent::session::{ItemKind, Source};
use flybot_core::connectors::channel::{ChannelSecrets, Gate, gate};
use flybot_core::connectors::feishu_event::{FeishuEvent, FeishuMessage, parse, token_matches};
use flybot_protocol::channel_connectors::{ChannelMode, SavedChannel};
use flybot_protocol::{ApiError, ErrorCode};
use serde_json::{Value, json};

/// Where Feishu posts a channel's events (the axum route).
pub const EVENTS_ROUTE: &str = "/connectors/{id}/events";

fn unauthorized() -> ApiError {
    ApiError::new(
        ErrorCode::Unauthorized,
        "The event's verification token or App ID is not this channel's; check the app's event subscription.",
    )
}

impl Channels {
    /// Handles one callback body for channel `id`; answers what Feishu is
    /// sent back (`{challenge}` for the check).
    pub async fn inbound(&self, id: &str, body: &[u8]) -> Result<Value, ApiError> {
        let body: Value = serde_json::from_slice(body).map_err(|_| {
            ApiError::invalid(
                "body",
                "The body is not JSON; Feishu posts its events as JSON.",
            )
        })?;
        let event = parse(&body)?;
        let saved = self.table().get(id).map(|live| live.saved.clone());
        let Some(saved) = saved else {
            return Err(ApiError::not_found("connector", id));
        };
        if saved.mode != ChannelMode::App {
            return Err(ApiError::invalid(
                "id",
                format!(
                    "The {id} channel is a webhook: it takes no messages in; connect it as a self-built app (mode app)."
                ),
            ));
        }
        let expected = self
            .inner
            .secrets
            .value(&ChannelSecrets::of(id).verification_token)
            .unwrap_or_default();
        match event {
            FeishuEvent::Challenge { challenge, token } => {
                if !token_matches(&expected, &token) {
                    return Err(unauthorized());
                }
                Ok(json!({"challenge": challenge}))
            }
            FeishuEvent::Other { token, .. } => {
                if !token_matches(&expected, &token) {
                    return Err(unauthorized());
                }
                Ok(json!({"delivered": false}))
            }
            FeishuEvent::Message(message) => {
                let app_ok = saved.app_id.as_deref() == Some(message.app_id.as_str());
                if !token_matches(&expected, &message.token) || !app_ok {
                    return Err(unauthorized());
                }
                self.take_message(&saved, message)
            }
        }
    }

    /// A checked message: the gate, then the Bot's inbox.
    fn take_message(
        &self,
        saved: &SavedChannel,
        message: FeishuMessage,
    ) -> Result<Value, ApiError> {
        let now = flybot_store::system_now_ms();
        let name = {
            let mut table = self.table();
            let Some(live) = table.get_mut(&saved.id) else {
                return Err(ApiError::not_found("connector", &saved.id));
            };
            live.last_event_at = Some(now);
            if live.seen.contains(&message.event_id) {
                return Ok(json!({"delivered": false, "duplicate": true}));
            }
            match gate(&live.saved, &message.sender_open_id) {
                Gate::Allowed { name } => name,
                Gate::Stranger => {
                    if live.refused.len() < REFUSED_KEPT {
                        live.refused.insert(message.sender_open_id.clone());
                    }
                    return Ok(json!({"delivered": false}));
                }
            }
        };
        let session = self.team().read(|state| {
            state
                .bots
                .get(&saved.bot_id)
                .filter(|bot| !bot.is_retired())
                .map(|bot| bot.session_id.clone())
        });
        let Some(session) = session else {
            self.note_error(
                &saved.id,
                "The channel's Bot is gone; connect the channel to another Bot.",
            );
            return Ok(json!({"delivered": false}));
        };
        let text = flybot_core::fences::fence(&format!("Feishu: {name}"), &message.text);
        let source = Source::Connector {
            connector: saved.id.clone(),
            chat: message.chat_id.clone(),
        };
        // Counted before the delivery, so a turn that ends at once is seen.
        *lock(&self.inner.waiting)
            .entry(session.clone())
            .or_default() += 1;
        if let Err(e) = self
            .inner
            .sessions
            .deliver(&session, &text, source, ItemKind::NextTurn)
        {
            self.answered(&session);
            tracing::warn!(
                "a Feishu message was not delivered to {}: {e}",
                saved.bot_id
            );
            return Err(ApiError::new(
                ErrorCode::ReadOnly,
                "The message could not be handed to the Bot on this host; Feishu will send it again.",
            ));
        }
        if let Some(live) = self.table().get_mut(&saved.id) {
            live.seen.push_back(message.event_id);
            while live.seen.len() > SEEN_KEPT {
                live.seen.pop_front();
            }
        }
        Ok(json!({"delivered": true}))
    }

    fn note_error(&self, id: &str, why: &str) {
        if let Some(live) = self.table().get_mut(id) {
            live.last_error = Some(why.to_owned());
        }
    }
}
