//! Models and providers as `config.toml` declares them, and the registry
//! that maps a Bot's model name to the provider that runs it:
//!
//! ```toml
//! defaultModel = "deepseek-chat"
//!
//! [providers.deepseek]
//! baseUrl = "https://api.deepseek.com/v1"
//! apiKeyEnv = "DEEPSEEK_API_KEY"
//!
//! [models.deepseek-chat]
//! provider = "deepseek"
//! model = "deepseek-chat"
//! contextWindow = 65536
//! maxOutputTokens = 8192
//! thinking = []            # reasoning_effort values, least first
//! thinkingSwitch = true    # takes `thinking: {type: enabled|disabled}`
//! ```
//!
//! `mock` is always declared (the built-in mock model, offline). A provider
//! named `mock` may not be declared; a model may name `provider = "mock"` to be
//! another name for the mock.

use super::mock::{MOCK_MODEL, MockModel};
use super::openai::{KeySource, OpenAiProvider, OpenAiSettings, http_client};
use super::retry::Retrying;
use super::{ModelError, ModelProvider};
use flybot_core::sync::lock;
use serde::Deserialize;
use std::collections::{BTreeMap, HashSet};
use std::sync::{Arc, Mutex, OnceLock, RwLock};

/// The context window the mock declares.
pub const MOCK_CONTEXT_WINDOW: u32 = 128_000;

/// `[providers.<name>]`: an OpenAI-compatible endpoint.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ProviderConfig {
    /// Up to the version path: `https://api.openai.com/v1`,
    /// `http://127.0.0.1:11434/v1` (Ollama), `http://127.0.0.1:8000/v1` (vLLM).
    pub base_url: String,
    /// The NAME of the environment variable holding the key; none for a
    /// local server that needs no key. The key itself is never in the file.
    #[serde(default)]
    pub api_key_env: Option<String>,
    /// The NAME of a saved secret holding the key (issue 31: a key entered
    /// in Settings is kept in the secrets store, never in this file). Read
    /// at each request, so a new value applies without a restart.
    #[serde(default)]
    pub api_key_secret: Option<String>,
}

/// `[models.<name>]`: a model a Bot can name.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ModelConfig {
    /// A `[providers.<name>]` key, or `mock`.
    pub provider: String,
    /// The provider's id for the model (`deepseek-chat`, `gpt-4.1`, `qwen3:8b`).
    pub model: String,
    /// The prompt and answer together, in tokens; a turn's request fits it.
    pub context_window: u32,
    /// The `reasoning_effort` values the model accepts, least first; empty
    /// (the default) for a model with no thinking control.
    #[serde(default)]
    pub thinking: Vec<String>,
    /// The model takes DeepSeek's switch, `thinking: {type: enabled |
    /// disabled}`: the least level turns thinking off, any other on.
    #[serde(default)]
    pub thinking_switch: bool,
    #[serde(default)]
    pub max_output_tokens: Option<u32>,
    /// The model takes images (OpenAI `image_url` parts, issue 32); a
    /// text-only model is handed an image's reading instead (#779).
    #[serde(default)]
    pub image_input: bool,
}

/// The two tables together.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ModelsConfig {
    pub providers: BTreeMap<String, ProviderConfig>,
    pub models: BTreeMap<String, ModelConfig>,
}

/// A declaration the registry cannot use; the sentence names the table.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{0}")]
pub struct ModelConfigError(pub String);

/// One model a Bot can name, and how it runs.
#[derive(Clone)]
pub struct ModelRoute {
    /// The name a Bot's `model` field holds.
    pub name: String,
    /// The provider's name (`mock` for the mock), for the usage ledger.
    pub provider_name: String,
    /// The provider's id for the model.
    pub provider_model: String,
    pub context_window: u32,
    pub max_output_tokens: Option<u32>,
    /// The declared `reasoning_effort` values, least first.
    pub thinking: Vec<String>,
    /// The model takes the `thinking: {type}` switch.
    pub thinking_switch: bool,
    /// Runs on the built-in mock: no network, no key.
    pub offline: bool,
    /// The config declares image input (issue 32, #779).
    pub image_input: bool,
    /// The provider, bound to this model (it sets the request's model id and
    /// caps its tokens). Not retried: wrap it with `retrying()` for a turn.
    pub provider: Arc<dyn ModelProvider>,
    /// The OpenAI-compatible endpoint (`.../v1`) of an HTTP provider, and
    /// whether it needs a key: what an external runtime (OpenCode) is
    /// pointed at for this model.
    pub base_url: Option<String>,
    pub needs_key: bool,
    /// The mock itself, for a route on it: served on loopback when an
    /// external runtime needs this model over HTTP.
    pub mock: Option<Arc<MockModel>>,
}

