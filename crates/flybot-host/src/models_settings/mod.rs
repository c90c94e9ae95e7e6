//! Models from Settings (issue 31): the host's owner adds, edits and removes
//! an OpenAI-compatible provider and its models. A change is checked whole
//! (the registry is built from it before anything is written), its API key
//! goes to the secrets store (never to config.toml), config.toml is written
//! back with the rest of the file kept (`file`), and the registry swaps its
//! routes, so the next turn runs on the new set with no restart. The
//! default model is chosen the same way: checked against the routes,
//! written to config.toml's `defaultModel`, then made the registry's live
//! default, which a new Bot gets.

pub mod file;

use crate::secrets::Secrets;
use crate::team::Team;
use flybot_agent::model::config::{ModelConfig, ModelsConfig, ProviderConfig, ProviderRegistry};
use flybot_agent::model::mock::MockModel;
use flybot_core::access::{Actor, host_owner_id};
use flybot_protocol::secrets::{SecretScope, SecretSet, SecretValue};
use flybot_protocol::{ApiError, ErrorCode};
use serde::{Deserialize, Serialize};
use std::path::Path;

/// The largest context window a model may declare, in tokens.
const CONTEXT_MAX: u32 = 10_000_000;
/// The most models one provider may carry.
const MODELS_MAX: usize = 50;

/// What an edit reaches: the team (who uses a model), the saved keys, the
/// registry it swaps and the file it writes.
pub struct ModelsSettings<'a> {
    pub team: &'a Team,
    pub secrets: &'a Secrets,
    pub models: &'a ProviderRegistry,
    pub config_file: &'a Path,
}

/// `model-default-set {model}`: the model a new Bot gets.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct DefaultModelSet {
    pub model: String,
}

/// `model-provider-set {name, baseUrl, apiKey?, models}`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProviderSet {
    pub name: String,
    pub base_url: String,
    /// A new key; none keeps the provider's key as it is.
    #[serde(default)]
    pub api_key: Option<SecretValue>,
    pub models: Vec<ModelEntry>,
}

/// One model of a provider as Settings edits it.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ModelEntry {
    /// The name Bots pick it by.
    pub name: String,
    /// The provider's id for it.
    pub model: String,
    pub context_window: u32,
    /// It reads images (`imageInput` in config.toml, issue 32).
    #[serde(default)]
    pub image_input: bool,
}

/// `model-provider-remove {name}`.
#[derive(Debug, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProviderRemove {
    pub name: String,
}

/// `models-config` → the providers and their models, never a key.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ModelsAnswer {
    pub providers: Vec<ProviderRow>,
    pub default_model: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderRow {
    pub name: String,
    pub base_url: String,
    /// Where its key comes from: `saved` (Settings), `env` (a variable
    /// config.toml names) or `none`.
    pub key: &'static str,
    /// A saved key is there (the value is never shown).
    pub key_saved: bool,
    pub models: Vec<ModelEntry>,
}

/// Whether the actor is the host's owner: models belong to the whole host.
fn owner_only(team: &Team, actor: &Actor) -> Result<(), ApiError> {
    let owner = team.read(|state| match actor {
        Actor::SingleOwner => true,
        Actor::Member { member_id, .. } => host_owner_id(state).as_deref() == Some(member_id),
    });
    if owner {
        Ok(())
    } else {
        Err(ApiError::forbidden(
            "Only the host's owner sets up models; ask them to add this one.",
        ))
    }
}

/// The secret a provider's key is saved under.
pub fn key_name(provider: &str) -> String {
    let upper: String = provider
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() {
                c.to_ascii_uppercase()
            } else {
                '_'
            }
        })
        .collect();
    format!("MODEL_{upper}_KEY")
}

