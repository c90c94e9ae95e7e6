//! The edits of `secrets.json`'s records: a name and a value checked at the
//! edge, a key saved, changed or deleted. Each answers the refusal with the
//! spec's code and one sentence, and leaves the file as it was on refusal.

use flybot_protocol::ApiError;
use flybot_protocol::secrets::{
    SecretRecord, SecretScope, SecretSet, SecretUpdate, SecretValue, SecretsFile,
};

/// The longest name and value, and the most keys a host keeps.
pub const NAME_MAX: usize = 64;
pub const VALUE_MIN: usize = 4;
pub const VALUE_MAX: usize = 16 * 1024;
pub const SECRETS_MAX: usize = 200;

/// A key's name: an upper-case letter, then upper-case letters, digits and
/// `_`, so `FLYBOT_SECRET_<NAME>` is a plain environment variable.
pub fn check_name(name: &str) -> Result<(), ApiError> {
    let mut chars = name.chars();
    let first_ok = chars.next().is_some_and(|c| c.is_ascii_uppercase());
    let rest_ok = chars.all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
    if !first_ok || !rest_ok || name.len() > NAME_MAX {
        return Err(ApiError::invalid(
            "name",
            "A secret's name is 1 to 64 characters: an upper-case letter, then A-Z, 0-9 or _ (like GITHUB_TOKEN).",
        ));
    }
    Ok(())
}

/// A key's value: 4 to 16,384 bytes, no line break's worth of control
/// characters but tab and newline, never a NUL (an environment cannot hold it).
pub fn check_value(value: &SecretValue) -> Result<(), ApiError> {
    let text = &value.0;
    let controls = text
        .chars()
        .any(|c| c.is_control() && c != '\n' && c != '\t');
    if text.len() < VALUE_MIN || text.len() > VALUE_MAX || controls {
        return Err(ApiError::invalid(
            "value",
            "A secret's value is 4 to 16,384 bytes of text without control characters.",
        ));
    }
    Ok(())
}

fn check_scope(scope: &SecretScope) -> Result<(), ApiError> {
    if let SecretScope::Bots(bots) = scope
        && (bots.len() > 500 || bots.iter().any(|b| b.is_empty() || b.len() > 100))
    {
        return Err(ApiError::invalid(
            "scope",
            "A scope is \"all\" or a list of at most 500 Bot ids.",
        ));
    }
    Ok(())
}

/// `secret-set`: a new key (for all of the owner's Bots unless a scope is
/// given), or a new value for a saved one, which keeps its scope unless a
/// scope is given (#545: a reconnect keeps the scope the key has).
pub fn set(
    file: &mut SecretsFile,
    req: SecretSet,
    by: Option<String>,
    now: u64,
) -> Result<String, ApiError> {
    check_name(&req.name)?;
    check_value(&req.value)?;
    if let Some(scope) = &req.scope {
        check_scope(scope)?;
    }
    let existing = file.secrets.get(&req.name).cloned();
    if existing.is_none() && file.secrets.len() >= SECRETS_MAX {
        return Err(ApiError::invalid(
            "name",
            format!("The host keeps at most {SECRETS_MAX} secrets; delete one first."),
        ));
    }
    let record = match existing {
        Some(mut record) => {
            record.value = req.value;
            if let Some(scope) = req.scope {
                record.scope = scope;
                record.scope_set = true;
            }
            record.updated_at = now;
            record
        }
        None => SecretRecord {
            value: req.value,
            scope_set: req.scope.is_some(),
            scope: req.scope.unwrap_or_else(SecretScope::all),
            set_by: by,
            set_at: now,
            updated_at: now,
        },
    };
    file.secrets.insert(req.name.clone(), record);
    Ok(req.name)
}

/// `secret-update`: a saved key's value or scope (a scope given here is the
/// owner's choice, `scopeSet`).
pub fn update(file: &mut SecretsFile, req: SecretUpdate, now: u64) -> Result<String, ApiError> {
    check_name(&req.name)?;
    if req.value.is_none() && req.scope.is_none() {
        return Err(ApiError::invalid(
            "value",
            "Name a new value or a new scope to change.",
        ));
    }
    if let Some(value) = &req.value {
        check_value(value)?;
    }
    if let Some(scope) = &req.scope {
        check_scope(scope)?;
    }
    let Some(record) = file.secrets.get_mut(&req.name) else {
        return Err(missing(&req.name));
    };
    if let Some(value) = req.value {
        record.value = value;
    }
    if let Some(scope) = req.scope {
        record.scope = scope;
        record.scope_set = true;
    }
    record.updated_at = now;
    Ok(req.name)
}

/// `secret-delete`: the key goes; an unknown name is `bot/not-found`.
pub fn delete(file: &mut SecretsFile, name: &str) -> Result<(), ApiError> {
    check_name(name)?;
    file.secrets
        .remove(name)
        .map(|_| ())
        .ok_or_else(|| missing(name))
}

fn missing(name: &str) -> ApiError {
    ApiError::new(
        flybot_protocol::ErrorCode::NotFound,
        format!("No secret is saved as {name}; check the name in the secrets list."),
    )
    .with("name", name)
}
