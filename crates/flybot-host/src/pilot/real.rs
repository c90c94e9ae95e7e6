//! Level 2's model: the mock model served on loopback for the real
//! `opencode serve`, with Bot B's scenario (ask through the question tool,
//! then write the fix, run the tests, report), in the OpenAI tool-call
//! shape OpenCode reads.

use flybot_agent::model::mock::{MockModel, Scenario};
use flybot_interop::opencode::config::ModelEndpoint;
use flybot_interop::pilot::script;
use serde_json::json;
use std::sync::Arc;

/// Bot B's scenario for OpenCode's own agent loop.
pub fn opencode_scenario() -> String {
    let ask = json!({"toolCalls": [{"name": "question",
        "arguments": {"questions": [{"question": script::QUESTION, "header": "Accents",
            "options": [{"label": "transliterate", "description": "é becomes e"},
                        {"label": "drop", "description": "é is dropped"}]}]}}]});
    json!([
        {"when": {"afterTool": "bash"}, "reply": {"text": script::DONE}},
        {"when": {"afterTool": "write"}, "reply": {"toolCalls": [{"name": "bash",
            "arguments": {"command": "node --test", "description": "Run the fixture's tests"}}]}},
        {"when": {"afterTool": "edit"}, "reply": {"toolCalls": [{"name": "bash",
            "arguments": {"command": "node --test", "description": "Run the fixture's tests"}}]}},
        {"when": {"userContains": "Transliterate them", "step": 0}, "reply": {"toolCalls": [{"name": "write",
            "arguments": {"filePath": "slug.mjs", "content": script::FIXED_SLUG}}]}},
        // The question goes through OpenCode's question tool, as the
        // runtime's own request: that, never the words, makes it a question.
        {"when": {"userContains": "fixture task"}, "reply": ask},
        // A room's seat sends the card's selected input, not the round.
        {"when": {"userContains": "Acceptance criteria"}, "reply": ask},
        {"reply": {"text": "Pilot"}}
    ])
    .to_string()
}

/// Serves the mock on 127.0.0.1:0 for the rest of the process.
pub async fn start_mock_for_opencode() -> Result<ModelEndpoint, String> {
    let scenario = Scenario::from_json(&opencode_scenario()).map_err(|e| e.to_string())?;
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
        .await
        .map_err(|e| format!("the mock model could not bind: {e}"))?;
    let address = listener.local_addr().map_err(|e| e.to_string())?;
    let mock = Arc::new(MockModel::with_scenario(scenario));
    tokio::spawn(crate::serve_mock_model(
        listener,
        mock,
        std::future::pending(),
    ));
    Ok(ModelEndpoint {
        base_url: format!("http://{address}/v1"),
        model: "mock".to_owned(),
        limit: None,
    })
}