impl ModelRoute {
    /// The provider a turn calls: rate-limited calls asked again (#1308).
    pub fn retrying(&self) -> Retrying<Arc<dyn ModelProvider>> {
        Retrying::new(self.provider.clone())
    }
}

impl std::fmt::Debug for ModelRoute {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ModelRoute")
            .field("name", &self.name)
            .field("provider_name", &self.provider_name)
            .field("provider_model", &self.provider_model)
            .field("context_window", &self.context_window)
            .field("offline", &self.offline)
            .finish_non_exhaustive()
    }
}

/// Looks a saved secret up by name, at the moment a request needs it.
pub type SecretLookup = Arc<dyn Fn(&str) -> Option<String> + Send + Sync>;

/// Every model the host can run, by the name a Bot holds. The set is
/// swapped whole (`replace`) when the owner edits it from Settings, so a
/// turn that already took its route keeps it and the next one takes the
/// new one (issue 31).
pub struct ProviderRegistry {
    routes: RwLock<BTreeMap<String, ModelRoute>>,
    /// What config.toml declares now (the providers and models tables).
    declared: RwLock<ModelsConfig>,
    /// The host's secrets, for a provider whose key is a saved secret.
    secrets: Arc<OnceLock<SecretLookup>>,
    /// Bots with a `test-model` running: one at a time each (#409).
    tests_running: Mutex<HashSet<String>>,
    /// The host's default model (config.toml's `defaultModel`), live: a
    /// new Bot gets it, and Settings changes it with no restart (issue 31).
    default_model: RwLock<String>,
}

impl std::fmt::Debug for ProviderRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(read(&self.routes).values()).finish()
    }
}

impl Default for ProviderRegistry {
    fn default() -> Self {
        ProviderRegistry::mock_only()
    }
}

impl ProviderRegistry {
    /// Only the mock, with no scenario: a fresh home.
    pub fn mock_only() -> Self {
        ProviderRegistry::with_mock(MockModel::offline())
    }

    /// Only `mock`, answering by this mock (a scenario, for tests and demos).
    pub fn with_mock(mock: MockModel) -> Self {
        let mut routes = BTreeMap::new();
        routes.insert(
            MOCK_MODEL.to_owned(),
            mock_route(MOCK_MODEL, Arc::new(mock)),
        );
        ProviderRegistry {
            routes: RwLock::new(routes),
            declared: RwLock::default(),
            secrets: Arc::default(),
            tests_running: Mutex::default(),
            default_model: RwLock::new(MOCK_MODEL.to_owned()),
        }
    }

    /// The host's default model now.
    pub fn default_model(&self) -> String {
        read(&self.default_model).clone()
    }

    /// Makes `model` the default; refused, and nothing changed, when no
    /// route has that name.
    pub fn set_default_model(&self, model: &str) -> Result<(), ModelConfigError> {
        if !read(&self.routes).contains_key(model) {
            return Err(ModelConfigError(format!(
                "There is no model named {model}; pick one of the models Settings lists."
            )));
        }
        *write(&self.default_model) = model.to_owned();
        Ok(())
    }

    /// The mock plus every model `config` declares.
    pub fn from_config(config: &ModelsConfig, mock: MockModel) -> Result<Self, ModelConfigError> {
        let registry = ProviderRegistry::with_mock(mock);
        registry.replace(config)?;
        Ok(registry)
    }

    /// Swaps the declared providers and models for `config`, keeping the
    /// mock; a declaration the registry cannot use is refused and the set
    /// stays as it was.
    pub fn replace(&self, config: &ModelsConfig) -> Result<(), ModelConfigError> {
        let mock = read(&self.routes)
            .get(MOCK_MODEL)
            .and_then(|route| route.mock.clone())
            .ok_or_else(|| ModelConfigError("the mock model is missing".to_owned()))?;
        let routes = build_routes(config, mock, &self.secrets)?;
        *write(&self.routes) = routes;
        *write(&self.declared) = config.clone();
        Ok(())
    }

