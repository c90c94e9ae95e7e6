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
    /// The context window and per-answer token cap OpenCode is told of
    /// (`limit` in its model entry); `None` leaves OpenCode's defaults.
    /// Level 3 caps a real model's answers so a run stays within minutes.
    pub limit: Option<ModelLimit>,
}

/// A model's `limit` in OpenCode's configuration.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ModelLimit {
    pub context: u32,
    pub output: u32,
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
    let mut entry = json!({"name": model.model, "tool_call": true});
    if let Some(limit) = model.limit {
        entry["limit"] = json!({"context": limit.context, "output": limit.output});
    }
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
                "models": {model.model.clone(): entry}
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
            limit: None,
        }
    }

    #[test]
    fn level3_a_models_limit_caps_opencodes_answers_and_none_leaves_its_defaults() {
        let mut model = endpoint("http://127.0.0.1:8080/v1");
        let entry = |m: &ModelEndpoint| {
            generated_config(m, "node --test")["provider"][PROVIDER_ID]["models"]["m"].clone()
        };
        assert_eq!(entry(&model).get("limit"), None);
        model.limit = Some(ModelLimit {
            context: 8192,
            output: 96,
        });
        assert_eq!(
            entry(&model)["limit"],
            json!({"context": 8192, "output": 96})
        );
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
