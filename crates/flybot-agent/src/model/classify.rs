//! Failure classification: a provider's refusal becomes a `ModelError` by its
//! HTTP status and its own code fields (`error.code`, `error.type`,
//! `error.status`), never by its message, which is not stable and may echo a
//! key (#1347). Nothing here keeps, logs or returns the message.

use super::ModelError;
use flybot_protocol::failure::ModelFeature;
use serde_json::Value;

/// Codes that mean the account's budget or quota is used up: not retried
/// (#1308). OpenAI answers `insufficient_quota` with a 429, so these are
/// checked before the status.
const BUDGET_CODES: &[&str] = &[
    "budget_exceeded",
    "quota",
    "insufficient_quota",
    "quota_exceeded",
    "insufficient_balance",
    "billing_hard_limit_reached",
    "billing_not_active",
];

/// Codes that mean the key was refused (#1347).
const AUTH_CODES: &[&str] = &[
    "auth",
    "invalid_api_key",
    "authentication_error",
    "invalid_authentication",
    "unauthorized",
    "permission_denied",
    "invalid_request_error:invalid_api_key",
];

/// Codes that mean a requests-per-window limit (#1308).
const RATE_CODES: &[&str] = &[
    "rate_limited",
    "rate_limit_exceeded",
    "rate_limit_error",
    "requests",
    "tokens",
];

/// Codes that mean the model cannot do what was asked (#1347): Volcengine
/// Ark's `UnsupportedModel`, OpenAI's `unsupported_parameter` / `_value`.
const UNSUPPORTED_CODES: &[&str] = &[
    "unsupportedmodel",
    "unsupported_model",
    "model_not_supported",
    "unsupported_feature",
    "unsupported_parameter",
    "unsupported_value",
];

/// A refusal answered with a non-success status; `body` is its JSON, if any.
pub fn classify_refusal(status: u16, body: &[u8]) -> ModelError {
    let body = serde_json::from_slice::<Value>(body).unwrap_or_default();
    classified(status, &body)
}

/// An `{"error": ...}` object sent inside a stream that had started well.
pub fn classify_stream_error(chunk: &Value) -> ModelError {
    classified(200, chunk)
}

/// `classify`, and an unsupported-model refusal named by its feature.
fn classified(status: u16, body: &Value) -> ModelError {
    let codes = provider_codes(body);
    let unsupported = codes.iter().any(|code| {
        UNSUPPORTED_CODES
            .iter()
            .any(|k| code.eq_ignore_ascii_case(k))
    });
    match classify(status, &codes) {
        ModelError::Provider { .. } if unsupported => ModelError::Unsupported {
            feature: provider_param(body).and_then(ModelFeature::from_param),
        },
        other => other,
    }
}

/// The provider's `error.param` (the request field it refused), a field
/// name and never a message.
fn provider_param(body: &Value) -> Option<&str> {
    body.get("error")
        .and_then(|e| e.get("param"))
        .or_else(|| body.get("param"))
        .and_then(Value::as_str)
        .filter(|p| p.len() <= 200)
}

/// The rule itself, on a status and the provider's codes.
pub fn classify(status: u16, codes: &[String]) -> ModelError {
    let has = |set: &[&str]| {
        codes
            .iter()
            .any(|code| set.iter().any(|known| code.eq_ignore_ascii_case(known)))
    };
    if status == 402 || has(BUDGET_CODES) {
        return ModelError::Budget;
    }
    if status == 401 || status == 403 || has(AUTH_CODES) {
        return ModelError::Auth;
    }
    if status == 429 || has(RATE_CODES) {
        // The provider's reset hint is never parsed (#1308): the backoff is ours.
        return ModelError::RateLimited { retry_after: None };
    }
    if status == 408 || status == 504 {
        return ModelError::Timeout;
    }
    ModelError::Provider {
        status,
        // A numeric `code` (vLLM) only repeats the status: prefer a name.
        code: codes
            .iter()
            .find(|code| printable_code(code) && !code.bytes().all(|b| b.is_ascii_digit()))
            .cloned(),
    }
}