    /// What the registry runs besides the mock, as config.toml declares it.
    pub fn declared(&self) -> ModelsConfig {
        read(&self.declared).clone()
    }

    /// Hands the registry the host's secrets, once, for the providers
    /// whose key is a saved secret.
    pub fn use_secrets(&self, lookup: SecretLookup) {
        let _ = self.secrets.set(lookup);
    }

    /// The route for a Bot's model name; `NoModel` for an empty or unknown one.
    pub fn route(&self, model: &str) -> Result<ModelRoute, ModelError> {
        read(&self.routes)
            .get(model)
            .cloned()
            .ok_or(ModelError::NoModel)
    }

    /// The model names, in order.
    pub fn names(&self) -> Vec<String> {
        read(&self.routes).keys().cloned().collect()
    }

    /// Whether a Bot on `model` talks to no real provider (the mock, or a
    /// name nothing declares).
    pub fn runs_offline(&self, model: &str) -> bool {
        read(&self.routes)
            .get(model)
            .is_none_or(|route| route.offline)
    }

    /// Marks a connection test running for `bot_id`; `None` when one already
    /// is (#409). The mark goes when the slot drops.
    pub fn begin_test(&self, bot_id: &str) -> Option<TestSlot<'_>> {
        let mut running = lock(&self.tests_running);
        running.insert(bot_id.to_owned()).then(|| TestSlot {
            registry: self,
            bot_id: bot_id.to_owned(),
        })
    }
}

/// The routes of `config` beside the mock's.
fn build_routes(
    config: &ModelsConfig,
    mock: Arc<MockModel>,
    secrets: &Arc<OnceLock<SecretLookup>>,
) -> Result<BTreeMap<String, ModelRoute>, ModelConfigError> {
    if config.providers.contains_key(MOCK_MODEL) {
        return Err(ModelConfigError(
            "[providers.mock] is built in; give your provider another name.".to_owned(),
        ));
    }
    let mut routes = BTreeMap::new();
    routes.insert(MOCK_MODEL.to_owned(), mock_route(MOCK_MODEL, mock.clone()));
    let http = if config.models.is_empty() {
        None
    } else {
        Some(http_client().map_err(|error| ModelConfigError(error.to_string()))?)
    };
    for (name, model) in &config.models {
        if name == MOCK_MODEL {
            return Err(ModelConfigError(
                "[models.mock] is built in; give your model another name.".to_owned(),
            ));
        }
        if model.context_window == 0 {
            return Err(ModelConfigError(format!(
                "[models.{name}] needs a contextWindow above 0."
            )));
        }
        let route = if model.provider == MOCK_MODEL {
            ModelRoute {
                context_window: model.context_window,
                image_input: model.image_input,
                ..mock_route(name, mock.clone())
            }
        } else {
            let provider = config.providers.get(&model.provider).ok_or_else(|| {
                ModelConfigError(format!(
                    "[models.{name}] names the provider {}, which no [providers.{}] declares.",
                    model.provider, model.provider
                ))
            })?;
            let Some(http) = &http else {
                return Err(ModelConfigError("no HTTP client".to_owned()));
            };
            http_route(name, model, provider, http.clone(), secrets)
        };
        routes.insert(name.clone(), route);
    }
    Ok(routes)
}

/// The route of a model on an OpenAI-compatible provider.
fn http_route(
    name: &str,
    model: &ModelConfig,
    provider: &ProviderConfig,
    http: reqwest::Client,
    secrets: &Arc<OnceLock<SecretLookup>>,
) -> ModelRoute {
    let key = match (&provider.api_key_secret, &provider.api_key_env) {
        (Some(secret), _) => KeySource::Secret {
            name: secret.clone(),
            lookup: secrets.clone(),
        },
        (None, Some(variable)) => KeySource::Env(variable.clone()),
        (None, None) => KeySource::None,
    };
    let settings = OpenAiSettings {
        provider_name: model.provider.clone(),
        base_url: provider.base_url.clone(),
        key,
        model: Some(model.model.clone()),
        thinking: model.thinking.clone(),
        thinking_switch: model.thinking_switch,
        max_output_tokens: model.max_output_tokens,
    };
    ModelRoute {
        name: name.to_owned(),
        provider_name: model.provider.clone(),
        provider_model: model.model.clone(),
        context_window: model.context_window,
        max_output_tokens: model.max_output_tokens,
        thinking: model.thinking.clone(),
        thinking_switch: model.thinking_switch,
        offline: false,
        provider: Arc::new(OpenAiProvider::new(http, settings)),
        base_url: Some(provider.base_url.clone()),
        needs_key: provider.api_key_env.is_some() || provider.api_key_secret.is_some(),
        image_input: model.image_input,
        mock: None,
    }
}

