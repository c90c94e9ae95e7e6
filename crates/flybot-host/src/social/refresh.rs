//! Keeping the home signed in (issue 33): a homeserver whose access tokens
//! expire answers `M_UNKNOWN_TOKEN` (a soft logout) once one has; a home
//! that logged in with a password holds a refresh token (`secrets.json`,
//! scoped to no Bot, #651, like the access token) and trades it for a new
//! pair, also in a shared home (it is the host's own upkeep, not a
//! person's write to the shared keys, #49). One refresh at a time: a refresh token is spent by its use, so a
//! second caller that lost the race finds the token already new. Every
//! call a home makes goes through `renewing`.

use super::client::{self, Matrix, MatrixError};
use super::{Social, TOKEN_SECRET};
use flybot_protocol::secrets::{SecretScope, SecretSet, SecretValue};

/// The name of the home's Matrix refresh token in `secrets.json`.
pub const REFRESH_SECRET: &str = "MATRIX_REFRESH_TOKEN";

/// What a refresh came to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Renewal {
    /// A new access token is kept: call again.
    Renewed,
    /// No refresh token, or the homeserver refused it: the owner connects
    /// the account again.
    SignedOut,
    /// The homeserver could not be reached: try again later.
    Later,
}

impl Social {
    /// After the homeserver refused access token `failed` as signed out.
    pub(super) async fn renew_after(&self, failed: &str) -> Renewal {
        let _one = self.inner.renewing.lock().await;
        let secrets = &self.inner.secrets;
        if secrets
            .value(TOKEN_SECRET)
            .is_some_and(|token| token != failed)
        {
            return Renewal::Renewed;
        }
        let account = self.team().read(|s| s.social.account.clone());
        let (Some(refresh), Some(account), Some(http)) = (
            secrets.value(REFRESH_SECRET),
            account,
            self.inner.http.clone(),
        ) else {
            return Renewal::SignedOut;
        };
        let renewed = match client::refresh(&http, &account.homeserver, &refresh).await {
            Ok(renewed) => renewed,
            Err(MatrixError::Unreachable(why)) => {
                tracing::info!("the Matrix token waits for the homeserver to refresh: {why}");
                return Renewal::Later;
            }
            Err(e) => {
                tracing::warn!("the Matrix token could not be refreshed: {e}");
                return Renewal::SignedOut;
            }
        };
        let now = flybot_store::system_now_ms();
        let kept = secrets.renew(|file, _| {
            keep_token(file, TOKEN_SECRET, &renewed.access_token, now)?;
            match &renewed.refresh_token {
                Some(next) => keep_token(file, REFRESH_SECRET, next, now),
                None => {
                    file.secrets.remove(REFRESH_SECRET);
                    Ok(())
                }
            }
        });
        match kept {
            Ok(()) => Renewal::Renewed,
            Err(e) => {
                tracing::warn!("a refreshed Matrix token could not be kept: {}", e.message);
                Renewal::Later
            }
        }
    }
}

/// Keeps a token of the home's own, for no Bot's shell (#651).
pub(super) fn keep_token(
    file: &mut flybot_protocol::secrets::SecretsFile,
    name: &str,
    value: &str,
    now: u64,
) -> Result<(), flybot_protocol::ApiError> {
    let set = SecretSet {
        name: name.to_owned(),
        value: SecretValue(value.to_owned()),
        scope: Some(SecretScope::Bots(Vec::new())),
    };
    flybot_core::secrets::set(file, set, None, now).map(|_| ())
}

impl Social {
    /// Runs `call` with `matrix`; when the homeserver says the token is
    /// signed out, renews it once and makes the same call again.
    pub(super) async fn renewing<T, F, Fut>(
        &self,
        matrix: &Matrix,
        call: F,
    ) -> Result<T, MatrixError>
    where
        F: Fn(Matrix) -> Fut,
        Fut: std::future::Future<Output = Result<T, MatrixError>>,
    {
        match call(matrix.clone()).await {
            Err(MatrixError::SignedOut) => {
                let renewed = self.renew_after(matrix.token()).await == Renewal::Renewed;
                match (renewed, self.matrix()) {
                    (true, Some((_, renewed))) => call(renewed).await,
                    _ => Err(MatrixError::SignedOut),
                }
            }
            other => other,
        }
    }
}
