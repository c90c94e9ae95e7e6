//! The Host allow-list (issue 29, DNS rebinding): a page on another site
//! whose name was pointed at 127.0.0.1 is same-origin with the host as far
//! as the browser knows, so its `Origin` equals its `Host`. Only the names
//! the host is reached by are answered: loopback names and addresses, and
//! the names the owner configured. A request with no Host header at all
//! comes from no browser (every browser sends one) and passes.

use axum::extract::Request;
use axum::http::header;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use flybot_protocol::{ApiError, ErrorCode};
use std::net::IpAddr;
use std::sync::Arc;

/// The names beyond loopback the host answers to.
#[derive(Debug, Clone, Default)]
pub struct Allowed {
    public_names: Arc<Vec<String>>,
}

impl Allowed {
    pub fn new(public_names: &[String]) -> Allowed {
        Allowed {
            public_names: Arc::new(
                public_names
                    .iter()
                    .map(|n| n.to_ascii_lowercase())
                    .collect(),
            ),
        }
    }

    /// Whether a request whose Host header is `host` may be answered.
    pub fn admits(&self, host: &str) -> bool {
        let name = name_of(host).to_ascii_lowercase();
        is_loopback_name(&name) || self.public_names.contains(&name)
    }
}

/// The name part of a Host header: without its port, an IPv6 address
/// without its brackets.
fn name_of(host: &str) -> &str {
    let host = host.trim();
    if let Some(rest) = host.strip_prefix('[') {
        return rest.split(']').next().unwrap_or("");
    }
    match host.rsplit_once(':') {
        Some((name, port)) if port.bytes().all(|b| b.is_ascii_digit()) => name,
        _ => host,
    }
}

fn is_loopback_name(name: &str) -> bool {
    name == "localhost"
        || name.ends_with(".localhost")
        || name.parse::<IpAddr>().is_ok_and(|ip| ip.is_loopback())
}

/// Answers `421` before any handler runs when the Host is not one of ours.
pub async fn refuse_unknown_host(allowed: Allowed, request: Request, next: Next) -> Response {
    let host = request
        .headers()
        .get(header::HOST)
        .map(|v| v.to_str().unwrap_or(""));
    match host {
        Some(host) if !allowed.admits(host) => misdirected(host),
        _ => next.run(request).await,
    }
}

fn misdirected(host: &str) -> Response {
    let shown: String = host.chars().filter(|c| !c.is_control()).take(64).collect();
    let refusal = ApiError::new(
        ErrorCode::Forbidden,
        format!(
            "This FlyBot does not answer to the name {shown}; open it at 127.0.0.1, or start it with --public-name {shown} if that name is yours."
        ),
    )
    .with("reason", "unknown-host");
    let mut response = crate::http::Answer(Err(refusal)).into_response();
    *response.status_mut() = axum::http::StatusCode::MISDIRECTED_REQUEST;
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn loopback_names_and_configured_names_pass_and_any_other_is_refused_29() {
        let allowed = Allowed::new(&["flybot.lan".to_owned()]);
        for ok in [
            "127.0.0.1:7450",
            "127.0.0.1",
            "127.3.4.5:80",
            "localhost:7450",
            "LOCALHOST",
            "app.localhost:1",
            "[::1]:7450",
            "flybot.lan:7450",
            "FlyBot.LAN",
        ] {
            assert!(allowed.admits(ok), "{ok}");
        }
        for refused in [
            "attacker.example",
            "attacker.example:7450",
            "127.0.0.1.attacker.example",
            "localhost.attacker.example",
            "10.0.0.2:7450",
            "0.0.0.0:7450",
            "[::2]:7450",
            "",
            "flybot.lan.evil",
        ] {
            assert!(!allowed.admits(refused), "{refused}");
        }
    }
}
