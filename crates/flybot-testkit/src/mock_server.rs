//! The mock model served over real HTTP on loopback, for tests of the
//! provider client, `test-model` and a real OpenCode. The server runs on its
//! own thread and runtime, so a test on a paused clock does not pause it.

use crate::Kit;
use flybot_agent::model::config::{ModelConfig, ModelsConfig, ProviderConfig, ProviderRegistry};
use flybot_agent::model::mock::{MockModel, Scenario};
use flybot_host::mock_model_app;
use std::sync::Arc;

/// A running `mock_model_app`; stops when dropped.
pub struct MockServer {
    pub base_url: String,
    _server: crate::loopback::Loopback,
}

impl MockServer {
    /// Serves `scenario` (JSON; empty for the offline answer).
    pub fn start(scenario: &str) -> MockServer {
        let mock = if scenario.is_empty() {
            MockModel::offline()
        } else {
            MockModel::with_scenario(Scenario::from_json(scenario).unwrap())
        };
        let app = mock_model_app(Arc::new(mock));
        let server = crate::loopback::Loopback::serve(app);
        let address = server.address;
        MockServer {
            base_url: format!("http://{address}/v1"),
            _server: server,
        }
    }
}

/// A config with one provider at `base_url` and the model `remote` on it.
pub fn models_config(base_url: &str, api_key_env: Option<&str>) -> ModelsConfig {
    let mut config = ModelsConfig::default();
    config.providers.insert(
        "local".into(),
        ProviderConfig {
            base_url: base_url.into(),
            api_key_env: api_key_env.map(str::to_owned),
            api_key_secret: None,
        },
    );
    config.models.insert(
        "remote".into(),
        ModelConfig {
            provider: "local".into(),
            model: "mock".into(),
            context_window: 32_000,
            thinking: vec!["low".into(), "high".into()],
            thinking_switch: false,
            max_output_tokens: Some(1024),
            image_input: false,
        },
    );
    config
}

/// A host whose registry is `config`, with the offline mock beside it.
pub async fn kit_on(config: &ModelsConfig) -> Kit {
    let models = ProviderRegistry::from_config(config, MockModel::offline()).unwrap();
    Kit::with_config(|host| host.models = Arc::new(models)).await
}
