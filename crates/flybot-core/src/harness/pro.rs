//! `harnessPro(config)` (#874 Step 1): the offline check an edit of a tier
//! must pass before its pull request. It reads the config only: it does not
//! run the verifiers it names and does not call a model. Running them is
//! the pull request's own CI.

use super::{MODEL_MODULE, OFFLINE_VERIFIERS, PROMPT_MODULE, TOOLS_MODULE, TURN_MODULE};
use serde_json::Value;

/// One reason a config fails the check, with the field it names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HarnessProblem {
    pub field: String,
    pub message: String,
}

fn problem(field: &str, message: impl Into<String>) -> HarnessProblem {
    HarnessProblem {
        field: field.to_owned(),
        message: message.into(),
    }
}

/// A field name that would carry a credential: a key, token, secret or
/// password. Budgets that count tokens (`maxTokens`) are not credentials.
fn names_a_credential(field: &str) -> bool {
    let lower = field.to_ascii_lowercase();
    if lower.starts_with("max") {
        return false;
    }
    ["key", "token", "secret", "password", "authorization"]
        .iter()
        .any(|word| lower.ends_with(word))
}

/// Every credential-named field under `value`, as dotted paths.
fn credential_fields(value: &Value, path: &str, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, inner) in map {
                let here = if path.is_empty() {
                    key.clone()
                } else {
                    format!("{path}.{key}")
                };
                if names_a_credential(key) {
                    out.push(here.clone());
                }
                credential_fields(inner, &here, out);
            }
        }
        Value::Array(items) => {
            for (i, inner) in items.iter().enumerate() {
                credential_fields(inner, &format!("{path}[{i}]"), out);
            }
        }
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {}
    }
}

/// `harnessPro(config)`: `Ok` when the config still names the four modules,
/// lists exactly the offline verifiers `ci`, `core/dev/eval` and
/// `rsi-baseline`, and carries no key or token field; else every problem.
pub fn harness_pro(config: &Value) -> Result<(), Vec<HarnessProblem>> {
    let mut problems = Vec::new();
    for (field, module) in [
        ("prompt", PROMPT_MODULE),
        ("tools", TOOLS_MODULE),
        ("model", MODEL_MODULE),
        ("stepRetry", TURN_MODULE),
    ] {
        if config["modules"][field].as_str() != Some(module) {
            problems.push(problem(
                &format!("modules.{field}"),
                format!("The harness must still name {module} for {field}."),
            ));
        }
    }
    let offline: Option<Vec<&str>> = config["verifiers"]["offline"]
        .as_array()
        .and_then(|list| list.iter().map(Value::as_str).collect());
    if offline.as_deref() != Some(&OFFLINE_VERIFIERS[..]) {
        problems.push(problem(
            "verifiers.offline",
            "The offline verifiers must be exactly ci, core/dev/eval and rsi-baseline.",
        ));
    }
    let mut secrets = Vec::new();
    credential_fields(config, "", &mut secrets);
    for field in secrets {
        problems.push(problem(
            &field,
            "A harness carries no key or token; keep credentials in the host's secrets.",
        ));
    }
    if problems.is_empty() {
        Ok(())
    } else {
        Err(problems)
    }
}