impl ModelsSettings<'_> {
    /// `models-config`.
    pub fn read(&self, actor: &Actor) -> Result<ModelsAnswer, ApiError> {
        owner_only(self.team, actor)?;
        let declared = self.models.declared();
        let saved = self.secrets.read().ok();
        let providers = declared
            .providers
            .iter()
            .map(|(name, p)| ProviderRow {
                name: name.clone(),
                base_url: p.base_url.clone(),
                key: match (&p.api_key_secret, &p.api_key_env) {
                    (Some(_), _) => "saved",
                    (None, Some(_)) => "env",
                    (None, None) => "none",
                },
                key_saved: p.api_key_secret.as_ref().is_some_and(|s| {
                    saved
                        .as_ref()
                        .is_some_and(|file| file.secrets.contains_key(s))
                }),
                models: declared
                    .models
                    .iter()
                    .filter(|(_, m)| m.provider == *name)
                    .map(|(model_name, m)| ModelEntry {
                        name: model_name.clone(),
                        model: m.model.clone(),
                        context_window: m.context_window,
                        image_input: m.image_input,
                    })
                    .collect(),
            })
            .collect();
        Ok(ModelsAnswer {
            providers,
            default_model: self.models.default_model(),
        })
    }

    /// `model-default-set`: the host's default model, checked against the
    /// models the host runs (the mock included), written to config.toml's
    /// `defaultModel` and applied at once. Answers the new listing.
    pub fn set_default(
        &self,
        actor: &Actor,
        req: DefaultModelSet,
    ) -> Result<ModelsAnswer, ApiError> {
        owner_only(self.team, actor)?;
        let model = req.model.trim();
        if self.models.route(model).is_err() {
            let shown: String = model.chars().take(80).collect();
            return Err(ApiError::invalid(
                "model",
                format!("There is no model named \"{shown}\"; pick one of the models listed in Settings."),
            )
            .with("model", shown.as_str()));
        }
        file::write_default_model(self.config_file, model).map_err(|e| {
            tracing::error!("config.toml could not be written: {e}");
            ApiError::new(
                ErrorCode::ReadOnly,
                "config.toml in the FlyBot home could not be written; nothing changed.",
            )
        })?;
        self.models
            .set_default_model(model)
            .map_err(|e| ApiError::invalid("model", e.0))?;
        self.read(actor)
    }

    /// `model-provider-set`: adds the provider or replaces it and its
    /// models whole. Answers the new listing.
    pub fn set(&self, actor: &Actor, req: ProviderSet) -> Result<ModelsAnswer, ApiError> {
        owner_only(self.team, actor)?;
        check_provider(&req)?;
        let mut next = self.models.declared();
        let previous = next.providers.get(&req.name).cloned();
        let dropped: Vec<String> = next
            .models
            .iter()
            .filter(|(name, m)| {
                m.provider == req.name && !req.models.iter().any(|e| e.name == **name)
            })
            .map(|(name, _)| name.clone())
            .collect();
        self.check_unused(&dropped)?;
        for entry in &req.models {
            if let Some(other) = next.models.get(&entry.name)
                && other.provider != req.name
            {
                return Err(ApiError::invalid(
                    "models",
                    format!(
                        "A model named {} is already on the provider {}; give this one another name.",
                        entry.name, other.provider
                    ),
                ));
            }
        }
        next.models.retain(|_, m| m.provider != req.name);
        let key_secret = match &req.api_key {
            Some(_) => Some(key_name(&req.name)),
            None => previous.as_ref().and_then(|p| p.api_key_secret.clone()),
        };
        next.providers.insert(
            req.name.clone(),
            ProviderConfig {
                base_url: req.base_url.trim().to_owned(),
                api_key_env: previous
                    .and_then(|p| p.api_key_env)
                    .filter(|_| key_secret.is_none()),
                api_key_secret: key_secret,
            },
        );
        for entry in &req.models {
            next.models.insert(
                entry.name.clone(),
                model_config(&req.name, entry, next.models.get(&entry.name)),
            );
        }
        // The whole set is checked before anything is written.
        ProviderRegistry::from_config(&next, MockModel::offline())
            .map_err(|e| ApiError::invalid("models", e.0))?;
        if let Some(key) = req.api_key {
            self.secrets.edit(|file, state| {
                let set = SecretSet {
                    name: key_name(&req.name),
                    value: key,
                    // The host uses it; no Bot's shell gets it.
                    scope: Some(SecretScope::Bots(Vec::new())),
                };
                flybot_core::secrets::set(file, set, actor.member_id(state), now_ms())
            })?;
        }
        self.apply(&next)?;
        self.read(actor)
    }

    /// `model-provider-remove`: refused while a Bot runs on one of its
    /// models or one of them is the default.
    pub fn remove(&self, actor: &Actor, req: ProviderRemove) -> Result<ModelsAnswer, ApiError> {
        owner_only(self.team, actor)?;
        let mut next = self.models.declared();
        if next.providers.remove(&req.name).is_none() {
            return Err(ApiError::not_found("provider", &req.name));
        }
        let dropped: Vec<String> = next
            .models
            .iter()
            .filter(|(_, m)| m.provider == req.name)
            .map(|(name, _)| name.clone())
            .collect();
        self.check_unused(&dropped)?;
        next.models.retain(|_, m| m.provider != req.name);
        self.apply(&next)?;
        let name = key_name(&req.name);
        if self
            .secrets
            .read()
            .is_ok_and(|f| f.secrets.contains_key(&name))
        {
            let gone = self
                .secrets
                .edit(|file, _| flybot_core::secrets::delete(file, &name));
            if let Err(e) = gone {
                tracing::warn!("the removed provider's key stays saved: {}", e.message);
            }
        }
        self.read(actor)
    }

    /// Writes config.toml, then swaps the registry: a file that cannot be
    /// written leaves the running set as it was.
    fn apply(&self, next: &ModelsConfig) -> Result<(), ApiError> {
        file::write_models(self.config_file, next).map_err(|e| {
            tracing::error!("config.toml could not be written: {e}");
            ApiError::new(
                ErrorCode::ReadOnly,
                "config.toml in the FlyBot home could not be written; nothing changed.",
            )
        })?;
        self.models
            .replace(next)
            .map_err(|e| ApiError::invalid("models", e.0))
    }

    /// Refuses to drop a model a Bot runs on, or the default one.
    fn check_unused(&self, dropped: &[String]) -> Result<(), ApiError> {
        let default_model = self.models.default_model();
        if let Some(model) = dropped.iter().find(|m| **m == default_model) {
            return Err(ApiError::invalid(
                "models",
                format!("{model} is the host's default model; it cannot be removed here."),
            ));
        }
        let users: Vec<String> = self.team.read(|state| {
            state
                .bots
                .values()
                .filter(|b| dropped.contains(&b.model))
                .map(|b| format!("{} ({})", b.name, b.model))
                .collect()
        });
        if users.is_empty() {
            return Ok(());
        }
        Err(ApiError::invalid(
            "models",
            format!(
                "{} still run on it; give them another model first.",
                users.join(", ")
            ),
        ))
    }
}

