//! `secrets`, `secret-set`, `secret-update`, `secret-delete` (#545): the
//! rows name each key, its scope and who saved it, never a value.

use crate::secrets::Secrets;
use flybot_core::access::Actor;
use flybot_protocol::ApiError;
use flybot_protocol::secrets::{
    SecretAnswer, SecretDelete, SecretDeleted, SecretRow, SecretSet, SecretUpdate, SecretsAnswer,
};

fn now() -> u64 {
    flybot_store::system_now_ms()
}

/// `secrets {}` → the saved keys by name.
pub fn list(keys: &Secrets, actor: &Actor) -> Result<SecretsAnswer, ApiError> {
    keys.check_read(actor, "Secrets")?;
    let file = keys.read()?;
    Ok(SecretsAnswer {
        secrets: file
            .secrets
            .iter()
            .map(|(name, record)| SecretRow::of(name, record))
            .collect(),
    })
}

/// `secret-set {name, value, scope?}` → `{secret}`.
pub fn set(keys: &Secrets, actor: &Actor, req: SecretSet) -> Result<SecretAnswer, ApiError> {
    let by = keys.team().read(|state| actor.member_id(state));
    keys.edit(|file, _| {
        let name = flybot_core::secrets::set(file, req, by, now())?;
        Ok(SecretAnswer {
            secret: SecretRow::of(&name, &file.secrets[&name]),
        })
    })
}

/// `secret-update {name, value?, scope?}` → `{secret}`.
pub fn update(keys: &Secrets, _actor: &Actor, req: SecretUpdate) -> Result<SecretAnswer, ApiError> {
    keys.edit(|file, _| {
        let name = flybot_core::secrets::update(file, req, now())?;
        Ok(SecretAnswer {
            secret: SecretRow::of(&name, &file.secrets[&name]),
        })
    })
}

/// `secret-delete {name}` → `{deleted: true}`.
pub fn delete(
    keys: &Secrets,
    _actor: &Actor,
    req: SecretDelete,
) -> Result<SecretDeleted, ApiError> {
    keys.edit(|file, _| {
        flybot_core::secrets::delete(file, &req.name)?;
        Ok(SecretDeleted { deleted: true })
    })
}
