//! A channel's writes (#1263, #1266): `connector-connect {kind: "channel"}`
//! saves the credentials in `secrets.json` first, then proves them once (a
//! webhook's test POST into the group; an app's pair with one
//! tenant_access_token call whose token is dropped), so a refusal stays on
//! the row as `error` with Feishu's reason; `connector-allow` and
//! `connector-block` change the allow-list; `connector-send` posts one
//! message through the webhook on the notifier's retry policy; a
//! disconnect forgets the channel and clears its credentials.

use super::{Channels, Live};
use crate::notify::feishu::FeishuWebhook;
use crate::notify::feishu_app::FeishuApp;
use crate::notify::notifier::{Notifier, Outcome, PostError, Transport};
use flybot_core::access::{Actor, may_manage_bot};
use flybot_core::connectors::channel::{self, ChannelSecrets};
use flybot_protocol::channel_connectors::{
    ChannelConnect, ChannelMode, ConnectorAllow, ConnectorBlock, ConnectorSend, ConnectorSent,
    SavedChannel,
};
use flybot_protocol::connectors::{ConnectorRow, ConnectorStatus};
use flybot_protocol::secrets::{SecretScope, SecretSet, SecretValue};
use flybot_protocol::{ApiError, ErrorCode};
use std::sync::Arc;
use std::time::Duration;

/// How long the connect step's proof may take.
const PROBE_DEADLINE: Duration = Duration::from_secs(15);
/// The text a webhook's connect step posts into the group.
const PROBE_TEXT: &str = "FlyBot is connected to this group.";

/// What Feishu's refusal reads as on the row (no URL, no secret).
fn said(error: &PostError) -> String {
    match error {
        PostError::Structural(why) => format!("Feishu refused it ({why})."),
        PostError::Network(why) => format!("Feishu could not be reached ({why})."),
        PostError::RateLimited { .. } => {
            "Feishu's rate limit was reached; try again in a minute.".to_owned()
        }
    }
}

impl Channels {
    fn http(&self) -> Result<reqwest::Client, ApiError> {
        self.inner.http.clone().ok_or_else(|| {
            ApiError::new(
                ErrorCode::ReadOnly,
                "This host has no HTTP client, so it cannot reach Feishu.",
            )
        })
    }

    /// The app of a saved channel with its secret, read now.
    pub(super) fn app_of(&self, channel: &SavedChannel) -> Option<FeishuApp> {
        let secret = self
            .inner
            .secrets
            .value(&ChannelSecrets::of(&channel.id).app_secret)?;
        Some(FeishuApp {
            http: self.inner.http.clone()?,
            origin: self.inner.origin.clone(),
            app_id: channel.app_id.clone()?,
            app_secret: secret,
        })
    }

