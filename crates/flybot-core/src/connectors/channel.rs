//! Channel connectors' rules (#1263, #1266): a `connector-connect` of kind
//! `channel` checked at the edge (the mode's credentials present, the
//! webhook on the Feishu origin, an App ID's shape), the names of the
//! secrets a channel keeps its credentials under, and the inbound
//! allow-list: nobody by default, changed only by `connector-allow` and
//! `connector-block`, and the gate a sender's message passes.

use flybot_protocol::ApiError;
use flybot_protocol::channel_connectors::{
    AllowedSender, ChannelConnect, ChannelMode, SavedChannel,
};

/// The most senders one channel lets in.
pub const ALLOWED_MAX: usize = 200;
/// The longest message `connector-send` posts, in characters.
pub const SEND_MAX: usize = 4_000;

/// The secrets one channel's credentials are saved under, named after its
/// id (`feishu` → `FEISHU_WEBHOOK`, `FEISHU_APP_SECRET`,
/// `FEISHU_VERIFICATION_TOKEN`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChannelSecrets {
    pub webhook: String,
    pub app_secret: String,
    pub verification_token: String,
}

impl ChannelSecrets {
    pub fn of(id: &str) -> ChannelSecrets {
        let stem = id.to_ascii_uppercase().replace('-', "_");
        ChannelSecrets {
            webhook: format!("{stem}_WEBHOOK"),
            app_secret: format!("{stem}_APP_SECRET"),
            verification_token: format!("{stem}_VERIFICATION_TOKEN"),
        }
    }

    /// Every name, for a disconnect that clears them.
    pub fn all(&self) -> [&str; 3] {
        [&self.webhook, &self.app_secret, &self.verification_token]
    }
}

/// Whether `url` is https on `origin` (a loopback origin may be plain
/// http: nothing leaves the machine). The URL is the credential, so it is
/// never posted to another host.
pub fn on_origin(url: &str, origin: &str) -> bool {
    let origin = origin.trim_end_matches('/');
    let loopback =
        origin.starts_with("http://127.0.0.1:") || origin.starts_with("http://localhost:");
    url.starts_with(&format!("{origin}/")) && (origin.starts_with("https://") || loopback)
}

/// An App ID: `cli_` then letters and digits, at most 64 characters.
fn app_id_ok(app_id: &str) -> bool {
    app_id.len() <= 64
        && app_id
            .strip_prefix("cli_")
            .is_some_and(|rest| !rest.is_empty() && rest.chars().all(|c| c.is_ascii_alphanumeric()))
}

/// A Feishu user's `open_id`: `ou_` then letters, digits, `_` or `-`.
pub fn check_open_id(open_id: &str) -> Result<(), ApiError> {
    let ok = open_id.len() <= 64
        && open_id.strip_prefix("ou_").is_some_and(|rest| {
            !rest.is_empty()
                && rest
                    .chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
        });
    if !ok {
        return Err(ApiError::invalid(
            "openId",
            "A Feishu sender is named by its open_id, like ou_7d8a6e6df7621556ce0d21922b676706.",
        ));
    }
    Ok(())
}

/// Checks a channel's connect request against the Feishu origin `origin`;
/// answers the record to keep (the credentials stay in the request).
pub fn check_connect(req: &ChannelConnect, origin: &str) -> Result<SavedChannel, ApiError> {
    super::check_name(&req.id)?;
    if req.kind != "channel" {
        return Err(ApiError::invalid(
            "kind",
            "A channel connector's kind is channel.",
        ));
    }
    match req.mode {
        ChannelMode::Webhook => {
            let Some(url) = &req.webhook else {
                return Err(ApiError::invalid(
                    "webhook",
                    "Paste the custom bot's webhook URL from the Feishu group's settings.",
                ));
            };
            if req.app_id.is_some() || req.app_secret.is_some() || req.verification_token.is_some()
            {
                return Err(ApiError::invalid(
                    "mode",
                    "A webhook connector takes only the webhook; connect an app with mode app.",
                ));
            }
            if !on_origin(&url.0, origin) {
                return Err(ApiError::invalid(
                    "webhook",
                    format!(
                        "A Feishu webhook must be https on {}.",
                        origin.trim_end_matches('/')
                    ),
                ));
            }
        }
        ChannelMode::App => check_app(req)?,
    }
    Ok(SavedChannel {
        id: req.id.clone(),
        mode: req.mode,
        bot_id: req.bot_id.clone(),
        app_id: req.app_id.clone(),
        allowed: Vec::new(),
    })
}

