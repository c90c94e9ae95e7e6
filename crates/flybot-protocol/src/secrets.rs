//! Secrets (#545, #651): the records of `secrets.json`, the request bodies
//! of `secret-set`, `secret-update`, `secret-delete` and the rows `secrets`
//! answers. A value travels only inward (a request, the file); no answer
//! type here carries one, and its `Debug` never prints it.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// A secret's value: kept out of `Debug` so no log line can print it.
#[derive(Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SecretValue(pub String);

impl std::fmt::Debug for SecretValue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("SecretValue([hidden])")
    }
}

/// Which of the owner's Bots get a key: all of them, or the ones chosen
/// (an empty choice is "No Bot").
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum SecretScope {
    /// `"all"`.
    All(AllBots),
    /// The chosen Bot ids.
    Bots(Vec<String>),
}

/// The word `"all"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum AllBots {
    #[serde(rename = "all")]
    All,
}

impl SecretScope {
    pub fn all() -> SecretScope {
        SecretScope::All(AllBots::All)
    }
}

/// One saved key as `secrets.json` holds it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SecretRecord {
    pub value: SecretValue,
    pub scope: SecretScope,
    /// The owner chose this scope (#545): an empty list stays "No Bot".
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub scope_set: bool,
    /// The member who saved it.
    pub set_by: Option<String>,
    pub set_at: u64,
    pub updated_at: u64,
}

/// The whole of `secrets.json`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct SecretsFile {
    pub version: u32,
    pub secrets: BTreeMap<String, SecretRecord>,
}

/// `secret-set {name, value, scope?}`: saves a key (a new one, or a new
/// value for one saved before; a given scope is the owner's choice).
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SecretSet {
    pub name: String,
    pub value: SecretValue,
    pub scope: Option<SecretScope>,
}

/// `secret-update {name, value?, scope?}`: changes a saved key.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SecretUpdate {
    pub name: String,
    pub value: Option<SecretValue>,
    pub scope: Option<SecretScope>,
}

/// `secret-delete {name}`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct SecretDelete {
    pub name: String,
}

/// One key as the channel shows it: never its value.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SecretRow {
    pub name: String,
    pub scope: SecretScope,
    pub scope_set: bool,
    pub set_by: Option<String>,
    pub set_at: u64,
    pub updated_at: u64,
}

/// `secrets` → the saved keys by name.
#[derive(Debug, Clone, Serialize)]
pub struct SecretsAnswer {
    pub secrets: Vec<SecretRow>,
}

/// `secret-set`, `secret-update` → the key's row.
#[derive(Debug, Clone, Serialize)]
pub struct SecretAnswer {
    pub secret: SecretRow,
}

/// `secret-delete` → whether a key was deleted.
#[derive(Debug, Clone, Serialize)]
pub struct SecretDeleted {
    pub deleted: bool,
}

impl SecretRow {
    /// The row of `record` saved as `name`.
    pub fn of(name: &str, record: &SecretRecord) -> SecretRow {
        SecretRow {
            name: name.to_owned(),
            scope: record.scope.clone(),
            scope_set: record.scope_set,
            set_by: record.set_by.clone(),
            set_at: record.set_at,
            updated_at: record.updated_at,
        }
    }
}