    /// `connector-connect {kind: "channel", ...}` → the row once proven.
    pub async fn connect(
        &self,
        actor: &Actor,
        req: ChannelConnect,
    ) -> Result<ConnectorRow, ApiError> {
        self.inner.secrets.check_writable()?;
        let mut saved = channel::check_connect(&req, &self.inner.origin)?;
        self.check_bot(actor, &req.bot_id)?;
        let http = self.http()?;
        if let Some(live) = self.table().get(&req.id) {
            // A reconnect keeps the guest list.
            saved.allowed = live.saved.allowed.clone();
        }
        self.save_credentials(actor, &req)?;
        self.save_with(Some(&saved), &req.id)?;
        let live = Live::new(saved.clone(), ConnectorStatus::Connecting, None);
        self.table().insert(req.id.clone(), live);
        let values: Vec<String> = [&req.webhook, &req.app_secret, &req.verification_token]
            .into_iter()
            .flatten()
            .map(|v| v.0.clone())
            .collect();
        let proof = tokio::time::timeout(PROBE_DEADLINE, prove(http, &self.inner.origin, &req));
        let outcome = match proof.await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(error)) => Err(said(&error)),
            Err(_) => Err("Feishu did not answer within 15 seconds.".to_owned()),
        };
        let keys: Vec<&str> = values.iter().map(String::as_str).collect();
        let mut table = self.table();
        if let Some(live) = table.get_mut(&req.id).filter(|l| l.saved == saved) {
            match outcome {
                Ok(()) => (live.status, live.error) = (ConnectorStatus::Ready, None),
                Err(why) => {
                    live.status = ConnectorStatus::Error;
                    live.error = Some(flybot_core::secrets::redact(&why, &keys));
                }
            }
        }
        drop(table);
        self.row(&req.id)
            .ok_or_else(|| ApiError::not_found("connector", &req.id))
    }

    /// The Bot a channel talks to: one of the actor's own, not a run Bot.
    fn check_bot(&self, actor: &Actor, bot_id: &str) -> Result<(), ApiError> {
        self.team().read(|state| match state.bots.get(bot_id) {
            Some(bot) if bot.run || bot.hidden || bot.is_retired() => Err(ApiError::invalid(
                "botId",
                "Pick one of your own Bots for the channel; a run Bot or a deleted one cannot take messages.",
            )),
            Some(bot) if !may_manage_bot(actor, bot) => Err(ApiError::forbidden(
                "Only the Bot's owner may connect a channel to it.",
            )),
            Some(_) => Ok(()),
            None => Err(ApiError::not_found("Bot", bot_id)),
        })
    }

    /// Saves the mode's credentials (for no Bot's shell: they are the
    /// host's, #545) and clears the other mode's.
    fn save_credentials(&self, actor: &Actor, req: &ChannelConnect) -> Result<(), ApiError> {
        let names = ChannelSecrets::of(&req.id);
        let by = self.team().read(|state| actor.member_id(state));
        let now = flybot_store::system_now_ms();
        let given: Vec<(&String, &Option<SecretValue>)> = vec![
            (&names.webhook, &req.webhook),
            (&names.app_secret, &req.app_secret),
            (&names.verification_token, &req.verification_token),
        ];
        self.inner.secrets.edit(|file, _| {
            for (name, value) in given {
                match value {
                    Some(value) => {
                        let set = SecretSet {
                            name: name.clone(),
                            value: value.clone(),
                            scope: Some(SecretScope::Bots(Vec::new())),
                        };
                        flybot_core::secrets::set(file, set, by.clone(), now)?;
                    }
                    None => {
                        file.secrets.remove(name);
                    }
                }
            }
            Ok(())
        })
    }

    /// `connector-disconnect` of a channel: forgotten, credentials cleared.
    pub fn disconnect(&self, id: &str) -> Result<ConnectorRow, ApiError> {
        self.inner.secrets.check_writable()?;
        if !self.has(id) {
            return Err(ApiError::not_found("connector", id));
        }
        self.save_with(None, id)?;
        self.table().remove(id);
        let names = ChannelSecrets::of(id);
        self.inner.secrets.edit(|file, _| {
            for name in names.all() {
                file.secrets.remove(name);
            }
            Ok(())
        })?;
        Ok(ConnectorRow::off(id, "channel"))
    }

    /// `connector-allow` / `connector-block`: the allow-list changed through
    /// `edit`, saved before the row shows it; nothing changes on refusal.
    fn edit_allowed(
        &self,
        id: &str,
        edit: impl FnOnce(&mut SavedChannel) -> Result<(), ApiError>,
    ) -> Result<ConnectorRow, ApiError> {
        self.inner.secrets.check_writable()?;
        let mut table = self.table();
        let Some(live) = table.get_mut(id) else {
            return Err(ApiError::not_found("connector", id));
        };
        let mut saved = live.saved.clone();
        edit(&mut saved)?;
        if saved != live.saved {
            self.save_with(Some(&saved), id)?;
            live.saved = saved;
        }
        drop(table);
        self.row(id)
            .ok_or_else(|| ApiError::not_found("connector", id))
    }

    pub fn allow(&self, req: &ConnectorAllow) -> Result<ConnectorRow, ApiError> {
        self.edit_allowed(&req.id, |saved| {
            channel::allow(saved, &req.open_id, req.name.as_deref()).map(|_| ())
        })
    }

    pub fn block(&self, req: &ConnectorBlock) -> Result<ConnectorRow, ApiError> {
        self.edit_allowed(&req.id, |saved| channel::block(saved, &req.open_id))
    }

    /// `connector-send {id, text}`: one message through the webhook, with a
    /// fresh key (two sends of the same text are two messages).
    pub async fn send(&self, req: &ConnectorSend) -> Result<ConnectorSent, ApiError> {
        self.inner.secrets.check_writable()?;
        channel::check_send_text(&req.text)?;
        let mode = self.table().get(&req.id).map(|l| l.saved.mode);
        match mode {
            None => return Err(ApiError::not_found("connector", &req.id)),
            Some(ChannelMode::App) => {
                return Err(ApiError::invalid(
                    "id",
                    "An app channel answers in the chat a message came from; connector-send posts through a webhook channel.",
                ));
            }
            Some(ChannelMode::Webhook) => {}
        }
        let url = self
            .inner
            .secrets
            .value(&ChannelSecrets::of(&req.id).webhook)
            .unwrap_or_default();
        let hook = FeishuWebhook::new(self.http()?, &url, &self.inner.origin)
            .map_err(|why| ApiError::invalid("id", why))?;
        let key = crate::ids::new_id("send");
        let outcome = Notifier::new(Arc::new(hook), Arc::new(|| true))
            .send(&key, &req.text)
            .await;
        Ok(self.record_outcome(&req.id, outcome, &[&url]))
    }

    /// Notes a send's outcome on the row (`lastOkAt` / `lastError`).
    pub(super) fn record_outcome(
        &self,
        id: &str,
        outcome: Outcome,
        keys: &[&str],
    ) -> ConnectorSent {
        let error = match outcome {
            Outcome::Sent { .. } | Outcome::Duplicate { .. } => None,
            Outcome::Failed { error, .. } => Some(flybot_core::secrets::redact(
                &format!("Feishu did not take the message ({error})."),
                keys,
            )),
            Outcome::Off => Some("The channel is off.".to_owned()),
        };
        if let Some(live) = self.table().get_mut(id) {
            match &error {
                None => live.last_ok_at = Some(flybot_store::system_now_ms()),
                Some(why) => live.last_error = Some(why.clone()),
            }
        }
        ConnectorSent {
            sent: error.is_none(),
            error,
        }
    }
}

/// Proves the request's credentials once: the webhook's test message, or
/// the app's pair (the token Feishu answers is dropped here).
async fn prove(http: reqwest::Client, origin: &str, req: &ChannelConnect) -> Result<(), PostError> {
    match req.mode {
        ChannelMode::Webhook => {
            let url = req.webhook.as_ref().map(|v| v.0.as_str()).unwrap_or("");
            let hook = FeishuWebhook::new(http, url, origin).map_err(PostError::Structural)?;
            hook.post(PROBE_TEXT).await.map(|_| ())
        }
        ChannelMode::App => {
            let app = FeishuApp {
                http,
                origin: origin.to_owned(),
                app_id: req.app_id.clone().unwrap_or_default(),
                app_secret: req
                    .app_secret
                    .as_ref()
                    .map(|v| v.0.clone())
                    .unwrap_or_default(),
            };
            app.token().await.map(|_token| ())
        }
    }
}