fn check_app(req: &ChannelConnect) -> Result<(), ApiError> {
    if req.webhook.is_some() {
        return Err(ApiError::invalid(
            "webhook",
            "An app connector answers through the app; leave the webhook out or connect it with mode webhook.",
        ));
    }
    if !req.app_id.as_deref().is_some_and(app_id_ok) {
        return Err(ApiError::invalid(
            "appId",
            "Give the app's App ID from the Feishu developer console, like cli_a1b2c3d4e5f6.",
        ));
    }
    for (field, value) in [
        ("appSecret", &req.app_secret),
        ("verificationToken", &req.verification_token),
    ] {
        let Some(value) = value else {
            return Err(ApiError::invalid(
                field,
                format!("Give the app's {field} from the Feishu developer console."),
            ));
        };
        crate::secrets::check_value(value).map_err(|e| ApiError::invalid(field, e.message))?;
    }
    Ok(())
}

/// What the gate says about a sender's message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Gate {
    /// On the allow-list: its message starts a turn; the name it goes by.
    Allowed { name: String },
    /// Nobody let it in: no turn, one refused sender.
    Stranger,
}

/// Whether `open_id` may start a turn on `channel` (#1266: nobody by
/// default; an empty id never matches).
pub fn gate(channel: &SavedChannel, open_id: &str) -> Gate {
    match channel
        .allowed
        .iter()
        .find(|a| !open_id.is_empty() && a.open_id == open_id)
    {
        Some(sender) => Gate::Allowed {
            name: sender.name.clone().unwrap_or_else(|| open_id.to_owned()),
        },
        None => Gate::Stranger,
    }
}

/// `connector-allow`: adds (or renames) a sender; answers whether the
/// record changed.
pub fn allow(
    channel: &mut SavedChannel,
    open_id: &str,
    name: Option<&str>,
) -> Result<bool, ApiError> {
    check_open_id(open_id)?;
    let name = name.map(str::trim).filter(|n| !n.is_empty());
    if name.is_some_and(|n| n.chars().count() > 80 || n.chars().any(char::is_control)) {
        return Err(ApiError::invalid(
            "name",
            "A sender's name is at most 80 characters on one line.",
        ));
    }
    let sender = AllowedSender {
        open_id: open_id.to_owned(),
        name: name.map(str::to_owned),
    };
    if let Some(known) = channel.allowed.iter_mut().find(|a| a.open_id == open_id) {
        let changed = *known != sender;
        *known = sender;
        return Ok(changed);
    }
    if channel.allowed.len() >= ALLOWED_MAX {
        return Err(ApiError::invalid(
            "openId",
            format!("A channel lets in at most {ALLOWED_MAX} senders; block one first."),
        ));
    }
    channel.allowed.push(sender);
    Ok(true)
}

/// `connector-block`: takes a sender off the list; one that was never on
/// it is refused, so a typo does not read as done.
pub fn block(channel: &mut SavedChannel, open_id: &str) -> Result<(), ApiError> {
    check_open_id(open_id)?;
    let before = channel.allowed.len();
    channel.allowed.retain(|a| a.open_id != open_id);
    if channel.allowed.len() == before {
        return Err(ApiError::not_found("allowed sender", open_id));
    }
    Ok(())
}

/// `connector-send`'s text: 1 to 4,000 characters.
pub fn check_send_text(text: &str) -> Result<(), ApiError> {
    let count = text.trim().chars().count();
    if count == 0 || count > SEND_MAX {
        return Err(ApiError::invalid(
            "text",
            format!("A message is 1 to {SEND_MAX} characters."),
        ));
    }
    Ok(())
}
