//! The home's identity (issue 33): `social-connect` takes a homeserver URL
//! and a password login or an access token, proves it with the homeserver
//! (`/login`, asking for a refresh token, or `/account/whoami`), keeps the
//! tokens only in `secrets.json`
//! (scoped to no Bot, so no Bot's shell ever gets it, #651) and the account
//! in the team; `social-disconnect` forgets both. The owner's alone.

use super::client::{self, Matrix, MatrixError};
use super::refresh::{REFRESH_SECRET, keep_token};
use super::{Social, TOKEN_SECRET};
use flybot_core::access::Actor;
use flybot_protocol::secrets::{SecretScope, SecretSet, SecretValue};
use flybot_protocol::social::{SocialAccount, SocialConnect};
use flybot_protocol::{ApiError, ErrorCode};

/// The owner-only refusal of every `social-*` endpoint.
pub fn check_owner(social: &Social, actor: &Actor) -> Result<(), ApiError> {
    let owner = social
        .team()
        .read(|state| flybot_core::social::is_home_owner(state, actor));
    match owner {
        true => Ok(()),
        false => Err(ApiError::forbidden(
            "Only this home's owner connects it to Matrix, chooses its friends and publishes its Bots; ask the owner.",
        )),
    }
}

/// A homeserver URL as given: `http(s)://host[:port]`, nothing after.
fn homeserver(url: &str) -> Result<String, ApiError> {
    let url = url.trim().trim_end_matches('/');
    let rest = url
        .strip_prefix("https://")
        .or_else(|| url.strip_prefix("http://"));
    let fine = rest.is_some_and(|rest| {
        !rest.is_empty()
            && rest.len() <= 253
            && rest
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']'))
    });
    match fine {
        true => Ok(url.to_owned()),
        false => Err(ApiError::invalid(
            "homeserver",
            "The homeserver is a URL such as https://matrix.example.org, with no path; check it.",
        )),
    }
}

fn refused(e: &MatrixError) -> ApiError {
    let sentence = match e {
        MatrixError::Unreachable(why) => {
            format!("The homeserver could not be reached ({why}); check its URL and try again.")
        }
        MatrixError::SignedOut => {
            "The homeserver did not accept this access token; make a new one and connect again."
                .to_owned()
        }
        MatrixError::Refused(why) => format!(
            "The homeserver did not accept this login ({why}); check the user and password."
        ),
    };
    ApiError::new(ErrorCode::Invalid, sentence)
}

impl Social {
    /// `social-connect`: proves the login, saves the token, then the account.
    pub async fn connect(
        &self,
        actor: &Actor,
        req: SocialConnect,
    ) -> Result<SocialAccount, ApiError> {
        check_owner(self, actor)?;
        let base = homeserver(&req.homeserver)?;
        let Some(http) = self.inner.http.clone() else {
            return Err(ApiError::new(
                ErrorCode::Unavailable,
                "This host has no HTTP client; restart it and try again.",
            ));
        };
        self.inner.secrets.check_writable()?;
        let (token, refresh, user_id, device_id) = match (req.access_token, req.user, req.password)
        {
            (Some(token), None, None) => {
                let me = Matrix::new(http, &base, &token.0).whoami().await;
                let me = me.map_err(|e| refused(&e))?;
                (token.0, None, me.user_id, me.device_id)
            }
            (None, Some(user), Some(password)) => {
                let login = client::login(&http, &base, &user, &password.0).await;
                let login = login.map_err(|e| refused(&e))?;
                let refresh = login.refresh_token;
                (login.access_token, refresh, login.user_id, login.device_id)
            }
            _ => {
                return Err(ApiError::invalid(
                    "accessToken",
                    "Give either an access token, or a user and a password; not both.",
                ));
            }
        };
        let now = flybot_store::system_now_ms();
        let by = self.team().read(|state| actor.member_id(state));
        self.inner.secrets.edit(|file, _| {
            let set = SecretSet {
                name: TOKEN_SECRET.to_owned(),
                value: SecretValue(token.clone()),
                scope: Some(SecretScope::Bots(Vec::new())),
            };
            flybot_core::secrets::set(file, set, by.clone(), now)?;
            // A token given by hand has no refresh token; an old one goes.
            match &refresh {
                Some(refresh) => keep_token(file, REFRESH_SECRET, refresh, now),
                None => {
                    file.secrets.remove(REFRESH_SECRET);
                    Ok(())
                }
            }
        })?;
        let account = SocialAccount {
            homeserver: base,
            user_id,
            device_id,
            connected_at: now,
        };
        let kept = account.clone();
        self.team()
            .mutate("social", move |change| {
                let before = change.state().social.account.clone();
                if before.as_ref().map(|a| &a.user_id) != Some(&kept.user_id) {
                    change.clear_social_since();
                }
                change.set_social_account(Some(&kept));
                Ok(())
            })
            .await?;
        self.set_link("connecting", None);
        self.inner.account_bell.notify_waiters();
        Ok(account)
    }

    /// `social-disconnect`: the token and the account forgotten; friends,
    /// rooms and lines stay for a reconnect.
    pub async fn disconnect(&self, actor: &Actor) -> Result<(), ApiError> {
        check_owner(self, actor)?;
        self.inner.secrets.edit(|file, _| {
            file.secrets.remove(TOKEN_SECRET);
            file.secrets.remove(REFRESH_SECRET);
            Ok(())
        })?;
        self.team()
            .mutate("social", |change| {
                change.set_social_account(None);
                Ok(())
            })
            .await?;
        self.set_link("off", None);
        self.inner.account_bell.notify_waiters();
        Ok(())
    }
}