/// The code-like fields of an error body. OpenAI and DeepSeek send
/// `{"error": {"code", "type"}}`, vLLM puts `type` and a numeric `code` at the
/// top, Ollama sends `{"error": "<message>"}` (a message: never read).
pub fn provider_codes(body: &Value) -> Vec<String> {
    let mut codes = Vec::new();
    let mut read = |object: &serde_json::Map<String, Value>| {
        for field in ["code", "type", "status"] {
            match object.get(field) {
                Some(Value::String(code)) => codes.push(code.clone()),
                Some(Value::Number(number)) => codes.push(number.to_string()),
                _ => {}
            }
        }
    };
    if let Some(object) = body.as_object() {
        if let Some(Value::Object(error)) = object.get("error") {
            read(error);
        }
        if object.get("object").and_then(Value::as_str) == Some("error") {
            read(object);
        }
    }
    codes
}

/// A code short and plain enough to pass on: an identifier, not a sentence.
fn printable_code(code: &str) -> bool {
    !code.is_empty()
        && code.len() <= 64
        && code
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn check(status: u16, body: &str, expect: ModelError) {
        assert_eq!(
            classify_refusal(status, body.as_bytes()),
            expect,
            "{status} {body}"
        );
    }

    #[test]
    /// Rule #1347.
    fn an_unsupported_model_refusal_names_its_feature_from_the_param_never_the_message() {
        let cases = [
            (
                r#"{"error":{"code":"unsupported_parameter","param":"tools","message":"sk-1"}}"#,
                Some(ModelFeature::ToolCalls),
            ),
            (
                r#"{"error":{"code":"UnsupportedModel","param":"messages[0].content[1].image_url"}}"#,
                Some(ModelFeature::ImageInput),
            ),
            (
                r#"{"error":{"type":"unsupported_value","param":"reasoning_effort"}}"#,
                Some(ModelFeature::Thinking),
            ),
            (
                r#"{"error":{"code":"UnsupportedModel","message":"does not support tool calls"}}"#,
                None,
            ),
        ];
        for (body, feature) in cases {
            check(400, body, ModelError::Unsupported { feature });
        }
        let text = ModelError::Unsupported {
            feature: Some(ModelFeature::ToolCalls),
        }
        .to_string();
        assert_eq!(text, "the model does not support tool calls");
        assert_eq!(ModelFeature::named_in(&text), Some(ModelFeature::ToolCalls));
        // The code class still wins over the param: a refused key is AUTH.
        check(
            401,
            r#"{"error":{"code":"unsupported_parameter","param":"tools"}}"#,
            ModelError::Auth,
        );
    }

    #[test]
    fn each_class_by_status_and_code() {
        let limited = ModelError::RateLimited { retry_after: None };
        check(
            429,
            r#"{"error":{"code":"rate_limit_exceeded","type":"requests"}}"#,
            limited.clone(),
        );
        check(429, "", limited);
        check(
            429,
            r#"{"error":{"code":"insufficient_quota","message":"rate limit"}}"#,
            ModelError::Budget,
        );
        check(
            400,
            r#"{"error":{"type":"budget_exceeded"}}"#,
            ModelError::Budget,
        );
        check(403, r#"{"error":{"code":"QUOTA"}}"#, ModelError::Budget);
        check(
            402,
            r#"{"error":{"message":"Insufficient Balance"}}"#,
            ModelError::Budget,
        );
        check(401, "not json", ModelError::Auth);
        check(403, "{}", ModelError::Auth);
        check(
            400,
            r#"{"error":{"code":"invalid_api_key"}}"#,
            ModelError::Auth,
        );
        check(504, "", ModelError::Timeout);
        check(
            400,
            r#"{"object":"error","type":"BadRequestError","code":400}"#,
            ModelError::Provider {
                status: 400,
                code: Some("BadRequestError".into()),
            },
        );
    }

    #[test]
    fn the_message_never_decides_and_never_travels() {
        // A message that says "quota" or "invalid key" is not a code.
        check(
            500,
            r#"{"error":{"message":"quota exceeded for key sk-123; invalid_api_key"}}"#,
            ModelError::Provider {
                status: 500,
                code: None,
            },
        );
        check(
            400,
            r#"{"error":"model 'x' not found, key sk-123"}"#,
            ModelError::Provider {
                status: 400,
                code: None,
            },
        );
        // A code that is really a sentence is not passed on.
        check(
            500,
            r#"{"error":{"code":"sk-123 is not valid for this org"}}"#,
            ModelError::Provider {
                status: 500,
                code: None,
            },
        );
    }
}
