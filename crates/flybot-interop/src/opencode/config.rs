//! The configuration the driver generates for its `opencode serve` child:
//! one provider pointing at the Bot's model over loopback (the mock by
//! default), no MCP servers, no plugins, no sharing or updates, and a
//! permission policy of file edits plus the fixture's test command only;
//! `webfetch`, `websearch`, `external_directory` and `doom_loop` denied.

use serde_json::{Value, json};

/// The model OpenCode is pointed at: an OpenAI-compatible endpoint.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ModelEndpoint {
    /// `http://127.0.0.1:PORT/v1`.
    pub base_url: String,
    pub model: String,
}

impl ModelEndpoint {
    /// The port of a loopback `http://` endpoint: the one TCP port the
    /// sandbox lets the child reach. Another host is refused, since the
    /// sandbox's rules name ports, not addresses, and a key-free loopback
    /// model is what keeps the cost at zero.
    pub fn loopback_port(&self) -> Result<u16, String> {
        let refused = || {
            format!(
                "the model endpoint {} is not an http:// address on this machine (127.0.0.1, localhost or [::1]), and OpenCode reaches only a loopback model",
                self.base_url
            )
        };
        if !super::client::is_loopback(&self.base_url) {
            return Err(refused());
        }
        let url = reqwest::Url::parse(&self.base_url).map_err(|_| refused())?;
        url.port_or_known_default().ok_or_else(refused)
    }
}

/// The provider id the generated configuration uses.
pub const PROVIDER_ID: &str = "flybot";

/// The generated `opencode.json`.
pub fn generated_config(model: &ModelEndpoint, test_command: &str) -> Value {
    json!({
        "$schema": "https://opencode.ai/config.json",
        "autoupdate": false,
        "share": "disabled",
        "snapshot": false,
        "model": format!("{PROVIDER_ID}/{}", model.model),
        "small_model": format!("{PROVIDER_ID}/{}", model.model),
        "enabled_providers": [PROVIDER_ID],
        "provider": {
            PROVIDER_ID: {
                "npm": "@ai-sdk/openai-compatible",
                "name": "FlyBot model",
                "options": {"baseURL": model.base_url, "apiKey": "not-a-key"},
                "models": {model.model.clone(): {"name": model.model, "tool_call": true}}
            }
        },
        "mcp": {},
        "plugin": [],
        "permission": {
            "edit": "allow",
            "read": "allow",
            "bash": {"*": "deny", test_command: "allow"},
            "webfetch": "deny",
            "websearch": "deny",
            "external_directory": "deny",
            "doom_loop": "deny",
            "task": "deny",
            "todowrite": "deny",
            "skill": "deny"
        }
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn endpoint(base_url: &str) -> ModelEndpoint {
        ModelEndpoint {
            base_url: base_url.to_owned(),
            model: "m".to_owned(),
        }
    }

    #[test]
    fn only_a_loopback_model_gives_the_sandbox_its_port() {
        assert_eq!(
            endpoint("http://127.0.0.1:8080/v1").loopback_port(),
            Ok(8080)
        );
        assert_eq!(endpoint("http://localhost/v1").loopback_port(), Ok(80));
        assert_eq!(endpoint("http://[::1]:7/v1").loopback_port(), Ok(7));
        for remote in [
            "https://api.example.com/v1",
            "http://10.0.0.1:8080/v1",
            "http://127.0.0.1.example.com:80/v1",
        ] {
            let refused = endpoint(remote).loopback_port().unwrap_err();
            assert!(refused.contains("loopback"), "{refused}");
        }
    }
}