fn read<T>(lock: &RwLock<T>) -> std::sync::RwLockReadGuard<'_, T> {
    lock.read()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn write<T>(lock: &RwLock<T>) -> std::sync::RwLockWriteGuard<'_, T> {
    lock.write()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

fn mock_route(name: &str, mock: Arc<MockModel>) -> ModelRoute {
    ModelRoute {
        name: name.to_owned(),
        provider_name: MOCK_MODEL.to_owned(),
        provider_model: MOCK_MODEL.to_owned(),
        context_window: MOCK_CONTEXT_WINDOW,
        max_output_tokens: None,
        thinking: Vec::new(),
        thinking_switch: false,
        offline: true,
        image_input: false,
        provider: mock.clone(),
        base_url: None,
        needs_key: false,
        mock: Some(mock),
    }
}

/// A running connection test; dropping it ends the test's turn.
pub struct TestSlot<'a> {
    registry: &'a ProviderRegistry,
    bot_id: String,
}

impl Drop for TestSlot<'_> {
    fn drop(&mut self) {
        let mut running = lock(&self.registry.tests_running);
        running.remove(&self.bot_id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(toml_like: &[(&str, ProviderConfig)], models: &[(&str, ModelConfig)]) -> ModelsConfig {
        ModelsConfig {
            providers: toml_like
                .iter()
                .map(|(n, p)| ((*n).to_owned(), p.clone()))
                .collect(),
            models: models
                .iter()
                .map(|(n, m)| ((*n).to_owned(), m.clone()))
                .collect(),
        }
    }

    fn model(provider: &str) -> ModelConfig {
        ModelConfig {
            provider: provider.into(),
            model: "deepseek-chat".into(),
            context_window: 65_536,
            thinking: Vec::new(),
            thinking_switch: false,
            max_output_tokens: Some(8192),
            image_input: false,
        }
    }

    fn deepseek() -> ProviderConfig {
        ProviderConfig {
            base_url: "https://api.deepseek.com/v1".into(),
            api_key_env: Some("DEEPSEEK_API_KEY".into()),
            api_key_secret: None,
        }
    }

    #[test]
    fn a_fresh_home_has_only_the_offline_mock() {
        let registry = ProviderRegistry::mock_only();
        assert_eq!(registry.names(), vec!["mock"]);
        assert!(registry.runs_offline("mock"));
        assert_eq!(
            registry.route("mock").unwrap().context_window,
            MOCK_CONTEXT_WINDOW
        );
        assert_eq!(registry.route("").err(), Some(ModelError::NoModel));
    }

    #[test]
    fn declared_models_route_to_their_provider() {
        let config = parse(
            &[("deepseek", deepseek())],
            &[("chat", model("deepseek")), ("demo", model("mock"))],
        );
        let registry = ProviderRegistry::from_config(&config, MockModel::offline()).unwrap();
        let chat = registry.route("chat").unwrap();
        assert_eq!(
            (chat.provider_name.as_str(), chat.provider.name()),
            ("deepseek", "deepseek")
        );
        assert_eq!(chat.context_window, 65_536);
        assert!(!registry.runs_offline("chat"));
        assert!(registry.runs_offline("demo"));
    }

    #[test]
    fn bad_declarations_are_refused_with_a_sentence() {
        let unknown = parse(&[], &[("chat", model("nobody"))]);
        let error = ProviderRegistry::from_config(&unknown, MockModel::offline()).unwrap_err();
        assert!(error.0.contains("[providers.nobody]"), "{error}");
        let shadow = parse(&[], &[("mock", model("mock"))]);
        assert!(ProviderRegistry::from_config(&shadow, MockModel::offline()).is_err());
    }

    #[test]
    fn one_test_at_a_time_per_bot() {
        let registry = ProviderRegistry::mock_only();
        let slot = registry.begin_test("bot-1").unwrap();
        assert!(registry.begin_test("bot-1").is_none());
        assert!(registry.begin_test("bot-2").is_some());
        drop(slot);
        assert!(registry.begin_test("bot-1").is_some());
    }
}