fn model_config(provider: &str, entry: &ModelEntry, old: Option<&ModelConfig>) -> ModelConfig {
    ModelConfig {
        provider: provider.to_owned(),
        model: entry.model.trim().to_owned(),
        context_window: entry.context_window,
        // What Settings does not edit stays as config.toml had it.
        thinking: old.map(|m| m.thinking.clone()).unwrap_or_default(),
        thinking_switch: old.is_some_and(|m| m.thinking_switch),
        max_output_tokens: old.and_then(|m| m.max_output_tokens),
        image_input: entry.image_input,
    }
}

fn plain_name(name: &str, max: usize, extra: &[char]) -> bool {
    !name.is_empty()
        && name.len() <= max
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_' || extra.contains(&c))
}

/// Every field of a provider edit, before anything is built.
fn check_provider(req: &ProviderSet) -> Result<(), ApiError> {
    if !plain_name(&req.name, 40, &[]) || req.name == "mock" {
        return Err(ApiError::invalid(
            "name",
            "A provider's name is 1 to 40 letters, digits, - or _ (and not \"mock\").",
        ));
    }
    let url = req.base_url.trim();
    let scheme_ok = url.starts_with("http://") || url.starts_with("https://");
    if !scheme_ok || url.len() > 500 || url.chars().any(char::is_whitespace) {
        return Err(ApiError::invalid(
            "baseUrl",
            "The base URL starts with http:// or https:// and ends at the API's version, like https://api.openai.com/v1.",
        ));
    }
    if req.models.is_empty() || req.models.len() > MODELS_MAX {
        return Err(ApiError::invalid(
            "models",
            format!("A provider carries 1 to {MODELS_MAX} models."),
        ));
    }
    for (i, m) in req.models.iter().enumerate() {
        if !plain_name(&m.name, 80, &['.', ':', '/']) || m.name == "mock" {
            return Err(ApiError::invalid(
                "models",
                "A model's name is 1 to 80 letters, digits, and - _ . : / (and not \"mock\").",
            ));
        }
        if req.models[..i].iter().any(|o| o.name == m.name) {
            return Err(ApiError::invalid(
                "models",
                format!("The model name {} is given twice.", m.name),
            ));
        }
        let id = m.model.trim();
        if id.is_empty() || id.len() > 200 || id.chars().any(char::is_control) {
            return Err(ApiError::invalid(
                "models",
                format!(
                    "{} needs the provider's id for the model, like gpt-4.1.",
                    m.name
                ),
            ));
        }
        if m.context_window == 0 || m.context_window > CONTEXT_MAX {
            return Err(ApiError::invalid(
                "models",
                format!("{}'s context window is 1 to {CONTEXT_MAX} tokens.", m.name),
            ));
        }
    }
    Ok(())
}

fn now_ms() -> u64 {
    flybot_store::system_now_ms()
}
