//! The report's record of Bot B's turns as OpenCode itself reported them
//! (#198's "raw status"): the session's status and, for each message of its
//! history, OpenCode's own fields (role, model, finish, error, tokens,
//! cost, times) and what each part was (text, a tool call and its state);
//! and how each of Bot A's room turns ended.
//! Nothing here is judged: it is what the runtime said, kept for a reader.

use crate::rooms::participant::TurnOutcome;
use flybot_interop::opencode::OpenCodeClient;
use flybot_interop::opencode::client::SessionStatus;
use serde_json::{Map, Value, json};

/// The fields of a message's `info` kept as OpenCode sent them.
const INFO_FIELDS: [&str; 8] = [
    "id", "role", "modelID", "finish", "error", "tokens", "cost", "time",
];

/// Bot B's session as OpenCode reports it now; a failed read is named, not
/// hidden.
pub async fn reported(client: &OpenCodeClient, session: Option<&str>) -> Value {
    let Some(session) = session else {
        return json!({"session": null, "why": "no OpenCode session was created"});
    };
    let status = match client.status(session).await {
        Ok(SessionStatus::Idle { raw }) => json!({"type": "idle", "raw": raw}),
        Ok(SessionStatus::Busy) => json!({"type": "busy"}),
        Ok(SessionStatus::Retry) => json!({"type": "retry"}),
        Err(e) => json!({"error": e.to_string()}),
    };
    let messages = match client.messages(session).await {
        Ok(history) => Value::Array(history.iter().map(message_view).collect()),
        Err(e) => json!({"error": e.to_string()}),
    };
    json!({"session": session, "status": status, "messages": messages})
}

/// How one of Bot A's room turns ended: its reply's size (or a pass), a
/// stop, or its failure code.
pub fn agent_turn_view(outcome: &TurnOutcome) -> Value {
    match outcome {
        TurnOutcome::Text(text) if text.trim() == "[PASS]" => json!({"end": "pass"}),
        TurnOutcome::Text(text) | TurnOutcome::TextWithFiles { text, .. } => {
            json!({"end": "text", "chars": text.chars().count()})
        }
        TurnOutcome::Stopped | TurnOutcome::Cut { .. } => json!({"end": "stopped"}),
        TurnOutcome::Failed { code } => json!({"end": "failed", "code": code}),
        TurnOutcome::FailedWithLine { code, .. } => json!({"end": "failed", "code": code}),
    }
}

fn message_view(message: &Value) -> Value {
    let mut view = Map::new();
    for field in INFO_FIELDS {
        if let Some(value) = message["info"].get(field) {
            view.insert(field.to_owned(), value.clone());
        }
    }
    let parts: Vec<Value> = message["parts"]
        .as_array()
        .map(|parts| parts.iter().map(part_view).collect())
        .unwrap_or_default();
    view.insert("parts".to_owned(), Value::Array(parts));
    Value::Object(view)
}

fn part_view(part: &Value) -> Value {
    let mut view = json!({"type": part["type"]});
    if let Some(tool) = part.get("tool") {
        view["tool"] = tool.clone();
        view["status"] = part["state"]["status"].clone();
    }
    if let Some(reason) = part.get("reason") {
        view["reason"] = reason.clone();
    }
    view
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn level3_a_message_keeps_opencodes_own_fields_and_each_parts_kind() {
        let message = json!({
            "info": {"id": "msg_1", "role": "assistant", "modelID": "smollm2-135m",
                "finish": "length", "tokens": {"input": 10, "output": 96},
                "cost": 0, "path": {"cwd": "/somewhere"}, "system": ["long prompt"]},
            "parts": [{"type": "step-start"}, {"type": "text", "text": "words"},
                {"type": "tool", "tool": "bash", "state": {"status": "error", "input": {}}},
                {"type": "step-finish", "reason": "length"}]
        });
        assert_eq!(
            message_view(&message),
            json!({"id": "msg_1", "role": "assistant", "modelID": "smollm2-135m",
                "finish": "length", "tokens": {"input": 10, "output": 96}, "cost": 0,
                "parts": [{"type": "step-start"}, {"type": "text"},
                    {"type": "tool", "tool": "bash", "status": "error"},
                    {"type": "step-finish", "reason": "length"}]})
        );
    }
}
