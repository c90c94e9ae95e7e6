//! A `connector-connect` body checked at the edge and turned into where
//! the server is: exactly one of a command or a URL, plain variables, and
//! variables whose values are saved secrets (#545). Answers the endpoint
//! and the key values, so an error can be redacted before it is shown.

use super::mcp::Endpoint;
use crate::secrets::Secrets;
use flybot_protocol::connectors::ConnectorConnect;
use flybot_protocol::{ApiError, ErrorCode};
use std::collections::BTreeMap;
use std::path::Path;

fn env_name_ok(name: &str) -> bool {
    let mut chars = name.chars();
    chars
        .next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
        && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        && name.len() <= 128
}

/// The GitHub MCP server the `github` connector runs when the owner names
/// no command (npm, pinned).
pub const GITHUB_SERVER: [&str; 3] = ["npx", "-y", "@modelcontextprotocol/server-github@2025.4.8"];
/// The owner's GitHub key (#545) and the variable the server reads it from.
pub const GITHUB_TOKEN: &str = "GITHUB_TOKEN";
const GITHUB_TOKEN_VAR: &str = "GITHUB_PERSONAL_ACCESS_TOKEN";

/// The `github` connector's defaults: GitHub's MCP server, given the
/// owner's `GITHUB_TOKEN` secret, unless the owner named otherwise.
pub fn with_github_defaults(mut spec: ConnectorConnect) -> ConnectorConnect {
    if spec.id != flybot_core::connectors::GITHUB {
        return spec;
    }
    if spec.command.is_none() && spec.url.is_none() {
        spec.command = Some(GITHUB_SERVER.iter().map(|s| (*s).to_owned()).collect());
    }
    spec.secret_env
        .entry(GITHUB_TOKEN_VAR.to_owned())
        .or_insert_with(|| GITHUB_TOKEN.to_owned());
    spec
}

/// Checks `spec` and answers the endpoint with the secret values it holds.
pub fn endpoint(
    spec: &ConnectorConnect,
    secrets: &Secrets,
    home: &Path,
) -> Result<(Endpoint, Vec<String>), ApiError> {
    flybot_core::connectors::check_name(&spec.id)?;
    let names = spec.env.keys().chain(spec.secret_env.keys());
    if let Some(bad) = names.clone().find(|n| !env_name_ok(n)) {
        return Err(ApiError::invalid(
            "env",
            format!("{bad} is not an environment variable name (letters, digits and _)."),
        ));
    }
    if spec
        .env
        .values()
        .any(|v| v.contains('\0') || v.len() > 16 * 1024)
    {
        return Err(ApiError::invalid(
            "env",
            "A variable's value is at most 16 KiB, without a NUL.",
        ));
    }
    let saved = secrets.read()?;
    let mut env: BTreeMap<String, String> = spec.env.clone();
    let mut keys = Vec::new();
    for (var, secret) in &spec.secret_env {
        let Some(record) = saved.secrets.get(secret) else {
            return Err(ApiError::invalid(
                "secretEnv",
                format!("No secret is saved as {secret}; save it with secret-set first."),
            ));
        };
        env.insert(var.clone(), record.value.0.clone());
        keys.push(record.value.0.clone());
    }
    let endpoint = match (&spec.command, &spec.url) {
        (Some(argv), None) if !argv.is_empty() && !argv[0].is_empty() => {
            let cwd = flybot_store::workspaces::connector_folder(home, &spec.id).map_err(|e| {
                tracing::warn!("the folder of connector {} could not be made: {e}", spec.id);
                ApiError::new(
                    ErrorCode::ReadOnly,
                    "The connector's folder could not be made on this host.",
                )
            })?;
            env.entry("HOME".to_owned())
                .or_insert_with(|| cwd.display().to_string());
            Endpoint::Stdio {
                argv: argv.clone(),
                env,
                cwd,
                home: home.to_owned(),
                // GitHub's server must reach GitHub; no other stdio server
                // gets a network until the filtering proxy exists (issue 30).
                network: if spec.id == flybot_core::connectors::GITHUB {
                    flybot_sandbox::Network::Open
                } else {
                    flybot_sandbox::Network::Off
                },
            }
        }
        (None, Some(url)) if url.starts_with("http://") || url.starts_with("https://") => {
            // Over HTTP a key travels as the bearer header: the variable
            // AUTHORIZATION_TOKEN names it.
            Endpoint::Http {
                url: url.clone(),
                bearer: env.get("AUTHORIZATION_TOKEN").cloned(),
            }
        }
        _ => {
            return Err(ApiError::invalid(
                "command",
                "Name either a command (an argv list) or an http(s) url, not both.",
            ));
        }
    };
    Ok((endpoint, keys))
}
