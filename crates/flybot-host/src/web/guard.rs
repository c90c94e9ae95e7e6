//! Which credential a request carries and whether a cookie-borne write may
//! pass: the owner's token or a session's as `Authorization: Bearer`, a
//! member's session in the `x-flybot-member-session` header or, for the
//! page, the HttpOnly `flybot_session` cookie (#48, issue 29); a
//! cookie-borne write must carry the session's CSRF token in
//! `x-flybot-csrf`. Writes from another site's page are refused before
//! this, at the edge (`edge::cross_site`).

use crate::actor::SESSION_HEADER;
use crate::ids::secret_hash;
use axum::http::{HeaderMap, header};
use flybot_protocol::{ApiError, ErrorCode};

/// The cookie that holds a page's session token.
pub const SESSION_COOKIE: &str = "flybot_session";
/// The header a page's write carries its CSRF token in.
pub const CSRF_HEADER: &str = "x-flybot-csrf";

/// Where a request's session token came from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Credential {
    Bearer(String),
    Header(String),
    Cookie(String),
    None,
}

impl Credential {
    /// The bearer first, then the session header's token, else the
    /// cookie's.
    pub fn of(headers: &HeaderMap) -> Credential {
        let bearer = headers
            .get(header::AUTHORIZATION)
            .and_then(|v| v.to_str().ok())
            .and_then(|v| v.trim().strip_prefix("Bearer "));
        if let Some(token) = bearer {
            return Credential::Bearer(token.trim().to_owned());
        }
        if let Some(value) = headers.get(SESSION_HEADER) {
            return Credential::Header(value.to_str().unwrap_or("").trim().to_owned());
        }
        match cookie(headers, SESSION_COOKIE) {
            Some(token) => Credential::Cookie(token),
            None => Credential::None,
        }
    }

    /// The token, wherever it came from.
    pub fn token(&self) -> Option<&str> {
        match self {
            Credential::Bearer(token) | Credential::Header(token) | Credential::Cookie(token) => {
                Some(token.as_str()).filter(|token| !token.is_empty())
            }
            Credential::None => None,
        }
    }
}

/// The CSRF token of a session: derived from its token, so the host keeps
/// nothing more and a new sign-in gets a new one.
pub fn csrf_of(token: &str) -> String {
    secret_hash(&format!("flybot-csrf\0{token}"))[..32].to_owned()
}

/// Refuses a write signed by the cookie without the session's CSRF token.
pub fn check_write(headers: &HeaderMap, credential: &Credential) -> Result<(), ApiError> {
    if let Credential::Cookie(token) = credential {
        let sent = headers.get(CSRF_HEADER).and_then(|v| v.to_str().ok());
        if sent != Some(csrf_of(token).as_str()) {
            return Err(ApiError::new(
                ErrorCode::Forbidden,
                "This write carries the sign-in cookie without the page's CSRF token; reload the page and try again.",
            )
            .with("reason", "csrf"));
        }
    }
    Ok(())
}

/// The value of cookie `name`, if the request sends it.
fn cookie(headers: &HeaderMap, name: &str) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|line| line.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .find(|(key, _)| *key == name)
        .map(|(_, value)| value.trim().to_owned())
        .filter(|value| !value.is_empty())
}

/// The `Set-Cookie` line that keeps `token` for the page; `None` clears it.
pub fn session_cookie(token: Option<&str>) -> String {
    match token {
        Some(token) => format!("{SESSION_COOKIE}={token}; HttpOnly; SameSite=Strict; Path=/"),
        None => format!("{SESSION_COOKIE}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::edge::header_map as headers;

    #[test]
    /// Rule #48.
    fn the_bearer_wins_over_the_header_and_the_header_over_the_cookie() {
        let all = headers(&[
            ("authorization", "Bearer b"),
            (SESSION_HEADER, "h"),
            ("cookie", "flybot_session=c"),
        ]);
        assert_eq!(Credential::of(&all), Credential::Bearer("b".into()));
        let both = headers(&[(SESSION_HEADER, "h"), ("cookie", "a=1; flybot_session=c")]);
        assert_eq!(Credential::of(&both), Credential::Header("h".into()));
        let cookie_only = headers(&[("cookie", "a=1; flybot_session=c")]);
        assert_eq!(Credential::of(&cookie_only), Credential::Cookie("c".into()));
        assert_eq!(Credential::of(&headers(&[])), Credential::None);
    }

    #[test]
    fn a_cookie_write_needs_its_csrf_token() {
        let credential = Credential::Cookie("tok".into());
        let bare = headers(&[]);
        let refused = check_write(&bare, &credential).err().map(|e| e.code);
        assert_eq!(refused, Some(ErrorCode::Forbidden));
        let wrong = headers(&[(CSRF_HEADER, "nope")]);
        assert!(check_write(&wrong, &credential).is_err());
        let right = headers(&[(CSRF_HEADER, &csrf_of("tok"))]);
        assert!(check_write(&right, &credential).is_ok());
        assert_ne!(csrf_of("tok"), csrf_of("tok2"));
    }
}
