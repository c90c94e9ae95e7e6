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
